// TuneSparseAttention: block-sparse attention (attention_workloads.h) tuned for one mask, end
// to end: its three kernels (SDDMM, softmax, SpMM), each a task with its own reference from the
// naive block-sparse attention, tuned together by TuneSparseKernels (sparse_tuning.h: the
// "sparse-cpu" space, or "sparse-gpu" on a GPU target, the XGBoost cost model, the database's
// records), each kernel's untuned and best latency, and their sums. `tune sparse attention`
// drives it through bench/attention_comparison.h, which times the dense baseline beside it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/sparse/attention_workloads.h"
#include "compiler/sparse/sparse_tuning.h"

namespace kiln::compiler::sparse {

struct AttentionKernelFigure {
  std::string name;            // "attention_sddmm", ...
  double untuned_seconds = 0;  // as written (GPU: the default schedule); 0: failed
  double best_seconds = 0;     // 0: no correct kernel
  double flops = 0;
};

struct AttentionTuneResult {
  AttentionProblem problem;
  SparseTuneResult tuned;  // summed over the kernels; best_trace holds one trace per kernel
  std::vector<AttentionKernelFigure> kernels;
};

// options.format is not used (the kernels are BSR over the mask's blocks).
AttentionTuneResult TuneSparseAttention(const AttentionProblem& problem,
                                        const SparseTuneOptions& options);

}  // namespace kiln::compiler::sparse
