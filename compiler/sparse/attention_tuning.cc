// Block-sparse attention's three kernels tuned as tasks.
#include "compiler/sparse/attention_tuning.h"

#include "search/space/design_space.h"
#include "support/error.h"

namespace kiln::compiler::sparse {

AttentionTuneResult TuneSparseAttention(const AttentionProblem& problem,
                                        const SparseTuneOptions& options) {
  CheckAttentionProblem(problem);
  AttentionTuneResult result;
  result.problem = problem;
  const bool gpu = search::IsGpuPreset(options.target);
  std::vector<SparseKernel> kernels =
      AttentionKernels(problem, options.seed, options.cache_dir, gpu);
  result.tuned = TuneSparseKernels(kernels, options, options.trials);
  result.tuned.format = kernels.front().format;
  const AttentionMask& m = problem.mask;
  // The problem's shape as the sparse commands report it: L x L, every head's nonzeros, D.
  SparseProblem& shape = result.tuned.problem;
  shape.op = SparseOp::kSddmm;
  shape.rows = shape.cols = m.SeqLen();
  shape.nnz = problem.heads * m.TokenNnz();
  shape.feat = problem.head_dim;
  shape.structure_hash = m.StructureHash();
  for (size_t i = 0; i < kernels.size(); ++i) {
    AttentionKernelFigure f;
    f.name = kernels[i].name;
    f.flops = kernels[i].flops;
    if (i < result.tuned.untuned_each.size()) f.untuned_seconds = result.tuned.untuned_each[i];
    if (i < result.tuned.best_each.size()) f.best_seconds = result.tuned.best_each[i];
    result.kernels.push_back(std::move(f));
  }
  return result;
}

}  // namespace kiln::compiler::sparse
