// The softmax and layer_norm tasks of a transformer as Kiln's ONNX import legalizes them (the
// text `tune tasks MODEL --show NAME` prints), at any size: bench_vecmath times them at the
// BERT layer's, and the compute-location tests build them small.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::bench {

// softmax over the last axis of a float32 [1, heads, rows, cols] tensor, as TensorIR text.
std::string SoftmaxTensorIr(int64_t heads, int64_t rows, int64_t cols);

// layer_norm over the last axis of a float32 [1, rows, cols] tensor with scale and shift
// vectors (epsilon 1e-12), as TensorIR text.
std::string LayerNormTensorIr(int64_t rows, int64_t cols);

}  // namespace kiln::bench
