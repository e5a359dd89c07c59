// Design spaces and their presets.
#include "search/space/design_space.h"

#include "search/space/mutators/mutators.h"
#include "search/space/postprocs/postprocs.h"
#include "search/space/rules/rules.h"
#include "search/space/space_generator.h"
#include "support/error.h"

namespace kiln::search {

void DesignSpace::Initialize(const TuneContext& context) {
  for (auto& rule : rules) rule->Initialize(context);
  for (auto& postproc : postprocs) postproc->Initialize(context);
  for (auto& m : mutators) m.mutator->Initialize(context);
}

std::vector<Schedule> DesignSpace::Sketches(const TuneContext& context) const {
  return GenerateSketches(context.workload, rules, context.seed);
}

DesignSpace DesignSpace::Clone() const {
  DesignSpace copy;
  copy.preset = preset;
  for (const auto& rule : rules) copy.rules.push_back(rule->Clone());
  for (const auto& postproc : postprocs) copy.postprocs.push_back(postproc->Clone());
  for (const auto& m : mutators) copy.mutators.push_back({m.mutator->Clone(), m.probability});
  return copy;
}

namespace {

// MetaSchedule's llvm defaults. Two departures: the reduction blocks are decomposed before
// the parallel/vectorize rewrite, so that init blocks get their own vector loops; the write
// cache is "local" (a register tile the C emitter promotes) and the reused operand may be
// packed (the hand-written GEMM's panel of B).
DesignSpace CpuSpace() {
  DesignSpace space;
  space.preset = "cpu";
  space.rules.push_back(MakeAutoInline());
  space.rules.push_back(MakeAddRFactor());
  space.rules.push_back(MakeMultiLevelTiling());
  space.rules.push_back(MakeParallelVectorizeUnroll());
  space.rules.push_back(MakeRandomComputeLocation());
  space.postprocs.push_back(MakeDisallowDynamicLoop());
  space.postprocs.push_back(MakeRewriteReductionBlock());
  space.postprocs.push_back(MakeRewriteParallelVectorizeUnroll());
  space.postprocs.push_back(MakeVerify());
  space.mutators.push_back({MakeMutateTileSize(), 0.90});
  space.mutators.push_back({MakeMutateComputeLocation(), 0.05});
  space.mutators.push_back({MakeMutateUnroll(), 0.03});
  space.mutators.push_back({MakeMutateParallel(), 0.02});
  return space;
}

}  // namespace

DesignSpace MakeDesignSpace(std::string_view name) {
  if (name == "cpu" || name == "llvm" || name == "c") return CpuSpace();
  std::string known;
  for (const std::string& preset : DesignSpacePresets())
    known += (known.empty() ? "" : ", ") + preset;
  throw Error(ErrorKind::kUnsupported,
              "design space: no preset named \"" + std::string(name) + "\" (known: " + known + ")");
}

std::vector<std::string> DesignSpacePresets() { return {"cpu", "llvm", "c"}; }

}  // namespace kiln::search
