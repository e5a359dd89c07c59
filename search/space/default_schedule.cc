// The default CPU schedule: the "cpu" preset's tiled sketches with fixed decisions instead of
// sampled ones (a register tile: the innermost spatial loop split by the vector lanes, the one
// before it by four rows, the reduction by a 32-step), and the untiled form (auto-inline and
// the root's parallel / vectorize / unroll marks); the CPU postprocessors rewrite the marks
// into loop kinds.
#include "search/space/default_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

#include "ir/structural.h"
#include "search/space/design_space.h"
#include "search/space/rules/rules.h"

namespace kiln::search {
namespace {

constexpr int64_t kRegisterRows = 4;    // rows of a contraction's register tile
constexpr int64_t kReductionStep = 32;  // the inner step of a reduction loop
constexpr int64_t kFloat32Bytes = 4;    // lanes are counted for float32 (the common case)

// The largest divisor of `extent` not above `limit` (at least 1).
int64_t DivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t d = std::min(extent, std::max<int64_t>(limit, 1)); d > 1; --d) {
    if (extent % d == 0) return d;
  }
  return 1;
}

// `n` tile factors of `extent` with `inner` innermost and the rest outermost.
std::vector<int64_t> OuterAndInner(int64_t extent, size_t n, int64_t inner) {
  std::vector<int64_t> factors(n, 1);
  factors.back() = inner;
  factors.front() = extent / inner;
  return factors;
}

int64_t Product(const nlohmann::json& factors) {
  int64_t p = 1;
  for (const auto& f : factors) p *= f.get<int64_t>();
  return p;
}

enum class TileRole { kOuter, kRows, kLanes, kReduction };

// The role of each SamplePerfectTile of a trace, given each one's factor count: per tiled
// block, multi-level tiling samples its spatial loops (n > 2) then its reduction loops
// (n == 2). The last spatial loop before a reduction (or at the end) is the innermost, which
// is vectorized; the spatial loop before it gives the register tile's rows; the other spatial
// loops stay whole, outermost (the parallel loops).
std::vector<TileRole> TileRoles(const std::vector<int>& factors) {
  std::vector<TileRole> roles(factors.size(), TileRole::kOuter);
  for (size_t t = 0; t < factors.size(); ++t) {
    if (factors[t] == 2) {
      roles[t] = TileRole::kReduction;
      continue;
    }
    bool last_spatial = t + 1 == factors.size() || factors[t + 1] == 2;
    if (!last_spatial) continue;
    roles[t] = TileRole::kLanes;
    if (t > 0 && factors[t - 1] != 2) roles[t - 1] = TileRole::kRows;
  }
  return roles;
}

// The sketch's trace with the default's decisions: each tile's inner factor by its role (the
// rest outermost), the unroll step closest to `unroll_step`.
Trace WithDefaultDecisions(const Trace& sketch, int64_t lanes, int64_t unroll_step) {
  Trace trace = sketch;
  const std::vector<Instruction>& insts = sketch.instructions();
  std::vector<size_t> tiles;
  std::vector<int> factors;
  for (size_t i = 0; i < insts.size(); ++i) {
    if (insts[i].kind == "SamplePerfectTile") {
      tiles.push_back(i);
      factors.push_back(insts[i].attrs[0].get<int>());
    }
    if (insts[i].kind == "SampleCategorical") {
      const auto candidates = insts[i].attrs[0].get<std::vector<int64_t>>();
      size_t best = 0;
      for (size_t c = 0; c < candidates.size(); ++c) {
        if (std::abs(candidates[c] - unroll_step) < std::abs(candidates[best] - unroll_step)) {
          best = c;
        }
      }
      trace = trace.WithDecision(i, static_cast<int64_t>(best));
    }
  }
  std::vector<TileRole> roles = TileRoles(factors);
  for (size_t t = 0; t < tiles.size(); ++t) {
    std::optional<nlohmann::json> sampled = sketch.GetDecision(tiles[t]);
    if (!sampled) continue;
    int64_t extent = Product(*sampled);  // a sampled perfect tile multiplies to the extent
    int64_t inner = 1;
    switch (roles[t]) {
      case TileRole::kOuter:
        break;
      case TileRole::kRows:
        inner = DivisorAtMost(extent, kRegisterRows);
        break;
      case TileRole::kLanes:
        inner = DivisorAtMost(extent, lanes);
        break;
      case TileRole::kReduction:
        inner = DivisorAtMost(extent, kReductionStep);
        break;
    }
    trace =
        trace.WithDecision(tiles[t], OuterAndInner(extent, static_cast<size_t>(factors[t]), inner));
  }
  return trace;
}

bool Has(const Trace& trace, const std::string& kind) {
  for (const Instruction& inst : trace.instructions()) {
    if (inst.kind == kind) return true;
  }
  return false;
}

// Of the tiled sketches, the one that accumulates in a cache (cache_write) first; sketches
// with a sampled compute location or an rfactor last (their decisions are not fixed here).
int Preference(const Trace& trace) {
  int score = 0;
  if (Has(trace, "CacheWrite")) score += 2;
  if (Has(trace, "SampleComputeLocation") || Has(trace, "RFactor")) score -= 8;
  return score;
}

}  // namespace

std::vector<Candidate> DefaultCpuSchedules(const ir::PrimFunc& workload,
                                           const DefaultScheduleOptions& options) {
  TuneContext context;
  context.workload = workload;
  context.task_name = workload->name;
  context.target = "llvm";
  context.num_cores = std::max(1, options.num_cores);
  context.vector_bytes = options.vector_bytes;
  int64_t lanes = std::max<int64_t>(1, options.vector_bytes / kFloat32Bytes);
  std::vector<Candidate> out;
  auto add = [&](const Trace& trace, const DesignSpace& space) {
    std::optional<Candidate> c = ApplyTrace(workload, trace, space.postprocs, 1, nullptr);
    if (!c) return;
    for (const Candidate& have : out) {
      if (ir::StructuralEqual(have.scheduled, c->scheduled)) return;
    }
    out.push_back(std::move(*c));
  };

  // The tiled sketches, by preference: the first that applies without reading an operand
  // through a cache, and the first that does (a packed operand, for a transposed one).
  DesignSpace space = MakeDesignSpace("cpu");
  space.mutators.clear();
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  std::stable_sort(sketches.begin(), sketches.end(), [](const Schedule& a, const Schedule& b) {
    return Preference(a.trace()) > Preference(b.trace());
  });
  for (bool packed : {false, true}) {
    for (const Schedule& sketch : sketches) {
      const Trace& t = sketch.trace();
      if (!Has(t, "SamplePerfectTile") || Has(t, "CacheRead") != packed) continue;
      size_t before = out.size();
      add(WithDefaultDecisions(t, lanes, options.unroll_max_step), space);
      if (out.size() > before) break;
    }
  }

  // Untiled: inline, then the root's marks alone.
  DesignSpace plain = MakeDesignSpace("cpu");
  plain.rules.clear();
  plain.rules.push_back(MakeAutoInline());
  plain.rules.push_back(
      MakeParallelVectorizeUnroll({.unroll_max_steps = {options.unroll_max_step}}));
  plain.mutators.clear();
  plain.Initialize(context);
  for (const Schedule& sketch : plain.Sketches(context)) add(sketch.trace(), plain);
  return out;
}

std::optional<Candidate> DefaultCpuSchedule(const ir::PrimFunc& workload,
                                            const DefaultScheduleOptions& options) {
  std::vector<Candidate> all = DefaultCpuSchedules(workload, options);
  if (all.empty()) return std::nullopt;
  return std::move(all.front());
}

}  // namespace kiln::search
