// The default CPU schedule: the "cpu" preset's tiled sketches with fixed decisions instead of
// sampled ones (a register tile: the innermost spatial loop split by two vector registers of
// lanes, the loop whose rows reuse the loaded vector by eight rows, the reduction by a
// 32-step; a convolution's channel-last layout sketch by its own tile), the untiled form
// (auto-inline and the root's parallel / vectorize / unroll marks) and the untiled form with
// each stage under the row loop of the stage that reads it; the CPU postprocessors rewrite the
// marks into loop kinds.
#include "search/space/default_schedule.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/structural.h"
#include "ir/substitute.h"
#include "search/schedule/state.h"
#include "search/space/conv_schedules.h"
#include "search/space/design_space.h"
#include "search/space/rules/rules.h"

namespace kiln::search {
namespace {

// A contraction's register tile: 8 rows by 2 vector registers of lanes (16 accumulators, as a
// BLAS micro-kernel), accumulated in a local tile (the sketches that set the output's scope
// or write through a cache come first), unrolled whole: the unroll step (512) covers the
// tile's 8 x 2 x 16 iterations, so the C compiler keeps the accumulators in registers.
constexpr int64_t kRegisterRows = 8;
constexpr int64_t kLaneRegisters = 2;
constexpr int64_t kRegisterTileUnroll = 512;
// A contraction whose lanes are a fixed split of the output channels (the layout sketch of a
// convolution: the output written channel-last, the weights packed): its register tile is up
// to 7 output columns by 2 output rows by 2 channel vectors, 28 vector accumulators (of the 32
// AVX-512 registers), each column loading one input scalar that every channel vector reuses.
constexpr int64_t kChannelTileColumns = 7;
constexpr int64_t kChannelTilePairs = 2;
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

enum class TileRole { kOuter, kRows, kLanes, kReduction, kColumns, kPair };

// What a tile's loop binds in the workload: the tiled block and its iter var (null where the
// loop is not one block iter var's own loop), and whether the loop is the outer part of a
// split by a constant (the rest of a dimension whose inner part is fixed lanes).
struct TiledVar {
  const ir::BlockNode* block = nullptr;
  const ir::VarNode* var = nullptr;
  bool outer_of_lanes = false;
};

// For each SamplePerfectTile of the sketch, in order, the block iter var its loop binds in the
// workload, found through the trace: GetBlock names the block, GetLoops lists its loops, the
// tile's input is one of them. Multi-level tiling samples the block's loops as written.
std::vector<TiledVar> TiledVars(const Trace& sketch, const ir::PrimFunc& workload) {
  ScheduleState state(workload);
  std::map<int64_t, const ir::BlockRealizeNode*> blocks;  // block rv
  struct LoopOf {
    const ir::BlockRealizeNode* realize;
    size_t position;  // among the block's loops as written
    bool outer_of_lanes;
  };
  std::map<int64_t, LoopOf> loops;  // by loop rv
  std::vector<TiledVar> out;
  for (const Instruction& inst : sketch.instructions()) {
    if (inst.kind == "GetSBlock" && !inst.outputs.empty() && !inst.attrs.empty()) {
      int index = state.FindBlock(inst.attrs[0].get<std::string>());
      if (index >= 0) blocks[inst.outputs[0].value] = state.entry(index).realize();
    } else if (inst.kind == "GetLoops" && !inst.inputs.empty()) {
      auto block = blocks.find(inst.inputs[0].value);
      if (block == blocks.end()) continue;
      for (size_t i = 0; i < inst.outputs.size(); ++i) {
        loops[inst.outputs[i].value] = {block->second, i, false};
      }
    } else if (inst.kind == "Split" && inst.inputs.size() == 3 && inst.outputs.size() == 2 &&
               inst.inputs[2].kind == ArgKind::kInt) {
      auto loop = loops.find(inst.inputs[0].value);
      if (loop == loops.end()) continue;
      loops[inst.outputs[0].value] = {loop->second.realize, loop->second.position, true};
    } else if (inst.kind == "SamplePerfectTile") {
      TiledVar tiled;
      auto loop = loops.find(inst.inputs.empty() ? -1 : inst.inputs[0].value);
      if (loop != loops.end()) {
        const auto [realize, position, outer_of_lanes] = loop->second;
        const ir::BlockNode* block = realize->block_node();
        int index = state.IndexOf(realize);
        std::vector<int> above = index >= 0 ? state.LoopsAbove(index) : std::vector<int>{};
        if (position < above.size() && position < block->iter_vars.size()) {
          const ir::VarNode* loop_var = state.entry(above[position]).loop()->loop_var.get();
          if (realize->iter_values[position].as<ir::VarNode>() == loop_var) {
            tiled = {block, block->iter_vars[position].var.get(), outer_of_lanes};
          }
        }
      }
      out.push_back(tiled);
    }
  }
  return out;
}

// Whether `var` indexes an operand that the lanes loop `lanes` reads along its last dimension
// (an operand loaded as a vector: a row of the register tile that indexes it loads its own);
// the output the block accumulates into does not count.
bool IndexesAVectorOperand(const ir::BlockNode& block, const ir::VarNode* var,
                           const ir::VarNode* lanes) {
  auto written = [&](const ir::BufferRegion& read) {
    for (const ir::BufferRegion& w : block.writes) {
      if (w.buffer.same_as(read.buffer)) return true;
    }
    return false;
  };
  for (const ir::BufferRegion& read : block.reads) {
    if (read.region.empty() || !ir::UsesVar(read.region.back().min, lanes)) continue;
    if (written(read)) continue;  // the accumulator: it stays in registers
    for (const ir::Range& r : read.region) {
      if (ir::UsesVar(r.min, var)) return true;
    }
  }
  return false;
}

// The role of each SamplePerfectTile of a trace, given each one's factor count and the var it
// tiles: per tiled block, multi-level tiling samples its spatial loops (n > 2) then its
// reduction loops (n == 2). The last spatial loop before a reduction (or at the end) is the
// innermost, which is vectorized. The register tile's rows are the spatial loop nearest it
// that no vector-loaded operand depends on (a matmul's i, a convolution's output channel:
// each row reuses the vector the lanes load and broadcasts one scalar), else the spatial
// loop just before the lanes. Where the lanes are a fixed split of the output channels (the
// convolution layout sketch), the last spatial loop gives the tile's columns and the one
// before it and the channels' outer part a pair each. The other spatial loops stay whole,
// outermost (the parallel loops).
std::vector<TileRole> TileRoles(const std::vector<int>& factors,
                                const std::vector<TiledVar>& vars) {
  std::vector<TileRole> roles(factors.size(), TileRole::kOuter);
  size_t group_start = 0;  // first spatial tile of the current block
  for (size_t t = 0; t < factors.size(); ++t) {
    if (factors[t] == 2) {
      roles[t] = TileRole::kReduction;
      group_start = t + 1;
      continue;
    }
    bool last_spatial = t + 1 == factors.size() || factors[t + 1] == 2;
    if (!last_spatial) continue;
    bool channel_lanes = false;
    for (size_t r = group_start; r <= t; ++r) channel_lanes |= vars[r].outer_of_lanes;
    if (channel_lanes) {
      roles[t] = TileRole::kColumns;
      if (t > group_start && !vars[t - 1].outer_of_lanes) roles[t - 1] = TileRole::kPair;
      for (size_t r = group_start; r < t; ++r) {
        if (vars[r].outer_of_lanes) roles[r] = TileRole::kPair;
      }
      continue;
    }
    roles[t] = TileRole::kLanes;
    if (t == group_start) continue;
    size_t rows = t - 1;
    if (vars[t].block && vars[t].var) {
      for (size_t r = t; r-- > group_start;) {
        if (vars[r].block == vars[t].block && vars[r].var &&
            !IndexesAVectorOperand(*vars[t].block, vars[r].var, vars[t].var)) {
          rows = r;
          break;
        }
      }
    }
    roles[rows] = TileRole::kRows;
  }
  return roles;
}

// The sketch's trace with the default's decisions: each tile's inner factor by its role (the
// rest outermost, or for the rows at the second level), the unroll step closest to
// `unroll_step`.
Trace WithDefaultDecisions(const Trace& sketch, const ir::PrimFunc& workload, int64_t lanes,
                           int64_t unroll_step) {
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
  std::vector<TileRole> roles = TileRoles(factors, TiledVars(sketch, workload));
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
        inner = DivisorAtMost(extent, lanes * kLaneRegisters);
        break;
      case TileRole::kReduction:
        inner = DivisorAtMost(extent, kReductionStep);
        break;
      case TileRole::kColumns:
        inner = DivisorAtMost(extent, kChannelTileColumns);
        break;
      case TileRole::kPair:
        inner = DivisorAtMost(extent, kChannelTilePairs);
        break;
    }
    std::vector<int64_t> split = OuterAndInner(extent, static_cast<size_t>(factors[t]), inner);
    // The rows' outer part goes to the second level, inside the lanes' outer loop: one panel
    // of the vector operand (a K x 32 strip of a matmul's B) stays in cache while every row
    // block passes over it, instead of the whole operand streaming from memory per row block.
    if (roles[t] == TileRole::kRows && split.size() > 2) std::swap(split[0], split[1]);
    trace = trace.WithDecision(tiles[t], split);
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
  if (Has(trace, "CacheWrite") || Has(trace, "SetScope")) score += 2;
  if (Has(trace, "SampleComputeLocation") || Has(trace, "RFactor")) score -= 8;
  return score;
}

// Iterations of a block's body: the product of the extents of the loops above it (nullopt
// where one is symbolic).
std::optional<int64_t> Iterations(const ScheduleState& state, const std::string& block) {
  int index = state.FindBlock(block);
  if (index < 0) return std::nullopt;
  int64_t product = 1;
  for (int loop : state.LoopsAbove(index)) {
    std::optional<int64_t> extent = ir::AsConstInt(state.entry(loop).loop()->extent);
    if (!extent) return std::nullopt;
    product *= *extent;
  }
  return product;
}

// The blocks of the function below the root, last first.
std::vector<std::string> BlocksLastFirst(const ScheduleState& state) {
  std::vector<std::string> out;
  for (size_t i = state.size(); i-- > 0;) {
    const ir::BlockNode* block = state.entry(static_cast<int>(i)).block();
    if (block && state.ScopeOf(static_cast<int>(i)) >= 0) out.push_back(block->name);
  }
  return out;
}

// Row fusion (softmax, layer norm): each block that has consumers, last first, computed at
// the deepest loop of its consumer where it is not computed again (its iterations stay as
// written): a row's maximum, exponentials and sum are made under the row loop of the output
// that reads them, so a row is read while it is in cache instead of in one pass over the
// tensor per stage. Nullopt when no block moves.
std::optional<Schedule> RowFused(const Schedule& untiled) {
  Schedule sch = untiled;
  bool moved = false;
  for (const std::string& name : BlocksLastFirst(sch.state())) {
    std::optional<int64_t> as_written = Iterations(sch.state(), name);
    if (!as_written) continue;
    BlockRV block = sch.GetBlock(name);
    for (int64_t d = sch.NumComputeLocations(block); d-- > 0;) {
      Schedule probe = sch;
      BlockRV b = probe.GetBlock(name);
      probe.ComputeAt(b, probe.SampleComputeLocation(b, d), true);
      if (Iterations(probe.state(), name) != as_written) continue;
      sch.ComputeAt(block, sch.SampleComputeLocation(block, d), true);
      moved = true;
      break;
    }
  }
  if (!moved) return std::nullopt;
  return sch;
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

  // The tiled sketches, by preference: the first that applies of the layout sketches (a
  // convolution's output channel-last with packed weights), of those reading their operands
  // in place, and of those reading an operand through a cache (packed, for a transposed one).
  DesignSpace space = MakeDesignSpace("cpu");
  space.mutators.clear();
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  std::stable_sort(sketches.begin(), sketches.end(), [](const Schedule& a, const Schedule& b) {
    return Preference(a.trace()) > Preference(b.trace());
  });
  // A mobile network's NCHW convolutions first: a pointwise one as the matmul it is, a
  // depthwise one per channel plane (search/space/conv_schedules.h).
  for (std::optional<Trace> trace :
       {PointwiseConvTrace(workload, lanes, PointwiseTile::kWholeRows),
        PointwiseConvTrace(workload, lanes), DepthwiseConvTrace(workload)}) {
    if (trace) add(*trace, space);
  }
  enum class Kind { kLayout, kInPlace, kPacked };
  auto kind_of = [](const Trace& t) {
    if (Has(t, "TransformLayout")) return Kind::kLayout;
    return Has(t, "CacheRead") ? Kind::kPacked : Kind::kInPlace;
  };
  for (Kind kind : {Kind::kLayout, Kind::kInPlace, Kind::kPacked}) {
    for (const Schedule& sketch : sketches) {
      const Trace& t = sketch.trace();
      if (!Has(t, "SamplePerfectTile") || kind_of(t) != kind) continue;
      size_t before = out.size();
      int64_t unroll = kind == Kind::kLayout ? options.unroll_max_step : kRegisterTileUnroll;
      add(WithDefaultDecisions(t, workload, lanes, unroll), space);
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
  for (const Schedule& sketch : plain.Sketches(context)) {
    add(sketch.trace(), plain);
    if (std::optional<Schedule> fused = RowFused(sketch)) add(fused->trace(), plain);
  }
  return out;
}

std::optional<Candidate> DefaultCpuSchedule(const ir::PrimFunc& workload,
                                            const DefaultScheduleOptions& options) {
  std::vector<Candidate> all = DefaultCpuSchedules(workload, options);
  if (all.empty()) return std::nullopt;
  return std::move(all.front());
}

}  // namespace kiln::search
