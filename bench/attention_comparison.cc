// Kiln's block-sparse attention and the dense baseline on the same operands.
#include "bench/attention_comparison.h"

#include "bench/attention_dense_baseline.h"
#include "ir/host_tensor.h"
#include "ir/sparse/sparse_reference.h"
#include "runtime/reference_store.h"
#include "search/space/design_space.h"
#include "support/error.h"

namespace kiln::bench {

namespace {

std::vector<float> Floats(const ir::HostTensor& t) {
  const auto* data = static_cast<const float*>(t.data());
  return std::vector<float>(data, data + t.numel());
}

}  // namespace

double AttentionComparison::VsDense() const {
  return dense_seconds > 0 && kiln.tuned.best_seconds > 0 ? dense_seconds / kiln.tuned.best_seconds
                                                          : 0;
}

AttentionComparison CompareAttention(const compiler::sparse::AttentionProblem& problem,
                                     const compiler::sparse::SparseTuneOptions& options,
                                     bool dense_baseline) {
  AttentionComparison result;
  result.kiln = compiler::sparse::TuneSparseAttention(problem, options);
  if (!dense_baseline || search::IsGpuPreset(options.target)) return result;
  if (!DenseAttentionAvailable()) {
    result.dense_error = "built without OpenBLAS (libopenblas-dev)";
    return result;
  }
  // The same Q, K, V as the kernels' references (AttentionKernelCases' seeds).
  const compiler::sparse::AttentionMask& m = problem.mask;
  const int64_t HL = problem.heads * m.SeqLen(), D = problem.head_dim;
  const uint64_t seed = options.seed;
  auto input = [&](uint64_t offset) {
    return Floats(ir::HostTensor::Random(ir::DataType::Float(32), {HL, D}, seed * 8 + offset));
  };
  const std::vector<float> q = input(1), k = input(2), v = input(3);
  try {
    DenseAttentionResult dense = DenseMaskedAttention(m, problem.heads, D, problem.Scale(), q, k, v,
                                                      options.threads, options.min_repeat_ms);
    result.dense_ran = true;
    result.dense_seconds = dense.median_seconds;
    // Against the naive attention's output, which the SpMM's reference holds (stored by the
    // tuning: loaded, not computed again).
    const std::vector<compiler::sparse::SparseKernel> kernels =
        compiler::sparse::AttentionKernels(problem, seed, options.cache_dir);
    const runtime::ReferenceParam& o = kernels.back().reference->params.back();
    result.dense_max_rel_error = ir::sparse::MaxRelativeError(dense.out, Floats(o.expected));
  } catch (const Error& e) {
    result.dense_error = e.what();
  }
  return result;
}

}  // namespace kiln::bench
