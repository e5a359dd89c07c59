// The default CPU schedule of a kernel no record covers: parallel outer loops, a vectorized
// innermost spatial loop, inlined elementwise stages, the same kernel every time, and the same
// numbers as the loops as written.
#include "search/space/default_schedule.h"

#include <gtest/gtest.h>

#include "ir/text/printer.h"
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
  // The register tile: 16 float32 lanes of j vectorized under 4 rows of i.
  EXPECT_NE(skeleton.find("in 16 vectorized"), std::string::npos) << skeleton;
  EXPECT_NE(skeleton.find("in 4"), std::string::npos) << skeleton;
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

}  // namespace
}  // namespace kiln::search
