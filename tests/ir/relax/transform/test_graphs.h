// Hand-legalized models for the transform tests (built with tests/ir/relax/exec/test_kernels.h,
// one kernel per op as LegalizeOps makes them), with random inputs to run them on.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/relax/exec/value.h"
#include "ir/relax/module.h"

namespace kiln::ir::relax::testing {

struct TestModel {
  IRModule module;
  int num_ops = 0;  // call_tir bindings of main
  // Random inputs for `main`, with the symbolic dims (if any) set to `n`.
  std::vector<exec::Value> Inputs(int64_t n, uint64_t seed) const;
  std::vector<std::vector<int64_t>> input_shapes;  // -1 stands for the symbolic dim
};

// x: (n, 8) -> `layers` x [matmul + bias add + gelu] (distinct weights, same shapes) ->
// matmul + bias add + relu: (n, 4).
TestModel MlpModel(int layers);

// `layers` pre-norm transformer blocks over x: (n, 16), 2 heads of 8: layer-norm-like
// normalization (mean, subtract, square, mean, rsqrt, multiply), q/k/v projections, reshape and
// permute to heads, scaled scores, softmax, weighted sum, permute and reshape back, output
// projection, residual add, and an MLP (matmul + bias + gelu, matmul + bias) with a residual.
TestModel TransformerModel(int layers);

// x: (1, 3, 8, 8) -> conv2d 3x3 (4 filters, padding 1) -> channel bias -> relu -> max pool 2x2.
TestModel ConvModel();

// relu(x @ transpose(W) + b) where W and b are constants: the transpose folds.
TestModel ConstantWeightModel();

}  // namespace kiln::ir::relax::testing
