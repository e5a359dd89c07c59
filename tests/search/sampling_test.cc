// Sampling instructions: perfect tiles (every factorization reachable, uniformly), the
// categorical distribution, compute locations, and decisions that do not fit.
#include <gtest/gtest.h>

#include <map>

#include "search/schedule/schedule.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::ExpectError;
using testing::MakeMatmul;

TEST(Sampling, PerfectTilingsEnumeration) {
  auto all = PerfectTilings(8, 2, 0);
  ASSERT_EQ(all.size(), 4u);  // 1x8 2x4 4x2 8x1
  EXPECT_EQ(all[0], (std::vector<int64_t>{1, 8}));
  EXPECT_EQ(PerfectTilings(8, 2, 4).size(), 3u);  // innermost <= 4
  EXPECT_EQ(PerfectTilings(12, 3, 0).size(), 18u);
  EXPECT_TRUE(PerfectTilings(7, 2, 1).size() == 1u);  // only 7x1
}

TEST(Sampling, PerfectTileIsUniformAndValid) {
  Schedule sch(MakeMatmul(16, 4, 4), 3);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  std::map<std::vector<int64_t>, int> counts;
  const int kDraws = 2000;
  for (int i = 0; i < kDraws; ++i) {
    auto rvs = sch.SamplePerfectTile(loops[0], 2, 8);
    std::vector<int64_t> f{sch.Get(rvs[0]), sch.Get(rvs[1])};
    EXPECT_EQ(f[0] * f[1], 16);
    EXPECT_LE(f[1], 8);
    counts[f]++;
  }
  ASSERT_EQ(counts.size(), 4u);  // 16x1 8x2 4x4 2x8
  for (const auto& [f, n] : counts) {
    EXPECT_GT(n, kDraws / 4 - 150);
    EXPECT_LT(n, kDraws / 4 + 150);
  }
}

TEST(Sampling, PerfectTileDecisionChecked) {
  Schedule sch(MakeMatmul(16, 4, 4));
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto rvs = sch.SamplePerfectTile(loops[0], 2, 8, std::vector<int64_t>{2, 8});
  EXPECT_EQ(sch.Get(rvs[1]), 8);
  ExpectError(
      [&] {
        sch.SamplePerfectTile(loops[0], 2, 8, std::vector<int64_t>{3, 8});
      },
      ErrorKind::kSchedule, "multiplies to 24, not the extent 16");
  ExpectError(
      [&] {
        sch.SamplePerfectTile(loops[0], 2, 4, std::vector<int64_t>{2, 8});
      },
      ErrorKind::kSchedule, "innermost factor above 4");
  ExpectError(
      [&] {
        sch.SamplePerfectTile(loops[0], 3, 4, std::vector<int64_t>{2, 8});
      },
      ErrorKind::kSchedule, "has 2 factors, expected 3");
}

TEST(Sampling, Categorical) {
  Schedule sch(MakeMatmul(4, 4, 4), 11);
  std::map<int64_t, int> counts;
  for (int i = 0; i < 1000; ++i)
    counts[sch.Get(sch.SampleCategorical({0, 16, 64}, {0.5, 0.5, 0}))]++;
  EXPECT_EQ(counts.count(64), 0u);
  EXPECT_GT(counts[0], 400);
  EXPECT_GT(counts[16], 400);
  EXPECT_EQ(sch.Get(sch.SampleCategorical({0, 16, 64}, {1, 1, 1}, 2)), 64);
  ExpectError(
      [&] {
        sch.SampleCategorical({0, 16}, {1, 1}, 2);
      },
      ErrorKind::kSchedule, "decision 2 is not an index into 2 candidates");
  ExpectError(
      [&] {
        sch.SampleCategorical({0, 16}, {1});
      },
      ErrorKind::kSchedule, "2 candidates but 1 probabilities");
}

}  // namespace
}  // namespace kiln::search
