// Sampling instructions: perfect tiles (every factorization reachable, uniformly), the
// categorical distribution, compute locations, and decisions that do not fit.
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "search/schedule/schedule.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::CheckGolden;
using testing::CompareNumerics;
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

TEST(Sampling, LargeExtentsAreSampledWithoutListingTilings) {
  // 720720 has 240 divisors and 3.4 million tilings into 6 factors: too many to list.
  ExpectError([] { PerfectTilings(720720, 6, 0); }, ErrorKind::kSchedule,
              "has more than 1000000 tilings");
  RandomEngine rng(5);
  for (int i = 0; i < 20; ++i) {
    std::vector<int64_t> t = SamplePerfectTiling(rng, 720720, 6, 64);
    ASSERT_EQ(t.size(), 6u);
    EXPECT_EQ(t[0] * t[1] * t[2] * t[3] * t[4] * t[5], 720720);
    EXPECT_LE(t[5], 64);
  }
  Schedule sch(MakeMatmul(16, 4, 4));
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError([&] { sch.SamplePerfectTile(loops[0], 17, 0); }, ErrorKind::kSchedule,
              "n = 17 for loop i is not in [1, 16]");
  ExpectError(
      [&] {
        sch.SamplePerfectTile(loops[0], 3, 0, std::vector<int64_t>{int64_t{1} << 40, 1 << 30, 4});
      },
      ErrorKind::kSchedule, "multiplies to more than 2^63, not the extent 16");
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
  ExpectError(
      [&] {
        sch.SampleCategorical({0, 16}, {1, std::nan("")});
      },
      ErrorKind::kSchedule, "is negative or not finite");
}

TEST(Sampling, SampledTilesAndCategoryDriveTheSchedule) {
  ir::PrimFunc f = MakeMatmul(32, 16, 8);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  auto tiles = sch.SamplePerfectTile(loops[0], 3, 4, std::vector<int64_t>{2, 4, 4});
  sch.Split(loops[0], {tiles[0], tiles[1], tiles[2]});
  ExprRV unroll = sch.SampleCategorical({0, 16, 64}, {0.2, 0.3, 0.5}, 2);
  sch.Annotate(c, "pragma_auto_unroll_max_step", unroll);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("sample_perfect_tile_categorical", f, sch.func()), "");
}

}  // namespace
}  // namespace kiln::search
