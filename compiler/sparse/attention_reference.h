// Naive block-sparse attention: the reference the attention kernels (attention_workloads.h)
// are checked against. Plain loops over the mask's blocks, accumulated in double, one stage
// at a time, each from the float32 values the previous stage gave (what the next kernel reads):
//   scores  S[h, p, r, c] = scale * dot(Q[h, bi * b + r, :], K[h, indices[p] * b + c, :])
//           for block p of block row bi (the stored blocks' layout, float32[H, blocks, b, b]);
//   softmax P = exp(S - row max) / row sum, over each token row's nonzeros (same layout);
//   output  O[h, bi * b + r, :] = sum over the row's blocks p and columns c of
//           P[h, p, r, c] * V[h, indices[p] * b + c, :].
// Q, K, V and O are float32[H, L, D], row-major.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/sparse/attention_mask.h"

namespace kiln::compiler::sparse {

std::vector<float> NaiveAttentionScores(const AttentionMask& mask, int64_t heads, int64_t dim,
                                        float scale, const std::vector<float>& q,
                                        const std::vector<float>& k);
std::vector<float> NaiveAttentionSoftmax(const AttentionMask& mask, int64_t heads,
                                         const std::vector<float>& scores);
std::vector<float> NaiveAttentionOutput(const AttentionMask& mask, int64_t heads, int64_t dim,
                                        const std::vector<float>& probs,
                                        const std::vector<float>& v);

struct NaiveAttention {
  std::vector<float> scores, probs, out;
};
// The three stages in order.
NaiveAttention NaiveBlockSparseAttention(const AttentionMask& mask, int64_t heads, int64_t dim,
                                         float scale, const std::vector<float>& q,
                                         const std::vector<float>& k, const std::vector<float>& v);

}  // namespace kiln::compiler::sparse
