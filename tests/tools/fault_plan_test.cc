// FaultPlan: the fault spec read and written back, its errors, and seeded draws that repeat
// with the seed and follow the probabilities.
#include "tools/chaos_proxy/fault_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>
#include <vector>

#include "support/error.h"

namespace kiln::tools {
namespace {

using ::testing::HasSubstr;

std::string ParseError(const std::string& spec) {
  FaultOptions options;
  try {
    ParseFaultSpec(spec, options);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    return e.what();
  }
  return "";
}

TEST(FaultPlanTest, ASpecIsReadAndWrittenBack) {
  FaultOptions options;
  ParseFaultSpec(
      "drop=0.01, delay=0.2,duplicate=0.05,reorder=0.01,truncate=0.002,corrupt=0.003,"
      "partition=0.0005",
      options);
  EXPECT_DOUBLE_EQ(options[FaultKind::kDrop], 0.01);
  EXPECT_DOUBLE_EQ(options[FaultKind::kDelay], 0.2);
  EXPECT_DOUBLE_EQ(options[FaultKind::kPartition], 0.0005);
  EXPECT_EQ(FaultSpecText(options),
            "drop=0.01,delay=0.2,duplicate=0.05,reorder=0.01,truncate=0.002,corrupt=0.003,"
            "partition=0.0005");
  ParseFaultSpec("none", options);
  EXPECT_EQ(FaultSpecText(options), "none");
  ParseFaultSpec("", options);
  EXPECT_EQ(FaultSpecText(options), "none");
}

TEST(FaultPlanTest, ABadSpecIsRefusedNamingTheEntry) {
  EXPECT_THAT(ParseError("dorp=0.1"), HasSubstr("unknown fault 'dorp'"));
  EXPECT_THAT(ParseError("drop"), HasSubstr("'drop' is not kind=probability"));
  EXPECT_THAT(ParseError("drop=x"),
              HasSubstr("drop=x: the probability must be a number in [0, 1]"));
  EXPECT_THAT(ParseError("drop=1.5"), HasSubstr("in [0, 1]"));
  EXPECT_THAT(ParseError("drop=-0.1"), HasSubstr("in [0, 1]"));
  EXPECT_THAT(ParseError("drop=0.6,delay=0.6"), HasSubstr("more than 1"));
  // A refused spec leaves the options as they were.
  FaultOptions options;
  ParseFaultSpec("drop=0.5", options);
  EXPECT_THROW(ParseFaultSpec("drop=0.1,bad=1", options), Error);
  EXPECT_DOUBLE_EQ(options[FaultKind::kDrop], 0.5);
}

std::vector<FaultKind> Draws(const FaultOptions& options, uint64_t seed, int n) {
  FaultPlan plan(options, seed);
  std::vector<FaultKind> out;
  for (int i = 0; i < n; ++i) out.push_back(plan.Next());
  return out;
}

TEST(FaultPlanTest, TheSameSeedGivesTheSameFaults) {
  FaultOptions options;
  ParseFaultSpec("drop=0.1,delay=0.1,duplicate=0.1,reorder=0.1,truncate=0.1,corrupt=0.1", options);
  EXPECT_EQ(Draws(options, 7, 1000), Draws(options, 7, 1000));
  EXPECT_NE(Draws(options, 7, 1000), Draws(options, 8, 1000));
  // Plans of different connections and directions differ; each is fixed by the seed.
  EXPECT_EQ(PlanSeed(7, 3, 1), PlanSeed(7, 3, 1));
  EXPECT_NE(PlanSeed(7, 3, 0), PlanSeed(7, 3, 1));
  EXPECT_NE(PlanSeed(7, 3, 0), PlanSeed(7, 4, 0));
  EXPECT_NE(PlanSeed(7, 3, 0), PlanSeed(8, 3, 0));
  // Pinned: the generator is the plan's own, the same on every platform and build.
  FaultPlan plan(options, 42);
  EXPECT_EQ(plan.Bits(), 0xbdd732262feb6e95ULL);
}

TEST(FaultPlanTest, DrawsFollowTheProbabilities) {
  FaultOptions options;
  ParseFaultSpec("drop=0.2,duplicate=0.05", options);
  std::map<FaultKind, int> counts;
  for (FaultKind kind : Draws(options, 1, 100000)) ++counts[kind];
  EXPECT_NEAR(counts[FaultKind::kDrop], 20000, 600);
  EXPECT_NEAR(counts[FaultKind::kDuplicate], 5000, 300);
  EXPECT_EQ(counts[FaultKind::kCorrupt], 0);
  EXPECT_NEAR(counts[FaultKind::kNone], 75000, 700);
  FaultOptions none;
  for (FaultKind kind : Draws(none, 1, 1000)) EXPECT_EQ(kind, FaultKind::kNone);
}

}  // namespace
}  // namespace kiln::tools
