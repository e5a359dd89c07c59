// Replaying a trace on another shape, tile decisions refitted.
#include "search/schedule/trace_transfer.h"

#include <algorithm>

#include "ir/expr.h"
#include "search/schedule/schedule.h"
#include "support/error.h"

namespace kiln::search {
namespace {

int64_t LargestDivisorAtMost(int64_t n, int64_t limit) {
  for (int64_t d = std::min(n, std::max<int64_t>(limit, 1)); d > 1; --d) {
    if (n % d == 0) return d;
  }
  return 1;
}

}  // namespace

std::vector<int64_t> RefitTile(const std::vector<int64_t>& factors, int64_t extent,
                               int64_t max_innermost) {
  std::vector<int64_t> out(factors.size(), 1);
  if (factors.empty()) return out;
  int64_t left = std::max<int64_t>(extent, 1);
  for (size_t i = factors.size() - 1; i > 0; --i) {
    int64_t limit = factors[i];
    if (i + 1 == factors.size() && max_innermost > 0) limit = std::min(limit, max_innermost);
    out[i] = LargestDivisorAtMost(left, limit);
    left /= out[i];
  }
  out[0] = left;
  return out;
}

std::optional<Trace> TransferTrace(const Trace& trace, const ir::PrimFunc& workload) {
  Schedule sch(workload, 1);
  auto refit = [](const Schedule& s, const Instruction& inst, const std::vector<InstArg>& inputs,
                  const std::optional<nlohmann::json>& decision) -> std::optional<nlohmann::json> {
    if (inst.kind != "SamplePerfectTile" || !decision || !decision->is_array() || inputs.empty() ||
        !inst.attrs.is_array() || inst.attrs.size() < 2) {
      return decision;
    }
    std::optional<int64_t> extent = ir::AsConstInt(s.Get(inputs[0].loop())->extent);
    if (!extent) return decision;
    std::vector<int64_t> factors = decision->get<std::vector<int64_t>>();
    int64_t product = 1;
    for (int64_t f : factors) product *= std::max<int64_t>(f, 1);
    if (product == *extent) return decision;
    return nlohmann::json(RefitTile(factors, *extent, inst.attrs[1].get<int64_t>()));
  };
  try {
    trace.ApplyTo(sch, refit);
  } catch (const Error&) {
    return std::nullopt;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
  return sch.trace();
}

}  // namespace kiln::search
