// The default CPU schedule of a kernel no record covers: parallel outer loops, a vectorized
// innermost spatial loop, inlined elementwise stages, the same kernel every time, and the same
// numbers as the loops as written.
#include "search/space/default_schedule.h"

#include <gtest/gtest.h>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/schedule/state.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

DefaultScheduleOptions TwoCores() { return {.num_cores = 2, .vector_bytes = 64}; }

TEST(DefaultScheduleTest, ElementwiseStagesAreInlinedParallelAndVectorized) {
  // Enough work to pay for a parallel region (rewrite_parallel_vectorize_unroll's floor).
  ir::PrimFunc f = testing::MakeTwoStage(256, 96);
  std::optional<Candidate> c = DefaultCpuSchedule(f, TwoCores());
  ASSERT_TRUE(c.has_value());
  std::string skeleton = testing::Skeleton(c->scheduled);
  EXPECT_NE(skeleton.find("parallel"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("vectorized"), std::string::npos) << skeleton;
  EXPECT_EQ(skeleton.find("block B"), std::string::npos) << "B was not inlined:\n" << skeleton;
  EXPECT_EQ(testing::CompareNumerics(f, c->scheduled), "");
}

TEST(DefaultScheduleTest, AContractionIsTiledForRegistersAndRunsInParallel) {
  ir::PrimFunc f = testing::MakeMatmulRelu(64, 64, 48);
  std::optional<Candidate> c = DefaultCpuSchedule(f, TwoCores());
  ASSERT_TRUE(c.has_value());
  std::string skeleton = testing::Skeleton(c->scheduled);
  EXPECT_NE(skeleton.find("parallel"), std::string::npos) << skeleton;
  // The register tile: 8 rows of i by two registers of 16 float32 lanes of j, accumulated
  // in a local tile.
  EXPECT_NE(skeleton.find("for i_3 in 8\n"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("for j_3_0 in 2 unroll\n"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("for j_3_1 in 16 vectorized\n"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find(":local"), std::string::npos) << skeleton;
  EXPECT_EQ(testing::CompareNumerics(f, c->scheduled), "");
  // The trace marks its postprocessing and replays alone to the same kernel.
  EXPECT_TRUE(c->postprocessed.PostprocStart().has_value());
  EXPECT_EQ(ir::PrintPrimFunc(ReplayTrace(f, c->postprocessed)), ir::PrintPrimFunc(c->scheduled));
}

TEST(DefaultScheduleTest, ASmallKernelStaysSerialButVectorized) {
  ir::PrimFunc f = testing::MakeTwoStage(16, 48);
  std::optional<Candidate> c = DefaultCpuSchedule(f, TwoCores());
  ASSERT_TRUE(c.has_value());
  std::string skeleton = testing::Skeleton(c->scheduled);
  EXPECT_EQ(skeleton.find("parallel"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("vectorized"), std::string::npos) << skeleton;
  EXPECT_EQ(testing::CompareNumerics(f, c->scheduled), "");
}

TEST(DefaultScheduleTest, AContractionHasTiledPackedAndUntiledVariants) {
  ir::PrimFunc f = testing::MakeMatmul(64, 48, 32);
  std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
  ASSERT_GE(all.size(), 2u);
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(testing::CompareNumerics(f, all[i].scheduled), "") << "variant " << i;
    for (size_t j = 0; j < i; ++j) {
      EXPECT_NE(ir::PrintPrimFunc(all[i].scheduled), ir::PrintPrimFunc(all[j].scheduled));
    }
  }
  // The first is the one DefaultCpuSchedule gives; the last is untiled.
  EXPECT_EQ(ir::PrintPrimFunc(DefaultCpuSchedule(f, TwoCores())->scheduled),
            ir::PrintPrimFunc(all.front().scheduled));
  EXPECT_EQ(testing::Skeleton(all.back().scheduled).find("k_1"), std::string::npos)
      << testing::Skeleton(all.back().scheduled);
}

TEST(DefaultScheduleTest, NothingIsSampledSoTheKernelIsAlwaysTheSame) {
  ir::PrimFunc f = testing::MakeMatmul(16, 32, 8);
  std::optional<Candidate> a = DefaultCpuSchedule(f, TwoCores());
  std::optional<Candidate> b = DefaultCpuSchedule(f, TwoCores());
  ASSERT_TRUE(a.has_value() && b.has_value());
  EXPECT_EQ(ir::PrintPrimFunc(a->scheduled), ir::PrintPrimFunc(b->scheduled));
  EXPECT_EQ(testing::CompareNumerics(f, a->scheduled), "");
}

// An NCHW convolution (a padded input stage, then the contraction over channels and the
// 3 x 3 window), as legalization writes it.
ir::PrimFunc Conv2dNchw() {
  return ir::ParsePrimFuncs(R"(
@T.prim_func
def conv(x: T.Buffer((1, 16, 14, 14), "float32"), w: T.Buffer((32, 16, 3, 3), "float32"),
         y: T.Buffer((1, 32, 14, 14), "float32")):
    pad = T.alloc_buffer((1, 16, 16, 16))
    for i0, i1, i2, i3 in T.grid(1, 16, 16, 16):
        with T.sblock("pad"):
            v0, v1, v2, v3 = T.axis.remap("SSSS", [i0, i1, i2, i3])
            pad[v0, v1, v2, v3] = T.if_then_else(1 <= v2 and v2 < 15 and 1 <= v3 and v3 < 15,
                                                 x[v0, v1, v2 - 1, v3 - 1], T.float32(0))
    for n, f, yy, xx, rc, ry, rx in T.grid(1, 32, 14, 14, 16, 3, 3):
        with T.sblock("conv"):
            vn, vf, vy, vx, vc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, yy, xx, rc, ry, rx])
            with T.init():
                y[vn, vf, vy, vx] = T.float32(0)
            y[vn, vf, vy, vx] = y[vn, vf, vy, vx] + pad[vn, vc, vy + vry, vx + vrx] * w[vf, vc, vry, vrx]
)",
                            "conv.tir")
      .front();
}

TEST(DefaultScheduleTest, AConvolutionIsTiledOverChannelVectorsFirst) {
  // The first variant writes the output channel-last in a local tile with the weights packed:
  // two 16-lane channel vectors by 2 output rows by 7 output columns of accumulators.
  ir::PrimFunc f = Conv2dNchw();
  std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
  ASSERT_GE(all.size(), 2u);
  std::string layout = testing::Skeleton(all.front().scheduled);
  EXPECT_NE(layout.find("alloc y_local:local"), std::string::npos) << layout;
  EXPECT_NE(layout.find("block w_global"), std::string::npos) << layout;
  EXPECT_NE(layout.find("yy_3 in 2"), std::string::npos) << layout;
  EXPECT_NE(layout.find("xx_3 in 7"), std::string::npos) << layout;
  EXPECT_NE(layout.find("f_0_3_f_1_fused_0 in 2 unroll"), std::string::npos) << layout;
  EXPECT_NE(layout.find("f_0_3_f_1_fused_1 in 16 vectorized"), std::string::npos) << layout;
  // The tile reading the input in place: the lanes run along the output row (xx), the input
  // window is loaded as a vector, so the rows are the output channels (f), which each reuse
  // that vector, not the output rows; 8 rows by 14 lanes is not whole registers, so the lanes
  // alone are vectorized.
  std::string in_place = testing::Skeleton(all[1].scheduled);
  EXPECT_NE(in_place.find("for f_3 in 8\n"), std::string::npos) << in_place;
  EXPECT_NE(in_place.find("for yy_3_xx_3_fused in 14 vectorized\n"), std::string::npos) << in_place;
  for (size_t i = 0; i < all.size(); ++i) {
    EXPECT_EQ(testing::CompareNumerics(f, all[i].scheduled), "") << "variant " << i;
  }
}

// Softmax and layer norm: one variant computes each row's reductions under the row loop of
// the output that reads them, each exactly as often as written (no recomputation per column).
TEST(DefaultScheduleTest, RowReductionsAreComputedUnderTheRowLoopThatReadsThem) {
  for (const char* name : {"softmax", "layer_norm"}) {
    ir::PrimFunc f = ir::zoo::ZooLookup(name).build();
    std::vector<Candidate> all = DefaultCpuSchedules(f, TwoCores());
    ASSERT_FALSE(all.empty()) << name;
    const Candidate& fused = all.back();
    // The last variant: the output's row loop holds every block (the reductions under it).
    ScheduleState state(fused.scheduled);
    int output = -1;
    for (size_t i = 0; i < state.size(); ++i) {
      const ir::BlockNode* b = state.entry(static_cast<int>(i)).block();
      if (b && (b->name == "T_softmax_norm" || b->name == "T_layer_norm")) {
        output = static_cast<int>(i);
      }
    }
    ASSERT_GE(output, 0) << testing::Skeleton(fused.scheduled);
    int row_loop = state.LoopsAbove(output).front();
    size_t reductions_under_row = 0;
    for (int b : state.BlocksUnder(row_loop)) {
      for (const ir::IterVar& iv : state.entry(b).block()->iter_vars) {
        if (iv.kind == ir::IterKind::kReduce) {
          ++reductions_under_row;
          break;
        }
      }
    }
    EXPECT_GE(reductions_under_row, 2u) << name << "\n" << testing::Skeleton(fused.scheduled);
    for (size_t i = 0; i < all.size(); ++i) {
      EXPECT_EQ(testing::CompareNumerics(f, all[i].scheduled), "") << name << " variant " << i;
    }
  }
}

}  // namespace
}  // namespace kiln::search
