// Sampled candidates of the cpu space through the whole C path: every candidate this test
// draws is lowered, emitted, compiled and run on random inputs, and compared with the
// reference interpreter on the unscheduled workload. Also: the cpu sketch of a GEMM with
// chosen decisions is the hand-written schedule of bench/traces/matmul_1024.json (packed B
// panel, register tile in a local cache, parallel column panels), checked structurally
// and numerically here; bench/bench_space_matmul times the two against each other. Likewise the
// conv2d sketch with the hand-written conv schedule's decisions (bench_conv_manual times it).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "bench/matmul_manual.h"
#include "bench/space_conv.h"
#include "bench/space_matmul.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/frontend/onnx/import.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "runtime/measure_result.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"
#include "tests/testing/golden.h"
#include "tests/testing/kernel_check.h"

namespace kiln::search {
namespace {

namespace fs = std::filesystem;
using namespace ir;

class SpaceBuildTest : public ::testing::Test {
 protected:
  // Builds `scheduled`, runs it and the interpreter on `workload` with the same random
  // inputs; "" when every parameter agrees.
  std::string BuildAndCompare(const PrimFunc& workload, const PrimFunc& scheduled) {
    std::string symbol = "kiln_space_" + std::to_string(count_++);
    codegen::EmittedSource source =
        codegen::EmitC(codegen::Lower(scheduled, codegen::CTarget().DefaultLowerOptions()), symbol);
    return kiln::testing::BuildRunAndCompare(workload, source, scratch_.options(), {.seed = 100});
  }

  kiln::testing::ScratchBuild scratch_{"kiln_space_build"};
  int count_ = 0;
};

TEST_F(SpaceBuildTest, EverySampledCandidateAgreesWithTheInterpreter) {
  DesignSpace space = MakeDesignSpace("cpu");
  RandomEngine rng(20261125);
  int built = 0;
  for (const char* name : {"matmul", "conv2d_stride2_pad1", "dense_bias_relu", "softmax",
                           "layer_norm", "sum_keepdims", "add_broadcast"}) {
    PrimFunc f = zoo::ZooLookup(name).build();
    TuneContext context = testing::CpuContext(f);
    space.Initialize(context);
    std::vector<Schedule> sketches = space.Sketches(context);
    ASSERT_FALSE(sketches.empty()) << name;
    SampleStats stats;
    // The first and the last sketch (the plainest and the one with every cache), one
    // candidate each: the compiler is the cost.
    for (size_t s : std::set<size_t>{0, sketches.size() - 1}) {
      std::optional<Candidate> c;
      for (int attempt = 0; attempt < 20 && !c; ++attempt) {
        c = SampleCandidate(f, sketches[s].trace(), space.postprocs, rng, &stats);
      }
      ASSERT_TRUE(c.has_value()) << name << " sketch " << s << ":\n"
                                 << sketches[s].trace().AsPython();
      SCOPED_TRACE(std::string(name) + " sketch " + std::to_string(s) + ":\n" +
                   c->postprocessed.AsPython());
      EXPECT_EQ(BuildAndCompare(f, c->scheduled), "") << PrintPrimFunc(c->scheduled);
      ++built;
    }
  }
  EXPECT_GE(built, 9);
}

TEST_F(SpaceBuildTest, TheGemmSketchWithChosenDecisionsIsTheHandWrittenSchedule) {
  // The same structure at a size the interpreter checks quickly: 8 x 32 register tiles,
  // 32-wide packed panels of B.
  PrimFunc f = bench::MatmulWorkload(64, 96, 48);
  std::optional<Candidate> c = bench::HandLikeGemmCandidate(f, {8, 32, 16}, 2);
  ASSERT_TRUE(c.has_value());
  std::string skeleton = testing::Skeleton(c->scheduled);
  // One parallel loop over the column panels, B packed inside it, C accumulated in a local
  // register tile written back per tile; the reduction decomposed.
  EXPECT_NE(skeleton.find("parallel"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("block B_global"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("block C_local"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("block C_init"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("vectorized"), std::string::npos) << skeleton;
  EXPECT_EQ(BuildAndCompare(f, c->scheduled), "") << PrintPrimFunc(c->scheduled);
}

TEST_F(SpaceBuildTest, TheConvSketchWithChosenDecisionsIsTheHandWrittenSchedule) {
  // bench/traces/conv2d_56.json's structure at a size the interpreter checks quickly: 7 output
  // columns x 32 output channels per register tile.
  bench::Conv2dShape shape;
  shape.in_channels = 8;
  shape.height = 10;
  shape.width = 14;
  shape.out_channels = 32;
  PrimFunc f = bench::Conv2dWorkload(shape);
  std::optional<Candidate> c = bench::HandLikeConvCandidate(f, {7, 32, 16}, 2);
  ASSERT_TRUE(c.has_value());
  std::string skeleton = testing::Skeleton(c->scheduled);
  // The weights packed once at the root (channels innermost), the output accumulated in a
  // local register tile, vectors along the output channels, parallel over rows.
  EXPECT_NE(skeleton.find("parallel"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("block W_global"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("block Y_local"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("block conv_init"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("vectorized"), std::string::npos) << skeleton;
  EXPECT_NE(c->postprocessed.AsPython().find("lambda i0, i1, i2, i3: (i1, i2, i3, i0)"),
            std::string::npos);
  EXPECT_EQ(BuildAndCompare(f, c->scheduled), "") << PrintPrimFunc(c->scheduled);
  // The hand-written schedule itself, replayed from its committed trace at this size.
  fs::path committed = fs::path(KILN_SOURCE_DIR) / "bench" / "traces" / "conv2d_56.json";
  Trace trace = Trace::FromJSON(nlohmann::json::parse(kiln::testing::ReadTextFile(committed)));
  PrimFunc hand = ReplayTrace(f, trace);
  EXPECT_EQ(BuildAndCompare(f, hand), "") << PrintPrimFunc(hand);
}

TEST(SpaceConvTest, CommittedConvTraceIsWhatTheBenchScheduleRecords) {
  // The artifact and the code that wrote it must not drift apart.
  PrimFunc workload = bench::Conv2dWorkload({});
  fs::path committed = fs::path(KILN_SOURCE_DIR) / "bench" / "traces" / "conv2d_56.json";
  EXPECT_EQ(bench::FormatTraceJson(bench::ManualConvTrace(workload)),
            kiln::testing::ReadTextFile(committed));
}

// The bundled models' tasks (as `tune tasks` lists them, symbolic dims bound) all give
// sketches, and a sampled candidate of each computes what the task does.
TEST(SpaceModelsTest, EveryTaskOfTheBundledModelsYieldsValidCandidates) {
  DesignSpace space = MakeDesignSpace("cpu");
  RandomEngine rng(7);
  int tasks_seen = 0;
  for (const char* model : {"mlp", "cnn", "transformer_block"}) {
    frontend::onnx::ImportOptions options;
    options.dim_values = {{"batch", 2}, {"seq_len", 8}};
    relax::IRModule module = frontend::onnx::ImportOnnx(
        std::string(KILN_SOURCE_DIR) + "/examples/models/" + model + "/model.onnx", options);
    relax::IRModule prepared = relax::transform::PrepareModuleForTuning(module);
    for (const relax::transform::ExtractedTask& task : relax::transform::ExtractTasks(prepared)) {
      SCOPED_TRACE(std::string(model) + " task " + task.name);
      TuneContext context = testing::CpuContext(task.func);
      space.Initialize(context);
      std::vector<Schedule> sketches = space.Sketches(context);
      ASSERT_FALSE(sketches.empty());
      SampleStats stats;
      for (size_t s = 0; s < sketches.size(); ++s) {
        std::optional<Candidate> c;
        for (int attempt = 0; attempt < 20 && !c; ++attempt) {
          c = SampleCandidate(task.func, sketches[s].trace(), space.postprocs, rng, &stats);
        }
        ASSERT_TRUE(c.has_value()) << sketches[s].trace().AsPython();
        // The interpreter checks the last sketch (every cache the space adds) of each task.
        if (s + 1 == sketches.size()) {
          EXPECT_EQ(testing::CompareNumerics(task.func, c->scheduled), "")
              << c->postprocessed.AsPython();
        }
      }
      ++tasks_seen;
    }
  }
  EXPECT_GE(tasks_seen, 6);
}

}  // namespace
}  // namespace kiln::search
