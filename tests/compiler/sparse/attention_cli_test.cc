// `tune sparse attention` run as a user runs it (the built binary): the --json line's keys
// (the spmm command's, the per-kernel latencies, the dense baseline and vs_dense) on a small
// BigBird mask and on a .mtx block pattern with a row of one block; exit status 2 with the
// message for a mask whose length is not a multiple of its block, and for missing options.
#include <gtest/gtest.h>

#include "tests/cli/tune_process_test.h"

namespace kiln::cli {
namespace {

class AttentionCli : public testing::TuneProcessTest {
 protected:
  runtime::ProcessResult Attention(std::vector<std::string> args) {
    args.insert(args.begin(), "attention");
    for (const char* a : {"--trials", "6", "--threads", "1", "--min-repeat-ms", "2", "--no-db"}) {
      args.push_back(a);
    }
    return RunTune("sparse", std::move(args), {"OMP_NUM_THREADS=1"}, 300);
  }
};

TEST_F(AttentionCli, JsonHasEveryKernelAndTheDenseBaseline) {
  runtime::ProcessResult run =
      Attention({"bigbird-128-32", "--heads", "2", "--head-dim", "16", "--json"});
  ASSERT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
  nlohmann::json j = LastJson(run);
  EXPECT_EQ(j["op"], "attention");
  EXPECT_EQ(j["correct"], true);
  EXPECT_EQ(j["rows"], 128);
  EXPECT_EQ(j["block"], 32);
  EXPECT_EQ(j["heads"], 2);
  EXPECT_EQ(j["head_dim"], 16);
  EXPECT_EQ(j["format"], "bsr:32:32");
  EXPECT_EQ(j["kernels"], 3);
  EXPECT_EQ(j["nnz"], j["blocks"].get<int64_t>() * 32 * 32);
  for (const char* key : {"untuned_latency_s", "best_latency_s", "max_rel_error", "gflops",
                          "trials", "structure_hash", "device_key", "trace", "tuning_s"}) {
    EXPECT_TRUE(j.contains(key)) << key << " in " << j.dump();
  }
  ASSERT_EQ(j["per_kernel"].size(), 3u) << j.dump();
  double sum = 0;
  const char* names[] = {"attention_sddmm", "attention_softmax", "attention_spmm"};
  for (size_t i = 0; i < 3; ++i) {
    const nlohmann::json& k = j["per_kernel"][i];
    EXPECT_EQ(k["name"], names[i]);
    ASSERT_TRUE(k["best_latency_s"].is_number()) << k.dump();
    EXPECT_GT(k["untuned_latency_s"].get<double>(), 0);
    sum += k["best_latency_s"].get<double>();
  }
  EXPECT_NEAR(j["best_latency_s"].get<double>(), sum, 1e-9);
  if (j.contains("dense_error")) {
    EXPECT_TRUE(j["vs_dense"].is_null()) << j.dump();
  } else {
    ASSERT_TRUE(j["dense_latency_s"].is_number()) << j.dump();
    EXPECT_NEAR(j["vs_dense"].get<double>(),
                j["dense_latency_s"].get<double>() / j["best_latency_s"].get<double>(), 1e-9);
    EXPECT_LT(j["dense_max_rel_error"].get<double>(), 1e-4);
  }
}

// A block pattern from a file, one of whose rows holds a single block.
TEST_F(AttentionCli, BlockPatternFromAFile) {
  std::string mtx = Write("pattern.mtx",
                          "%%MatrixMarket matrix coordinate pattern general\n"
                          "3 3 5\n1 1\n2 1\n2 2\n2 3\n3 3\n");
  runtime::ProcessResult run = Attention(
      {mtx, "--block", "16", "--heads", "1", "--head-dim", "8", "--json", "--no-baselines"});
  ASSERT_TRUE(run.ok()) << run.Describe() << "\n" << run.output;
  nlohmann::json j = LastJson(run);
  EXPECT_EQ(j["correct"], true);
  EXPECT_EQ(j["rows"], 48);
  EXPECT_EQ(j["blocks"], 5);
  EXPECT_TRUE(j["vs_dense"].is_null());

  runtime::ProcessResult no_block = Attention({mtx, "--heads", "1", "--head-dim", "8"});
  EXPECT_EQ(no_block.exit_code, 2) << no_block.output;
  EXPECT_NE(no_block.output.find("give the block size (--block)"), std::string::npos)
      << no_block.output;
}

TEST_F(AttentionCli, AMaskNotCutIntoWholeBlocksIsAnInputError) {
  runtime::ProcessResult run = Attention({"bigbird-100-32", "--heads", "2", "--head-dim", "16"});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_NE(run.output.find("100 tokens is not a multiple of the block size 32"), std::string::npos)
      << run.output;
  runtime::ProcessResult missing = Attention({"bigbird-128-32", "--head-dim", "16"});
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("--heads and --head-dim are required"), std::string::npos)
      << missing.output;
}

}  // namespace
}  // namespace kiln::cli
