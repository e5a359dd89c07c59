// Block-sparse attention's three stage-III kernels as TVMScript text, built for one block mask:
// the one spelling that compiler/sparse's AttentionWorkload (the `tune sparse attention`
// tasks) and the ONNX front end's masked-attention recogniser
// (ir/frontend/onnx/convert_block_attention.h) both parse, so that a record stored by one
// serves the other (docs/sparse.md). compiler/sparse/attention_workloads.h describes the
// kernels: for H heads, Q, K, V float32[H * L, D], a BSR mask of b x b blocks shared by every
// head (mask_indptr int32[L / b + 1], mask_indices int32[blocks]),
//   attention_sddmm    S = (Q K^T) * scale at the mask's blocks, S float32[H, blocks, b, b];
//   attention_softmax  P = softmax of each token row's nonzeros of S (same layout);
//   attention_spmm     O = P V, O float32[H * L, D].
// Attributes: kiln.sparse_op (the kernel's name), kiln.sparse_format ("bsr:b:b"),
// kiln.sparse_structure (AttentionStructureHash, hex), kiln.sparse_rows and _cols (L),
// kiln.sparse_nnz (the token mask's nonzeros per head), kiln.sparse_feat (D),
// kiln.attention_heads (H), kiln.attention_block (b), kiln.attention_scale (the SDDMM's scale
// as a decimal string, which a model's task reference reads back) and kiln.sparse_flops (the
// count ir::EstimateFlops takes, as the loops' extents load from mask_indptr).
#pragma once

#include <cstdint>
#include <string>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

enum class AttentionStage { kSddmm, kSoftmax, kSpmm };
inline constexpr AttentionStage kAttentionStages[] = {
    AttentionStage::kSddmm, AttentionStage::kSoftmax, AttentionStage::kSpmm};
// "attention_sddmm", "attention_softmax", "attention_spmm": the kernel's name.
const char* AttentionKernelName(AttentionStage stage);

// The hash of a block mask: its block layout's structure hash mixed with the block size.
uint64_t AttentionStructureHash(const CsrMatrix& layout, int64_t block);

struct AttentionKernelShape {
  AttentionStage stage = AttentionStage::kSddmm;
  int64_t heads = 1;
  int64_t head_dim = 64;
  int64_t block = 64;           // b
  int64_t block_rows = 1;       // L / b
  int64_t blocks = 0;           // stored blocks (the layout's nonzeros)
  uint64_t structure_hash = 0;  // AttentionStructureHash of the layout
  float scale = 1;              // the SDDMM's factor (written into every kernel's attributes)
  // The SDDMM and the softmax in the shape for "sparse-gpu" (attention_workloads.h); the SpMM
  // is the same.
  bool gpu = false;
};

// The useful floating-point operations of one call: SDDMM 2D + 1 per nonzero of every head,
// softmax 7, SpMM 2D.
double AttentionKernelFlops(const AttentionKernelShape& shape);

// The float as the kernels write it ("%.9g": it reads back to the same float).
std::string AttentionScaleLiteral(float scale);

// kiln::Error(kUnsupported) for heads, head_dim, block or block_rows < 1.
std::string AttentionKernelText(const AttentionKernelShape& shape);

}  // namespace kiln::ir::sparse
