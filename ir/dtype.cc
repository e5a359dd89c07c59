// DataType names.
#include "ir/dtype.h"

#include <charconv>

namespace kiln::ir {

std::string DataType::ToString() const {
  if (is_void()) return "void";
  std::string base;
  switch (code_) {
    case Code::kBool: base = "bool"; break;
    case Code::kInt: base = "int" + std::to_string(bits_); break;
    case Code::kUInt: base = "uint" + std::to_string(bits_); break;
    case Code::kFloat: base = "float" + std::to_string(bits_); break;
    case Code::kBFloat: base = "bfloat" + std::to_string(bits_); break;
    case Code::kHandle: base = "handle"; break;
  }
  if (lanes_ > 1) base += "x" + std::to_string(lanes_);
  return base;
}

std::optional<DataType> DataType::Parse(std::string_view name) {
  int lanes = 1;
  if (auto x = name.find('x'); x != std::string_view::npos) {
    std::string_view lane_text = name.substr(x + 1);
    auto [ptr, ec] = std::from_chars(lane_text.data(), lane_text.data() + lane_text.size(), lanes);
    if (ec != std::errc() || ptr != lane_text.data() + lane_text.size() || lanes < 2) {
      return std::nullopt;
    }
    name = name.substr(0, x);
  }
  if (name == "void" && lanes == 1) return Void();
  if (name == "handle" && lanes == 1) return Handle();
  if (name == "bool") return Bool(lanes);
  auto with_bits = [&](std::string_view prefix, Code code) -> std::optional<DataType> {
    if (name.substr(0, prefix.size()) != prefix) return std::nullopt;
    std::string_view digits = name.substr(prefix.size());
    int bits = 0;
    auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), bits);
    if (ec != std::errc() || ptr != digits.data() + digits.size()) return std::nullopt;
    return DataType(code, bits, lanes);
  };
  std::optional<DataType> t;
  if ((t = with_bits("uint", Code::kUInt)) && (t->bits() == 8 || t->bits() == 16 ||
                                               t->bits() == 32 || t->bits() == 64)) {
    return t;
  }
  if ((t = with_bits("int", Code::kInt)) && (t->bits() == 8 || t->bits() == 16 ||
                                             t->bits() == 32 || t->bits() == 64)) {
    return t;
  }
  if ((t = with_bits("bfloat", Code::kBFloat)) && t->bits() == 16) return t;
  if ((t = with_bits("float", Code::kFloat)) && (t->bits() == 16 || t->bits() == 32 ||
                                                 t->bits() == 64)) {
    return t;
  }
  return std::nullopt;
}

}  // namespace kiln::ir
