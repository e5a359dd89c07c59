// Exact literals of constants and attribute values.
#include "ir/relax/text/literal.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "ir/text/print_util.h"

namespace kiln::ir::relax::text {

namespace {

std::string NonFinite(double v) {
  if (std::isnan(v)) return "float(\"nan\")";
  return v < 0 ? "float(\"-inf\")" : "float(\"inf\")";
}

// Scientific text ("-1.25e-05", as printf's %e or to_chars write it) in Python's repr
// layout: positional for decimal exponents in [-4, 16), else 1.25e-05, 1e+16.
std::string PythonLayout(std::string_view text) {
  size_t e = text.find('e');
  int exponent = std::atoi(std::string(text.substr(e + 1)).c_str());
  std::string sign = text[0] == '-' ? "-" : "";
  std::string digits;
  for (size_t i = sign.size(); i < e; ++i) {
    if (text[i] != '.') digits += text[i];
  }
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  if (exponent >= -4 && exponent < 16) {
    if (exponent < 0) return sign + "0." + std::string(-exponent - 1, '0') + digits;
    auto whole = static_cast<size_t>(exponent) + 1;
    if (digits.size() <= whole) {
      return sign + digits + std::string(whole - digits.size(), '0') + ".0";
    }
    return sign + digits.substr(0, whole) + "." + digits.substr(whole);
  }
  std::string mantissa = digits.substr(0, 1) + (digits.size() > 1 ? "." + digits.substr(1) : "");
  char exp[16];
  std::snprintf(exp, sizeof exp, "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return sign + mantissa + exp;
}

// `v` with the fewest significant digits for which `exact` accepts the value read back.
// `candidate`, when given, is tried first (the shortest text of a float32 or float64 from
// to_chars, which is almost always the answer).
template <typename Exact>
std::string ShortestText(double v, Exact exact, std::string_view candidate = {}) {
  if (!candidate.empty() && exact(std::strtod(std::string(candidate).c_str(), nullptr))) {
    return PythonLayout(candidate);
  }
  char buf[40];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*e", precision - 1, v);
    if (exact(std::strtod(buf, nullptr))) break;
  }
  return PythonLayout(buf);
}

// The shortest text of element `flat` that stores back to the same bytes in `probe`.
std::string ShortestFloat(const HostTensor& t, int64_t flat, HostTensor& probe) {
  double v = t.GetDouble(flat);
  if (!std::isfinite(v)) return NonFinite(v);
  size_t width = static_cast<size_t>(t.dtype().bytes());
  const auto* want = static_cast<const uint8_t*>(t.data()) + static_cast<size_t>(flat) * width;
  char buf[64];
  std::string_view candidate;
  if (t.dtype() == DataType::Float(32) || t.dtype() == DataType::Float(64)) {
    auto result = t.dtype().bits() == 32
                      ? std::to_chars(buf, buf + sizeof buf, static_cast<float>(v),
                                      std::chars_format::scientific)
                      : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
    candidate = std::string_view(buf, static_cast<size_t>(result.ptr - buf));
  }
  return ShortestText(
      v,
      [&](double back) {
        probe.SetDouble(0, back);
        return std::memcmp(probe.data(), want, width) == 0;
      },
      candidate);
}

void AppendTensor(const HostTensor& t, size_t dim, int64_t* flat, HostTensor& probe,
                  std::string& out) {
  if (dim == t.shape().size()) {
    out += t.dtype().is_float() ? ShortestFloat(t, (*flat)++, probe) : ElementLiteral(t, (*flat)++);
    return;
  }
  out += '[';
  for (int64_t i = 0; i < t.shape()[dim]; ++i) {
    if (i > 0) out += ", ";
    AppendTensor(t, dim + 1, flat, probe, out);
  }
  out += ']';
}

}  // namespace

std::string ElementLiteral(const HostTensor& t, int64_t flat) {
  DataType dtype = t.dtype();
  if (dtype.is_bool()) return t.GetInt(flat) != 0 ? "True" : "False";
  if (dtype.is_uint() && dtype.bits() == 64) {
    return std::to_string(static_cast<uint64_t>(t.GetInt(flat)));
  }
  if (dtype.is_int() || dtype.is_uint()) return std::to_string(t.GetInt(flat));
  HostTensor probe(dtype, {});
  return ShortestFloat(t, flat, probe);
}

std::string TensorLiteral(const HostTensor& t) {
  HostTensor probe(t.dtype(), {});
  std::string out;
  int64_t flat = 0;
  AppendTensor(t, 0, &flat, probe, out);
  return out;
}

std::string FloatText(double v) {
  if (!std::isfinite(v)) return NonFinite(v);
  char buf[64];
  auto result = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  return ShortestText(
      v, [&](double back) { return std::memcmp(&back, &v, sizeof v) == 0; },
      std::string_view(buf, static_cast<size_t>(result.ptr - buf)));
}

std::string AttrText(const AttrValue& value) {
  switch (TypeOf(value)) {
    case AttrType::kBool:
      return std::get<bool>(value) ? "True" : "False";
    case AttrType::kInt:
      return std::to_string(std::get<int64_t>(value));
    case AttrType::kFloat:
      return FloatText(std::get<double>(value));
    case AttrType::kString:
      return ir::QuoteString(std::get<std::string>(value));
    case AttrType::kIntList: {
      std::string s = "[";
      const auto& v = std::get<std::vector<int64_t>>(value);
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    }
    case AttrType::kDType:
      return ir::QuoteString(std::get<DataType>(value).ToString());
  }
  return "None";
}

std::optional<double> SpecialFloat(std::string_view name) {
  if (name == "nan" || name == "NaN" || name == "+nan") return std::nan("");
  if (name == "-nan") return -std::nan("");
  if (name == "inf" || name == "Infinity" || name == "+inf") return HUGE_VAL;
  if (name == "-inf" || name == "-Infinity") return -HUGE_VAL;
  return std::nullopt;
}

std::optional<uint64_t> ParseIntLiteral(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    base = 16;
    text.remove_prefix(2);
  }
  if (text.empty()) return std::nullopt;
  uint64_t value = 0;
  for (char c : text) {
    int digit = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                : base == 16 && std::isxdigit(static_cast<unsigned char>(c))
                    ? std::tolower(static_cast<unsigned char>(c)) - 'a' + 10
                    : -1;
    if (digit < 0) return std::nullopt;
    if (__builtin_mul_overflow(value, static_cast<uint64_t>(base), &value) ||
        __builtin_add_overflow(value, static_cast<uint64_t>(digit), &value)) {
      return std::nullopt;
    }
  }
  return value;
}

bool IntFits(DataType dtype, int64_t value, bool is_unsigned_big) {
  if (dtype.is_bool()) return !is_unsigned_big && (value == 0 || value == 1);
  int bits = dtype.bits();
  if (dtype.is_uint()) {
    if (is_unsigned_big) return bits == 64;
    return value >= 0 && (bits >= 64 || value < (int64_t{1} << bits));
  }
  if (is_unsigned_big) return false;
  if (bits >= 64) return true;
  int64_t limit = int64_t{1} << (bits - 1);
  return value >= -limit && value < limit;
}

}  // namespace kiln::ir::relax::text
