// Carrying a trace from one shape to another (search/schedule/trace_transfer.h): tile
// decisions refitted to the new extents, the other decisions kept, the result a correct
// schedule of the new shape; a trace of another operator does not carry over.
#include "search/schedule/trace_transfer.h"

#include <gtest/gtest.h>

#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

TEST(TraceTransferTest, RefitTileKeepsInnerFactorsThatDivide) {
  EXPECT_EQ(RefitTile({2, 4, 8}, 64, 0), (std::vector<int64_t>{2, 4, 8}));
  // 96 = 3 x 4 x 8: the inner factors still divide, the outermost takes the rest.
  EXPECT_EQ(RefitTile({2, 4, 8}, 96, 0), (std::vector<int64_t>{3, 4, 8}));
  // 40 = 4 x 10: an inner factor of 16 becomes 10, the largest divisor of 40 below it.
  EXPECT_EQ(RefitTile({1, 16}, 40, 0), (std::vector<int64_t>{4, 10}));
  // A prime extent: every inner factor 1.
  EXPECT_EQ(RefitTile({1, 4, 4}, 17, 0), (std::vector<int64_t>{17, 1, 1}));
  // The innermost factor keeps its limit.
  EXPECT_EQ(RefitTile({1, 64}, 128, 16), (std::vector<int64_t>{8, 16}));
}

TEST(TraceTransferTest, ASampledMatmulScheduleCarriesToAnotherShape) {
  ir::PrimFunc from = testing::MakeMatmul(32, 64, 16);
  ir::PrimFunc to = testing::MakeMatmul(48, 40, 16);
  DesignSpace space = MakeDesignSpace("cpu");
  TuneContext context = testing::CpuContext(from);
  space.Initialize(context);
  RandomEngine rng(7);
  int carried = 0;
  for (const Schedule& sketch : space.Sketches(context)) {
    std::optional<Candidate> c =
        SampleCandidate(from, sketch.trace(), space.postprocs, rng, nullptr);
    ASSERT_TRUE(c.has_value());
    // The recorded trace does not replay on the new shape as it is...
    EXPECT_THROW(ReplayTrace(to, c->trace), Error);
    // ...but carried over it does, and gives a correct schedule of the new shape.
    std::optional<Trace> moved = TransferTrace(c->trace, to);
    ASSERT_TRUE(moved.has_value());
    EXPECT_EQ(moved->size(), c->trace.size());
    ir::PrimFunc scheduled = ReplayTrace(to, *moved);
    EXPECT_EQ(testing::CompareNumerics(to, scheduled), "");
    ++carried;
  }
  EXPECT_GT(carried, 0);
}

TEST(TraceTransferTest, ATraceOfAnotherOperatorDoesNotCarryOver) {
  ir::PrimFunc matmul = testing::MakeMatmul(32, 64, 16);
  DesignSpace space = MakeDesignSpace("cpu");
  TuneContext context = testing::CpuContext(matmul);
  space.Initialize(context);
  RandomEngine rng(3);
  std::optional<Candidate> c =
      SampleCandidate(matmul, space.Sketches(context).at(0).trace(), space.postprocs, rng, nullptr);
  ASSERT_TRUE(c.has_value());
  EXPECT_FALSE(TransferTrace(c->trace, testing::MakeTwoStage(32, 64)).has_value());
}

}  // namespace
}  // namespace kiln::search
