// Block-sparse attention as three stage-III sparse kernels, as SparseTIR writes sparse
// transformers, built for one mask structure (attention_mask.h): for heads h in [0, H), Q, K,
// V float32[H, L, D] (passed as [H * L, D], the same memory), a BSR mask of b x b blocks
// shared by all heads,
//   attention_sddmm    S = (Q K^T) * scale at the mask's blocks, S float32[H, blocks, b, b]
//                      (the stored blocks' layout); a reduction block "attention_sddmm"
//                      (T.init) and a block "attention_scale";
//   attention_softmax  P = softmax of each token row's nonzeros of S: blocks "softmax_max"
//                      (row max), "softmax_sum" (sum of exp(s - max)) and
//                      "softmax_norm" (exp(s - max) / sum), each over the rows; row max and
//                      sum in buffers of its own ([H * L, 1]); P in S's layout. Its loops take
//                      the shape the target's space schedules best (`gpu` below): on the CPU
//                      (row, block, column of the block), the columns innermost (SIMD max and
//                      sum, vectorized exp), the reductions' inits blocks of their own
//                      ("softmax_max_init", "softmax_sum_init"); on a GPU (row, nonzero) with
//                      the reductions in SpMM's shape with one feature (a thread owns a row's
//                      max and sum, T.init);
//   attention_spmm     O = P V, O float32[H * L, D]; one reduction block (T.init zeroes O's
//                      row at its first block: every block row has one, attention_mask.h).
// The main blocks have the CSR kernels' shape (sparse_workloads.h): one constant loop over the
// H * L token rows (t = h * L + bi * b + r), then one data-dependent loop over the row's
// nonzeros (the block row's blocks times b: block indptr[bi] + j // b, column j % b), then the
// head dimension where there is one. So "sparse-cpu" runs the rows in parallel and tiles
// SpMM's head dimension with a register accumulator, and "sparse-gpu" binds them as CSR's
// (one thread per nonzero for the SDDMM). On the CPU the SDDMM and the softmax split the
// nonzero loop into (block of the row, column of the block): no division per nonzero, and the
// block's key index read once per block.
// The mask's indptr and indices are parameters (mask_indptr int32[L / b + 1], mask_indices
// int32[blocks]); the attributes carry the mask's structure hash, L, b, H and D (the record
// key is per structure): "kiln.sparse_op" ("attention_sddmm", ...), "kiln.sparse_format"
// ("bsr:b:b"), "kiln.sparse_structure", "kiln.sparse_rows" and "_cols" (L),
// "kiln.sparse_nnz" (the token mask's nonzeros, per head), "kiln.sparse_feat" (D),
// "kiln.attention_heads" (H), "kiln.attention_block" (b), "kiln.attention_scale" (the scale,
// a decimal string) and "kiln.sparse_flops". The text is ir/sparse/attention_kernel_text.h's,
// which the ONNX front end's masked-attention recogniser parses too.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/sparse/attention_mask.h"
#include "compiler/sparse/formats/format_kernels.h"
#include "ir/function.h"
#include "ir/host_tensor.h"
#include "ir/sparse/attention_kernel_text.h"

namespace kiln::compiler::sparse {

struct AttentionProblem {
  AttentionMask mask;
  int64_t heads = 1;
  int64_t head_dim = 64;
  float scale = 0;  // 0: 1 / sqrt(head_dim)
  float Scale() const;
};

// kiln::Error(kUnsupported) for heads or head_dim < 1, or tensors past 32-bit offsets.
void CheckAttentionProblem(const AttentionProblem& problem);

// The stages and their kernels' names ("attention_sddmm", ...): ir/sparse's, whose text
// (attention_kernel_text.h) these kernels are parsed from, as the ONNX front end's are.
using ir::sparse::AttentionKernelName;
using ir::sparse::AttentionStage;
using ir::sparse::kAttentionStages;

// The useful floating-point operations of one call of a stage's kernel: SDDMM 2D + 1 per
// nonzero of every head, softmax 7, SpMM 2D.
double AttentionFlops(const AttentionProblem& problem, AttentionStage stage);

// gpu: the SDDMM and the softmax in the shape for "sparse-gpu" (above); the SpMM is the same.
std::string AttentionKernelText(const AttentionProblem& problem, AttentionStage stage,
                                bool gpu = false);
ir::PrimFunc AttentionWorkload(const AttentionProblem& problem, AttentionStage stage,
                               bool gpu = false);

// One kernel with the arguments of one call and the output's expected value. Inputs are
// seeded: Q, K, V = HostTensor::Random({H * L, D}, seed * 8 + 1, + 2, + 3); the softmax's S
// and the SpMM's P are the naive reference's (attention_reference.h) results of the stage
// before, so the kernels, run in order, compute attention on Q, K, V. Each output's input is
// seeded garbage (seed * 8 + 5), so a kernel that does not write every element is caught.
struct AttentionKernelCase {
  AttentionStage stage = AttentionStage::kSddmm;
  ir::PrimFunc workload;
  std::vector<ir::HostTensor> args;  // in parameter order
  size_t output_param = 0;
  ir::HostTensor expected;
  double flops = 0;
};
std::vector<AttentionKernelCase> AttentionKernelCases(const AttentionProblem& problem,
                                                      uint64_t seed, bool gpu = false);

// The three kernels as tasks, in order, each with its reference stored under
// `cache_dir`/references/ (empty: runtime::DefaultCacheDir()) by the workload's hash and seed;
// the naive attention runs only when a reference is not stored yet.
std::vector<SparseKernel> AttentionKernels(const AttentionProblem& problem, uint64_t seed,
                                           const std::string& cache_dir = "", bool gpu = false);

}  // namespace kiln::compiler::sparse
