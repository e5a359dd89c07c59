// Hand-legalized graphs for the executor and transform tests: kernels written with the compute
// builder the way LegalizeOps writes them (fresh int64 shape variables per kernel, symbolic dims
// kept), and EmitTIR, which adds a kernel to a BlockBuilder's module and emits its call_tir.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "ir/compute/tensor.h"
#include "ir/relax/block_builder.h"
#include "ir/relax/exec/value.h"

namespace kiln::ir::relax::testing {

using compute::Tensor;
using KernelBody = std::function<Tensor(const std::vector<Tensor>& inputs)>;

// Adds the kernel `body` makes from placeholders shaped like `args` (each symbolic dim of the
// arguments replaced by a fresh int64 variable of the kernel) to `bb`'s module as `name` (made
// unique), and emits its call_tir: a DataflowVar, or a Var when `output`.
Var EmitTIR(BlockBuilder& bb, const std::string& name, const std::vector<Expr>& args,
            const KernelBody& body, bool output = false);

// Kernel bodies. Shapes follow the arguments; `b` of BiasAdd is 1-D over the last axis.
Tensor MatmulKernel(const std::vector<Tensor>& in);       // [.., m, k] x [k, n]
Tensor BatchMatmulKernel(const std::vector<Tensor>& in);  // [b, m, k] x [b, k, n]
Tensor AddKernel(const std::vector<Tensor>& in);          // same shapes
Tensor BiasAddKernel(const std::vector<Tensor>& in);      // x + b[last axis]
Tensor SubColumnKernel(const std::vector<Tensor>& in);    // x[i, j] - c[i, 0]
Tensor MulColumnKernel(const std::vector<Tensor>& in);    // x[i, j] * c[i, 0]
Tensor ReluKernel(const std::vector<Tensor>& in);
Tensor GeluKernel(const std::vector<Tensor>& in);
Tensor ExpKernel(const std::vector<Tensor>& in);
Tensor SquareKernel(const std::vector<Tensor>& in);
Tensor RsqrtEpsKernel(const std::vector<Tensor>& in);  // 1 / sqrt(x + 1e-5)
KernelBody ScaleKernel(double factor);                 // x * factor
// Mean over the last axis, keeping it as 1: a sum stage and a divide stage.
Tensor MeanKernel(const std::vector<Tensor>& in);
// Sum over the last axis, keeping it as 1.
Tensor SumKernel(const std::vector<Tensor>& in);
// Softmax over the last axis: max, exp, sum and normalize stages.
Tensor SoftmaxKernel(const std::vector<Tensor>& in);
// Row-major reshape to `shape` (dims of the kernel's own variables, built from the input's).
using ShapeFn = std::function<std::vector<PrimExpr>(const std::vector<PrimExpr>& in_shape)>;
KernelBody ReshapeKernel(ShapeFn shape);
KernelBody PermuteKernel(std::vector<int> axes);
// NCHW conv2d with a 3x3 kernel, stride 1, padding 1: a pad stage and a conv stage.
Tensor Conv2dKernel(const std::vector<Tensor>& in);
Tensor ChannelBiasKernel(const std::vector<Tensor>& in);  // x[n, c, h, w] + b[c, 0, 0]
Tensor MaxPool2x2Kernel(const std::vector<Tensor>& in);
// The two halves of the last axis: a kernel with two outputs (see EmitTIRMulti).
std::vector<Tensor> SplitLastAxisKernel(const std::vector<Tensor>& in);

// EmitTIR for a kernel with several outputs: returns the tuple variable.
Var EmitTIRMulti(BlockBuilder& bb, const std::string& name, const std::vector<Expr>& args,
                 const std::function<std::vector<Tensor>(const std::vector<Tensor>&)>& body,
                 bool output = false);

// Random float32 input of `shape`, uniform in [-1, 1).
exec::Value RandomTensor(std::vector<int64_t> shape, uint64_t seed);

// Max |a - b| over two tensor values (or tuples of them, fieldwise); throws on a shape mismatch.
double MaxAbsDiff(const exec::Value& a, const exec::Value& b);

}  // namespace kiln::ir::relax::testing
