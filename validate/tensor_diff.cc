// Tolerances per dtype and the elementwise diff with its statistics.
#include "validate/tensor_diff.h"

#include <cmath>
#include <sstream>

#include "runtime/measure_result.h"
#include "support/error.h"

namespace kiln::validate {

ir::Tolerance Tolerances::For(const ir::HostTensor& expected) const {
  ir::Tolerance tol = runtime::OutputTolerance(expected);
  std::string dtype = expected.dtype().ToString();
  if (auto it = rtol.find(dtype); it != rtol.end()) tol.rtol = it->second;
  if (auto it = atol.find(dtype); it != atol.end()) tol.atol = it->second;
  return tol;
}

void Tolerances::Parse(const std::vector<std::string>& options, const std::string& flag,
                       std::map<std::string, double>& into) {
  for (const std::string& o : options) {
    size_t eq = o.find('=');
    KILN_CHECK(eq != std::string::npos && eq > 0, ErrorKind::kParse,
               flag + " " + o + ": DTYPE=VALUE expected (float32=1e-3)");
    std::string dtype = o.substr(0, eq);
    std::optional<ir::DataType> parsed = ir::DataType::Parse(dtype);
    KILN_CHECK(parsed.has_value(), ErrorKind::kParse,
               flag + " " + o + ": '" + dtype + "' is not a dtype");
    double value = 0;
    size_t used = 0;
    try {
      value = std::stod(o.substr(eq + 1), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    KILN_CHECK(used > 0 && used == o.size() - eq - 1 && value >= 0 && std::isfinite(value),
               ErrorKind::kParse, flag + " " + o + ": a number at least 0 expected after '='");
    into[parsed->ToString()] = value;
  }
}

std::string TensorDiff::Summary() const {
  std::ostringstream os;
  os << "max abs " << max_abs_error << ", max rel " << max_rel_error << ", nmse " << nmse;
  if (!ok) {
    os << ", " << mismatches << " of " << elements << " differ";
    if (!first_bad_index.empty()) {
      os << ", first at " << first_bad_index << ": expected " << expected_at_first << ", got "
         << actual_at_first;
    }
    if (non_finite) os << " (non-finite values)";
  }
  return os.str();
}

TensorDiff Diff(const ir::HostTensor& expected, const ir::HostTensor& actual,
                const ir::Tolerance& tolerance) {
  TensorDiff d;
  d.rtol = tolerance.rtol;
  d.atol = tolerance.atol;
  d.elements = expected.numel();
  if (expected.shape() != actual.shape() || expected.dtype() != actual.dtype()) {
    d.ok = false;
    d.mismatches = d.elements;
    d.max_abs_error = d.max_rel_error = d.nmse = INFINITY;
    return d;
  }
  double err2 = 0, ref2 = 0;
  for (int64_t i = 0; i < d.elements; ++i) {
    double e = expected.GetDouble(i), a = actual.GetDouble(i);
    if (std::isnan(e) && std::isnan(a)) continue;
    if (std::isinf(e) && e == a) continue;
    double abs_err = std::fabs(a - e);
    if (!std::isfinite(abs_err)) {
      abs_err = INFINITY;
      if (std::isfinite(e)) d.non_finite = true;
    }
    d.max_abs_error = std::max(d.max_abs_error, abs_err);
    if (std::fabs(e) > tolerance.atol) {
      d.max_rel_error = std::max(d.max_rel_error, abs_err / std::fabs(e));
    }
    if (std::isfinite(e)) ref2 += e * e;
    err2 += abs_err * abs_err;
    if (!(abs_err <= tolerance.atol + tolerance.rtol * std::fabs(e))) {
      if (d.mismatches++ == 0) {
        d.first_bad_index = runtime::ElementIndex(expected.shape(), i);
        d.first_bad_flat = i;
        d.expected_at_first = e;
        d.actual_at_first = a;
      }
    }
  }
  d.nmse = err2 == 0 ? 0 : ref2 == 0 ? INFINITY : err2 / ref2;
  d.ok = d.mismatches == 0;
  return d;
}

bool AllFinite(const ir::HostTensor& tensor) {
  if (!tensor.dtype().is_float()) return true;
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    if (!std::isfinite(tensor.GetDouble(i))) return false;
  }
  return true;
}

}  // namespace kiln::validate
