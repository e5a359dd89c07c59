// Block-sparse attention's dense baseline (OpenBLAS sgemm, masked softmax) against the naive
// block-sparse attention on one and two threads, and CompareAttention: a short tuning of the
// three kernels with the dense baseline timed beside them on the same Q, K, V.
#include "bench/attention_comparison.h"

#include <gtest/gtest.h>

#include "bench/attention_dense_baseline.h"
#include "compiler/sparse/attention_reference.h"
#include "ir/host_tensor.h"
#include "ir/sparse/sparse_reference.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::bench {
namespace {

using compiler::sparse::AttentionMask;
using compiler::sparse::BigBirdMask;

std::vector<float> Seeded(int64_t n, uint64_t seed) {
  ir::HostTensor t = ir::HostTensor::Random(ir::DataType::Float(32), {n}, seed);
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + t.numel());
}

TEST(DenseAttention, MatchesTheNaiveBlockSparseAttention) {
  if (!DenseAttentionAvailable()) GTEST_SKIP() << "skipped: built without OpenBLAS";
  AttentionMask m = BigBirdMask(256, 32);
  const int64_t H = 2, D = 32, L = m.SeqLen();
  std::vector<float> q = Seeded(H * L * D, 4), k = Seeded(H * L * D, 5), v = Seeded(H * L * D, 6);
  compiler::sparse::NaiveAttention naive =
      compiler::sparse::NaiveBlockSparseAttention(m, H, D, 0.125f, q, k, v);
  for (int threads : {1, 2}) {
    DenseAttentionResult dense = DenseMaskedAttention(m, H, D, 0.125f, q, k, v, threads, 1);
    EXPECT_LT(ir::sparse::MaxRelativeError(dense.out, naive.out), 1e-4) << threads;
    EXPECT_GT(dense.median_seconds, 0);
  }
}

TEST(CompareAttention, TimesTheDenseBaselineBesideTheTunedKernels) {
  runtime::testing::ScratchDir dir;
  compiler::sparse::SparseTuneOptions options;
  options.trials = 6;
  options.threads = 1;
  options.min_repeat_ms = 2;
  options.cache_dir = dir.path().string();
  const compiler::sparse::AttentionProblem p{BigBirdMask(256, 32), 2, 32};
  AttentionComparison c = CompareAttention(p, options);
  EXPECT_TRUE(c.kiln.tuned.correct) << c.kiln.tuned.failure;
  ASSERT_EQ(c.kiln.kernels.size(), 3u);
  if (!DenseAttentionAvailable()) {
    EXPECT_FALSE(c.dense_ran);
    EXPECT_NE(c.dense_error.find("OpenBLAS"), std::string::npos) << c.dense_error;
    return;
  }
  EXPECT_TRUE(c.dense_ran) << c.dense_error;
  EXPECT_GT(c.dense_seconds, 0);
  EXPECT_LT(c.dense_max_rel_error, 1e-4);
  EXPECT_DOUBLE_EQ(c.VsDense(), c.dense_seconds / c.kiln.tuned.best_seconds);
  // Without the baseline: the tuning alone.
  AttentionComparison alone = CompareAttention(p, options, false);
  EXPECT_FALSE(alone.dense_ran);
  EXPECT_EQ(alone.VsDense(), 0);
}

}  // namespace
}  // namespace kiln::bench
