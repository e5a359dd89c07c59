// The GPU design space (presets "gpu" and "cuda"): golden sketches on matmul and conv2d, every
// sampled candidate of a few workloads lowering to kernels within the preset's limits and
// computing what the workload computes (interpreter), and the GPU rules, postprocessors,
// mutator and default schedule each on the behaviour that defines it.
#include <gtest/gtest.h>

#include <set>

#include "codegen/gpu/lower_gpu.h"
#include "codegen/lower.h"
#include "ir/expr.h"
#include "search/schedule/primitive/utils.h"
#include "search/space/block_info.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/mutators/mutators.h"
#include "search/space/postprocs/postprocs.h"
#include "search/space/rules/rules.h"
#include "search/space/space_generator.h"
#include "search/space/thread_binding.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

TuneContext GpuContext(const ir::PrimFunc& workload, const std::string& target) {
  TuneContext context;
  context.workload = workload;
  context.task_name = workload->name;
  context.target = target;
  return context;
}

// The kernels of `scheduled` as a GPU target of `preset` lowers them (throws when it cannot).
codegen::gpu::GpuProgram Kernels(const ir::PrimFunc& scheduled, const std::string& preset) {
  ir::PrimFunc lowered = codegen::Lower(scheduled, codegen::gpu::GpuLowerOptions());
  return codegen::gpu::LowerToKernels(lowered, "k", PresetGpuLimits(preset));
}

// Every block at the top of the root scope is under a loop bound to blockIdx.
std::string UnboundTopBlock(const ScheduleState& state) {
  std::vector<std::string> blocks = BlocksInPostOrder(state);
  for (int child : state.ChildBlocks(state.FindBlock(blocks.back()))) {
    if (!HasBoundLoopAbove(state, child, "blockIdx")) return state.entry(child).block()->name;
  }
  return "";
}

TEST(GpuSpaceTest, PresetsAreNamedByTargets) {
  EXPECT_EQ(MakeDesignSpace("cuda").preset, "cuda");
  for (const char* name : {"gpu", "vulkan", "opencl"})
    EXPECT_EQ(MakeDesignSpace(name).preset, "gpu");
  EXPECT_TRUE(IsGpuPreset("vulkan"));
  EXPECT_FALSE(IsGpuPreset("llvm"));
  EXPECT_EQ(PresetGpuLimits("cuda").max_threads_per_block, 1024);
  EXPECT_EQ(PresetGpuLimits("vulkan").max_shared_bytes, 32 * 1024);
  // MetaSchedule's cuda mutator probabilities.
  DesignSpace space = MakeDesignSpace("gpu");
  ASSERT_EQ(space.mutators.size(), 3u);
  EXPECT_EQ(space.mutators[0].mutator->Name(), "mutate_tile_size");
  EXPECT_DOUBLE_EQ(space.mutators[0].probability, 0.90);
  EXPECT_EQ(space.mutators[1].mutator->Name(), "mutate_unroll");
  EXPECT_DOUBLE_EQ(space.mutators[1].probability, 0.08);
  EXPECT_EQ(space.mutators[2].mutator->Name(), "mutate_thread_binding");
  EXPECT_DOUBLE_EQ(space.mutators[2].probability, 0.02);
}

TEST(GpuSpaceTest, GoldenSketchesOnMatmulAndConv2d) {
  for (const char* preset : {"gpu", "cuda"}) {
    for (const char* workload : {"matmul", "conv2d_stride2_pad1"}) {
      SCOPED_TRACE(std::string(preset) + " on " + workload);
      ir::PrimFunc f = ir::zoo::ZooLookup(workload).build();
      DesignSpace space = MakeDesignSpace(preset);
      TuneContext context = GpuContext(f, preset);
      space.Initialize(context);
      std::vector<Schedule> sketches = space.Sketches(context);
      ASSERT_FALSE(sketches.empty());
      testing::ExpectGoldenSketches(sketches, std::string(preset) + "__" + workload);
    }
  }
}

// Samples candidates of every sketch of `workload`; each kept one is bound everywhere, lowers
// to kernels within the preset's limits, and (the first per sketch: the interpreter is the
// slow part) computes what the workload computes.
void CheckSampledCandidates(const std::string& preset, const std::string& workload,
                            int draws_per_sketch) {
  SCOPED_TRACE(preset + " on " + workload);
  ir::PrimFunc f = ir::zoo::ZooLookup(workload).build();
  DesignSpace space = MakeDesignSpace(preset);
  TuneContext context = GpuContext(f, preset);
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  RandomEngine rng(11);
  SampleStats stats;
  int kept = 0;
  for (const Schedule& sketch : sketches) {
    bool compared = false;
    for (int i = 0; i < draws_per_sketch; ++i) {
      std::optional<Candidate> c = SampleCandidate(f, sketch.trace(), space.postprocs, rng, &stats);
      if (!c) continue;
      ++kept;
      Schedule replayed(c->scheduled);
      EXPECT_EQ(UnboundTopBlock(replayed.state()), "");
      codegen::gpu::GpuProgram program;
      ASSERT_NO_THROW(program = Kernels(c->scheduled, preset)) << c->postprocessed.AsPython();
      EXPECT_FALSE(program.kernels.empty());
      if (!compared) {
        EXPECT_EQ(testing::CompareNumerics(f, c->scheduled), "") << c->postprocessed.AsPython();
        compared = true;
      }
    }
  }
  std::string failures;
  for (const auto& [name, count] : stats.failures) {
    failures += name + ": " + std::to_string(count) + " ";
  }
  EXPECT_GT(kept, 0) << failures;
}

TEST(GpuSpaceTest, EverySampledCandidateLowersToKernelsAndComputesTheSame) {
  for (const char* workload :
       {"matmul", "conv2d_stride2_pad1", "dense_bias_relu", "softmax", "sum_keepdims"}) {
    CheckSampledCandidates("gpu", workload, 6);
  }
  CheckSampledCandidates("cuda", "matmul", 6);
}

TEST(GpuSpaceTest, MatmulTilesReadThroughSharedMemoryAndWriteThroughLocal) {
  ir::PrimFunc f = testing::MakeMatmul(64, 64, 64);
  DesignSpace space = MakeDesignSpace("gpu");
  TuneContext context = GpuContext(f, "gpu");
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  ASSERT_EQ(sketches.size(), 1u);
  std::string text = sketches[0].trace().AsPython();
  EXPECT_NE(text.find("\"blockIdx.x\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"threadIdx.x\""), std::string::npos) << text;
  EXPECT_NE(text.find("\"local\""), std::string::npos) << text;
  EXPECT_NE(text.find("meta_schedule.cooperative_fetch"), std::string::npos) << text;
  RandomEngine rng(3);
  int with_shared = 0;
  for (int i = 0; i < 12; ++i) {
    std::optional<Candidate> c =
        SampleCandidate(f, sketches[0].trace(), space.postprocs, rng, nullptr);
    if (!c) continue;
    // The fetch annotations became loops bound to the threads.
    Schedule scheduled(c->scheduled);
    for (size_t k = 0; k < scheduled.state().size(); ++k) {
      const ir::ForNode* loop = scheduled.state().entry(static_cast<int>(k)).loop();
      if (loop) {
        EXPECT_EQ(loop->annotations.count(kCooperativeFetchAnnotation), 0u);
      }
    }
    codegen::gpu::GpuProgram program = Kernels(c->scheduled, "gpu");
    ASSERT_EQ(program.kernels.size(), 1u);
    const codegen::gpu::GpuKernel& kernel = program.kernels[0];
    EXPECT_EQ(kernel.shared.size(), 2u);
    with_shared += kernel.launch.shared_bytes > 0;
    EXPECT_LE(ir::AsConstInt(kernel.launch.extents.block[0]).value_or(0), 256);
  }
  EXPECT_GT(with_shared, 0);
}

TEST(GpuSpaceTest, ComputeAtUnderThreadsRelaxesASharedBufferOverTheThreads) {
  // C = A x B, i split into blocks of 8 rows and 8 threads of one row each; A's shared copy
  // computed at k must hold the 8 rows of the block, not the one row of a thread.
  ir::PrimFunc f = testing::MakeMatmul(64, 16, 16);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, int64_t{8}});
  sch.Bind(i[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.x");
  BlockRV shared = sch.CacheRead(c, 0, "shared");
  sch.ComputeAt(shared, loops[2], true);
  std::vector<LoopRV> copy = sch.GetLoops(shared);
  ASSERT_GE(copy.size(), 2u);
  EXPECT_EQ(ir::AsConstInt(sch.Get(copy[copy.size() - 2])->extent), 8);
  // And a "local" copy stays one thread's: one row.
  Schedule local_sch(f);
  BlockRV c2 = local_sch.GetBlock("C");
  std::vector<LoopRV> loops2 = local_sch.GetLoops(c2);
  std::vector<LoopRV> i2 = local_sch.Split(loops2[0], {std::nullopt, int64_t{8}});
  local_sch.Bind(i2[0], "blockIdx.x");
  local_sch.Bind(i2[1], "threadIdx.x");
  BlockRV local = local_sch.CacheRead(c2, 0, "local");
  local_sch.ComputeAt(local, loops2[2], true);
  std::vector<LoopRV> copy2 = local_sch.GetLoops(local);
  EXPECT_EQ(ir::AsConstInt(local_sch.Get(copy2[copy2.size() - 2])->extent), 1);
  EXPECT_EQ(testing::CompareNumerics(f, sch.func()), "");
}

TEST(GpuSpaceTest, CrossThreadReductionFactorsALongReductionIntoSharedPartials) {
  ir::PrimFunc f = ir::zoo::ZooLookup("sum_keepdims").build();
  auto rule = MakeCrossThreadReduction();
  rule->Initialize(GpuContext(f, "gpu"));
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  rules.push_back(std::move(rule));
  std::vector<Schedule> sketches = GenerateSketches(f, rules);
  ASSERT_EQ(sketches.size(), 2u) << testing::SketchesText(sketches);
  const Schedule& ctr = sketches[1];
  bool shared_rf = false;
  for (size_t k = 0; k < ctr.state().size(); ++k) {
    const ir::BlockNode* block = ctr.state().entry(static_cast<int>(k)).block();
    if (block && block->name.ends_with("_rf")) {
      shared_rf = block->writes[0].buffer->scope == "shared";
      EXPECT_TRUE(HasBoundLoopAbove(ctr.state(), static_cast<int>(k), "threadIdx"));
    }
  }
  EXPECT_TRUE(shared_rf) << testing::SketchesText(sketches);
  // Candidates of the whole preset with it lower and compute the sum.
  DesignSpace space = MakeDesignSpace("gpu");
  TuneContext context = GpuContext(f, "gpu");
  space.Initialize(context);
  std::vector<Schedule> all = space.Sketches(context);
  RandomEngine rng(9);
  int factored = 0;
  for (const Schedule& sketch : all) {
    std::optional<Candidate> c;
    for (int attempt = 0; attempt < 8 && !c; ++attempt) {
      c = SampleCandidate(f, sketch.trace(), space.postprocs, rng, nullptr);
    }
    ASSERT_TRUE(c.has_value()) << sketch.trace().AsPython();
    factored += c->postprocessed.AsPython().find("rfactor") != std::string::npos;
    EXPECT_NO_THROW(Kernels(c->scheduled, "gpu"));
    EXPECT_EQ(testing::CompareNumerics(f, c->scheduled), "");
  }
  EXPECT_EQ(factored, 1);
}

TEST(GpuSpaceTest, VerifyGpuCodeRejectsTooManyThreadsAndReductionsAcrossThreads) {
  ir::PrimFunc f = testing::MakeMatmul(64, 64, 64);
  auto verify = MakeVerifyGpuCode(PresetGpuLimits("gpu"));
  verify->Initialize(GpuContext(f, "gpu"));
  auto bound = [&](int64_t threads) {
    Schedule sch(f);
    BlockRV c = sch.GetBlock("C");
    std::vector<LoopRV> loops = sch.GetLoops(c);
    LoopRV ij = sch.Fuse({loops[0], loops[1]});
    std::vector<LoopRV> parts = sch.Split(ij, {std::nullopt, threads});
    sch.Bind(parts[0], "blockIdx.x");
    sch.Bind(parts[1], "threadIdx.x");
    return sch;
  };
  Schedule fits = bound(256);
  EXPECT_TRUE(verify->Apply(fits));
  Schedule too_many = bound(512);  // the gpu preset's blocks hold 256 threads
  EXPECT_FALSE(verify->Apply(too_many));
  // The device's own limit overrides the preset's.
  TuneContext big = GpuContext(f, "gpu");
  big.max_threads_per_block = 1024;
  verify->Initialize(big);
  Schedule fits_device = bound(512);
  EXPECT_TRUE(verify->Apply(fits_device));
  // k bound to threads: every thread would add into one C[i, j] at once.
  Schedule racy(f);
  BlockRV c = racy.GetBlock("C");
  std::vector<LoopRV> loops = racy.GetLoops(c);
  racy.Bind(loops[0], "blockIdx.x");
  racy.Bind(loops[2], "threadIdx.x");
  EXPECT_FALSE(verify->Apply(racy));
}

TEST(GpuSpaceTest, MutateThreadBindingChangesAThreadCountOnly) {
  // An elementwise stage: auto-bind samples its thread count; the unroll step is another
  // categorical that this mutator must leave alone.
  ir::PrimFunc f = testing::MakeTwoStage(64, 64);
  DesignSpace space = MakeDesignSpace("gpu");
  TuneContext context = GpuContext(f, "gpu");
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  ASSERT_EQ(sketches.size(), 1u);
  RandomEngine rng(4);
  std::optional<Candidate> c =
      SampleCandidate(f, sketches[0].trace(), space.postprocs, rng, nullptr);
  ASSERT_TRUE(c.has_value());
  auto mutator = MakeMutateThreadBinding();
  mutator->Initialize(context);
  std::set<int64_t> seen;
  for (int i = 0; i < 20; ++i) {
    std::optional<Trace> m = mutator->Apply(c->trace, rng);
    ASSERT_TRUE(m.has_value());
    for (const auto& [index, decision] : c->trace.decisions()) {
      if (m->GetDecision(index) == decision) continue;
      // The changed site feeds a split.
      int64_t out = c->trace.instructions()[index].outputs[0].value;
      bool feeds_split = false;
      for (const Instruction& inst : m->instructions()) {
        if (inst.kind != "Split") continue;
        for (const InstArg& arg : inst.inputs) {
          feeds_split |= arg.kind == ArgKind::kExpr && arg.value == out;
        }
      }
      EXPECT_TRUE(feeds_split);
      seen.insert(m->GetDecision(index)->get<int64_t>());
    }
    std::optional<Candidate> replayed = ApplyTrace(f, *m, space.postprocs, 1, nullptr);
    ASSERT_TRUE(replayed.has_value());
  }
  EXPECT_GE(seen.size(), 2u);
}

TEST(GpuSpaceTest, DefaultGpuScheduleBindsEveryStageAndComputesTheSame) {
  for (const char* workload : {"softmax", "conv2d_stride2_pad1", "matmul", "sum_keepdims"}) {
    SCOPED_TRACE(workload);
    ir::PrimFunc f = ir::zoo::ZooLookup(workload).build();
    ir::PrimFunc scheduled = DefaultGpuSchedule(f);
    Schedule sch(scheduled);
    EXPECT_EQ(UnboundTopBlock(sch.state()), "");
    codegen::gpu::GpuProgram program = Kernels(scheduled, "gpu");
    EXPECT_GE(program.kernels.size(), 1u);
    EXPECT_EQ(testing::CompareNumerics(f, scheduled), "");
  }
}

}  // namespace
}  // namespace kiln::search
