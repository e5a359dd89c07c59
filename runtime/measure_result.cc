// MeasureErrorKind names and the correctness check that fills a MeasureResult.
#include "runtime/measure_result.h"

#include <algorithm>
#include <cmath>

namespace kiln::runtime {
namespace {

constexpr std::pair<MeasureErrorKind, std::string_view> kNames[] = {
    {MeasureErrorKind::kOk, "ok"},
    {MeasureErrorKind::kBuildError, "build_error"},
    {MeasureErrorKind::kRuntimeError, "runtime_error"},
    {MeasureErrorKind::kTimeout, "timeout"},
    {MeasureErrorKind::kWrongResult, "wrong_result"},
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

void CheckOutputs(const std::vector<ir::HostTensor>& expected,
                  const std::vector<ir::HostTensor>& actual, MeasureResult& result,
                  std::optional<ir::Tolerance> tolerance) {
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
    if (e.dtype() != a.dtype() || e.shape() != a.shape()) {
      return fail("output " + std::to_string(i) + ": expected " + e.Describe() + ", got " +
                  a.Describe());
    }
    ir::Tolerance tol = tolerance.value_or(ir::DefaultTolerance(e.dtype()));
    ir::TensorComparison cmp = ir::CompareTensors(e, a, tol.rtol, tol.atol);
    // NaN errors (a NaN where a number was expected) must not hide behind std::max.
    auto worse = [](double current, double candidate) {
      return std::isnan(candidate) ? candidate : std::max(current, candidate);
    };
    result.max_abs_error = worse(result.max_abs_error, cmp.max_abs_error);
    result.max_rel_error = worse(result.max_rel_error, cmp.max_rel_error);
    if (!cmp.ok && result.ok()) fail("output " + std::to_string(i) + ": " + cmp.message);
  }
}

}  // namespace kiln::runtime
