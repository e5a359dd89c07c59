// Choosing the hand-written GEMM's decisions in the cpu design space.
#include "bench/space_matmul.h"

#include "bench/sketch_decisions.h"
#include "search/space/design_space.h"

namespace kiln::bench {

using search::Instruction;
using search::Trace;

std::optional<search::Candidate> HandLikeGemmCandidate(const ir::PrimFunc& workload,
                                                       const MatmulTiles& tiles, int num_cores) {
  search::TuneContext context;
  context.workload = workload;
  context.task_name = "matmul";
  context.num_cores = num_cores;
  search::DesignSpace space = search::MakeDesignSpace("cpu");
  space.Initialize(context);
  const ir::BlockNode* block = nullptr;
  search::Schedule probe(workload);
  block = probe.Get(probe.GetBlock("C"));
  int64_t extents[3];
  for (int i = 0; i < 3; ++i) extents[i] = *ir::AsConstInt(block->iter_vars[i].dom.extent);
  if (extents[0] % tiles.rows != 0 || extents[1] % tiles.cols != 0) return std::nullopt;
  std::vector<std::vector<int64_t>> decisions = {{1, extents[0] / tiles.rows, 1, tiles.rows},
                                                 {extents[1] / tiles.cols, 1, 1, tiles.cols},
                                                 {extents[2], 1}};
  for (const search::Schedule& sketch : space.Sketches(context)) {
    const Trace& trace = sketch.trace();
    const auto& insts = trace.instructions();
    bool read_cache = false;
    int64_t write_at = -1;
    std::vector<std::vector<int64_t>> splits;  // outputs of each Split, by id
    for (const Instruction& inst : insts) {
      if (inst.kind == "CacheRead") read_cache = true;
      if (inst.kind == "ReverseComputeAt") write_at = inst.inputs[1].value;
      if (inst.kind == "Split") {
        splits.emplace_back();
        for (const auto& out : inst.outputs) splits.back().push_back(out.value);
      }
    }
    // The register tile is written back at the end of the second spatial level: j's second
    // tile loop.
    if (!read_cache || splits.size() < 2 || write_at != splits[1][1]) continue;
    std::optional<Trace> chosen = WithDecisions(trace, {decisions, 512, std::nullopt});
    if (!chosen) return std::nullopt;
    return search::ApplyTrace(workload, *chosen, space.postprocs, 1, nullptr);
  }
  return std::nullopt;
}

}  // namespace kiln::bench
