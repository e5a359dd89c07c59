// Masked attention with a block-structured mask, as the three block-sparse attention kernels.
// Exporters write attention densely with a mask:
//   scores = MatMul(Q, K^T)                 (K^T a Transpose of K, or any [.., H, D, L] tensor)
//            times a scale (Mul or Div by a constant scalar: on the scores before or after the
//            mask, or on Q before the MatMul)
//   masked = Add(scores, M)                 M a constant [L, L] (or [1, L, L], [1, 1, L, L]):
//                                           0 where attended, a large negative elsewhere
//            or Where(C, scores, large negative)   C a constant bool mask of the same shapes
//   out    = MatMul(Softmax(masked, axis=-1), V)
// with Q, V float32 [H, L, D] or [1, H, L, D]. At the final MatMul, when the mask is exactly
// block-structured for a block size b in {64, 32, 16, 8} (the largest that fits: every b x b
// block all attended or all masked, every block row holding a block), the MatMul becomes
// three call_tir of the kernels of ir/sparse/attention_kernel_text.h (the mask's indptr and
// indices as Relax constants, the scale in the SDDMM); the dense ops before it are left dead
// for DeadCodeElimination. Any other case stays dense, and when a masked softmax was found the
// importer logs why at info level. Whether a block-structured mask converts is the thread's
// SparseAttentionMode (sparse_attention_mode.h; --sparse-attention): auto converts only masks
// at most kSparseAttentionMaxDensity dense (a denser one stays dense, logged at info level),
// always every one, never none. Internal to ir/frontend/onnx.
#pragma once

#include <optional>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

// The MatMul node at `ctx` as block-sparse attention, or nullopt (nothing emitted) when it is
// not the end of a block-structured masked attention.
std::optional<Outputs> MatMulAsBlockAttention(NodeContext& ctx);

}  // namespace kiln::ir::frontend::onnx
