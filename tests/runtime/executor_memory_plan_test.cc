// Memory planning: reuse by lifetime, alignment, and the lower bound.
#include <gtest/gtest.h>

#include "runtime/model/memory_plan.h"
#include "support/error.h"

namespace kiln::runtime::model {
namespace {

TEST(MemoryPlanTest, AChainReusesEveryOtherBuffer) {
  // a -> b -> c -> d -> e, each read only by the next step.
  std::vector<BufferRequest> chain;
  for (int64_t s = 0; s < 5; ++s) chain.push_back({1000, s, s + 1});
  MemoryPlan plan = PlanMemory(chain);
  EXPECT_EQ(plan.arena_bytes, 2u * 1024);
  EXPECT_EQ(plan.lower_bound_bytes, 2u * 1024);
  EXPECT_EQ(plan.unshared_bytes, 5u * 1024);
  for (size_t i = 0; i + 1 < chain.size(); ++i) EXPECT_NE(plan.offsets[i], plan.offsets[i + 1]);
}

TEST(MemoryPlanTest, OverlappingLifetimesNeverShareBytes) {
  std::vector<BufferRequest> requests = {{4096, 0, 3}, {100, 1, 2},  {2000, 2, 5},
                                         {64, 0, 0},   {3000, 4, 6}, {10, 6, 6}};
  MemoryPlan plan = PlanMemory(requests);
  for (size_t i = 0; i < requests.size(); ++i) {
    EXPECT_EQ(plan.offsets[i] % 64, 0u);
    EXPECT_LE(plan.offsets[i] + requests[i].bytes, plan.arena_bytes);
    for (size_t j = i + 1; j < requests.size(); ++j) {
      bool live_together =
          requests[i].first <= requests[j].last && requests[j].first <= requests[i].last;
      bool bytes_meet = plan.offsets[i] < plan.offsets[j] + requests[j].bytes &&
                        plan.offsets[j] < plan.offsets[i] + requests[i].bytes;
      EXPECT_FALSE(live_together && bytes_meet) << i << " and " << j;
    }
  }
  EXPECT_GE(plan.arena_bytes, plan.lower_bound_bytes);
  EXPECT_LE(plan.arena_bytes, plan.unshared_bytes);
}

TEST(MemoryPlanTest, EmptyAndOverflowingRequests) {
  EXPECT_EQ(PlanMemory({}).arena_bytes, 0u);
  EXPECT_THROW(PlanMemory({{~uint64_t{0} - 3, 0, 0}}), Error);
}

}  // namespace
}  // namespace kiln::runtime::model
