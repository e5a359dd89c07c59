// The dense baseline of block-sparse attention: the same attention computed densely, as a
// dense transformer layer with an attention mask does. Per head: S = scale * Q K^T over all
// L x L pairs (OpenBLAS sgemm), scores outside the mask set to -inf, a softmax over each full
// row, O = P V (sgemm). Timed with runtime::TimeFunction (Kiln's timing definition: warm-up,
// repeats grown to min_repeat_ms, the median); allocating the L x L scores is outside the
// timed region. Built where CMake found OpenBLAS (libopenblas-dev), as the dense benchmarks
// (bench/CMakeLists.txt); elsewhere DenseAttentionAvailable() is false and a call throws
// kiln::Error(kUnsupported) naming the package.
#pragma once

#include <cstdint>
#include <vector>

#include "compiler/sparse/attention_mask.h"

namespace kiln::bench {

bool DenseAttentionAvailable();

struct DenseAttentionResult {
  std::vector<float> out;       // O, float32[H, L, D]
  double median_seconds = 0;    // one call, all heads
  std::vector<double> repeats;  // seconds per run of every repeat
};

// q, k, v: float32[H, L, D]; threads: OpenBLAS's and the softmax's (0: every core).
DenseAttentionResult DenseMaskedAttention(const compiler::sparse::AttentionMask& mask,
                                          int64_t heads, int64_t dim, float scale,
                                          const std::vector<float>& q, const std::vector<float>& k,
                                          const std::vector<float>& v, int threads,
                                          double min_repeat_ms);

}  // namespace kiln::bench
