// Block-sparse attention tuned by Kiln (compiler/sparse/attention_tuning.h) beside the same
// attention computed densely (attention_dense_baseline.h) on the same Q, K, V and thread count,
// after the tuning: what `tune sparse attention` prints. The dense output is checked against the
// naive block-sparse attention the kernels' references hold.
#pragma once

#include <string>

#include "compiler/sparse/attention_tuning.h"

namespace kiln::bench {

struct AttentionComparison {
  compiler::sparse::AttentionTuneResult kiln;
  bool dense_ran = false;
  double dense_seconds = 0;        // the dense baseline's median
  double dense_max_rel_error = 0;  // its output against the naive reference
  std::string dense_error;         // why it did not run
  // The dense baseline's time over Kiln's best total (above 1: Kiln is faster); 0 when either
  // is missing.
  double VsDense() const;
};

// dense_baseline: time the dense baseline too (on the CPU; never beside a GPU target's kernels).
AttentionComparison CompareAttention(const compiler::sparse::AttentionProblem& problem,
                                     const compiler::sparse::SparseTuneOptions& options,
                                     bool dense_baseline = true);

}  // namespace kiln::bench
