// The dataset tools: ranking measures on known orders, a committed dataset read back and
// replayed, a file that is not a dataset rejected, and random tilings that replay.
#include "cost_model/tools/dataset.h"

#include <gtest/gtest.h>

#include "cost_model/tools/random_tiling.h"
#include "cost_model/tools/workloads.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "support/error.h"
#include "tests/testing/golden.h"

namespace kiln::cost_model::tools {
namespace {

TEST(RankingTest, KendallTauOfKnownOrders) {
  std::vector<double> seconds = {1, 2, 3, 4};  // throughput falls
  EXPECT_DOUBLE_EQ(KendallTau({4, 3, 2, 1}, seconds), 1);
  EXPECT_DOUBLE_EQ(KendallTau({1, 2, 3, 4}, seconds), -1);
  // One swapped neighbouring pair out of six: (5 - 1) / 6.
  EXPECT_NEAR(KendallTau({4, 3, 1, 2}, seconds), 4.0 / 6, 1e-12);
  // A failed candidate (0 s) has throughput 0: the slowest.
  EXPECT_DOUBLE_EQ(KendallTau({3, 2, 1}, {1, 2, 0}), 1);
}

TEST(RankingTest, TopKRecall) {
  std::vector<double> seconds = {1, 2, 3, 4, 5};
  EXPECT_DOUBLE_EQ(TopKRecall({5, 4, 3, 2, 1}, seconds, 2), 1);
  EXPECT_DOUBLE_EQ(TopKRecall({5, 1, 4, 2, 3}, seconds, 2), 0.5);
  EXPECT_DOUBLE_EQ(TopKRecall({1, 2, 3, 4, 5}, seconds, 2), 0);
  EXPECT_DOUBLE_EQ(TopKRecall({1, 2}, {1, 2}, 8), 1);  // k beyond the candidates
}

TEST(DatasetTest, CommittedDatasetReplays) {
  Dataset d = LoadDataset(kiln::testing::SourcePath("tests/data/cost_model/conv2d_28.json"));
  EXPECT_EQ(d.name, "conv2d_28");
  ASSERT_EQ(d.scheduled.size(), d.run_seconds.size());
  EXPECT_GE(d.scheduled.size(), 100u);
  size_t ok = 0;
  for (double s : d.run_seconds) ok += s > 0;
  EXPECT_GT(ok, d.scheduled.size() / 2);
}

TEST(DatasetTest, RejectsWhatIsNotADataset) {
  try {
    LoadDataset(kiln::testing::SourcePath("tests/data/cost_model/features_golden.txt"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("not a cost-model dataset"), std::string::npos);
  }
  EXPECT_THROW(LoadDataset("/nonexistent/dataset.json"), Error);
}

TEST(RandomTilingTest, DrawsReplayToTheSameFunction) {
  ir::PrimFunc matmul = ir::ParsePrimFunc(MatmulScript(64));
  RandomTilingOptions options;
  options.block = "C";
  int kept = 0;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    std::optional<search::Trace> trace = SampleRandomTiling(matmul, options, seed);
    if (!trace) continue;
    ++kept;
    ir::PrimFunc a = search::ReplayTrace(matmul, *trace);
    ir::PrimFunc b = search::ReplayTrace(matmul, search::Trace::FromJSON(trace->ToJSON()));
    EXPECT_TRUE(ir::StructuralEqual(a, b)) << "seed " << seed;
  }
  EXPECT_GE(kept, 5);
}

}  // namespace
}  // namespace kiln::cost_model::tools
