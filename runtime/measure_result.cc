// MeasureErrorKind names and the correctness check that fills a MeasureResult.
#include "runtime/measure_result.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <utility>

namespace kiln::runtime {
namespace {

constexpr std::pair<MeasureErrorKind, std::string_view> kNames[] = {
    {MeasureErrorKind::kOk, "ok"},
    {MeasureErrorKind::kBuildError, "build_error"},
    {MeasureErrorKind::kRuntimeError, "runtime_error"},
    {MeasureErrorKind::kTimeout, "timeout"},
    {MeasureErrorKind::kWrongResult, "wrong_result"},
    {MeasureErrorKind::kSandboxViolation, "sandbox_violation"},
};

}  // namespace

std::string_view MeasureErrorKindName(MeasureErrorKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<MeasureErrorKind> ParseMeasureErrorKind(std::string_view name) {
  for (const auto& [k, n] : kNames) {
    if (n == name) return k;
  }
  return std::nullopt;
}

std::string ElementIndex(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    int64_t extent = std::max<int64_t>(shape[d], 1);
    index[d] = flat % extent;
    flat /= extent;
  }
  return ShapeText(index);
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

MeasureResult FailedResult(MeasureErrorKind kind, std::string message) {
  MeasureResult r;
  r.error_kind = kind;
  r.message = std::move(message);
  return r;
}

ir::Tolerance OutputTolerance(const ir::HostTensor& expected) {
  ir::Tolerance tol = ir::DefaultTolerance(expected.dtype());
  if (!expected.dtype().is_float()) return tol;
  double largest = 0;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double v = std::fabs(expected.GetDouble(i));
    if (std::isfinite(v)) largest = std::max(largest, v);
  }
  tol.atol = std::max(tol.atol, tol.rtol * 0.1 * largest);
  return tol;
}

void CheckOutputs(const std::vector<ir::HostTensor>& expected,
                  const std::vector<ir::HostTensor>& actual, MeasureResult& result,
                  std::optional<ir::Tolerance> tolerance, const std::vector<std::string>& names) {
  if (!result.ok()) return;
  result.correctness_checked = true;
  auto fail = [&](const std::string& message) {
    result.error_kind = MeasureErrorKind::kWrongResult;
    result.message = message;
  };
  if (expected.size() != actual.size()) {
    return fail("expected " + std::to_string(expected.size()) + " outputs, got " +
                std::to_string(actual.size()));
  }
  for (size_t i = 0; i < expected.size(); ++i) {
    const ir::HostTensor& e = expected[i];
    const ir::HostTensor& a = actual[i];
    std::string name = i < names.size() ? "output " + names[i] : "output " + std::to_string(i);
    if (e.dtype() != a.dtype() || e.shape() != a.shape()) {
      return fail(name + ": expected " + e.Describe() + ", got " + a.Describe());
    }
    ir::Tolerance tol = tolerance.value_or(OutputTolerance(e));
    ir::TensorComparison cmp = ir::CompareTensors(e, a, tol.rtol, tol.atol);
    // NaN errors (a NaN where a number was expected) must not hide behind std::max.
    auto worse = [](double current, double candidate) {
      return std::isnan(candidate) ? candidate : std::max(current, candidate);
    };
    result.max_abs_error = worse(result.max_abs_error, cmp.max_abs_error);
    result.max_rel_error = worse(result.max_rel_error, cmp.max_rel_error);
    if (!cmp.ok && result.ok()) {
      std::ostringstream os;
      os << name << ": element " << ElementIndex(e.shape(), cmp.first_mismatch) << " (flat "
         << cmp.first_mismatch << ") expected " << e.GetDouble(cmp.first_mismatch) << ", got "
         << a.GetDouble(cmp.first_mismatch) << "; " << cmp.mismatches << " of " << e.numel()
         << " elements differ (rtol " << tol.rtol << ", atol " << tol.atol << ")";
      fail(os.str());
    }
  }
}

}  // namespace kiln::runtime
