// ScatterElements and ScatterND as GNN message passing: the one scatter pattern Kiln converts.
// Graph neural network exporters (PyTorch Geometric's, DGL's) write a layer's aggregation as
//   messages = Gather(X, src, axis=0)            (optionally Mul by a constant per-edge weight
//                                                  [E, 1] or a scalar)
//   out = ScatterElements(zeros[N, F], broadcast(dst)[E, F], messages, axis=0, reduction="add")
//      or ScatterND(zeros[N, F], dst[:, None], messages, reduction="add")
// which is C = A * X with A[dst, src] the sum of the edge weights (1 without a Mul). With src,
// dst and the weights constant, A is known at import time: it becomes a CsrMatrix (duplicate
// edges summed, a row with no edge given an explicit zero) and the node a call_tir of the
// stage-III CSR SpMM kernel (csr_spmm_kernel.h) with indptr, indices and data as Relax
// constants; the Gather and Mul are left dead. Every other scatter is refused (kUnsupported)
// with what was found and the pattern that is accepted. Internal to ir/frontend/onnx.
#pragma once

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

Outputs ScatterElementsAsSpmm(NodeContext& ctx);
Outputs ScatterNDAsSpmm(NodeContext& ctx);

}  // namespace kiln::ir::frontend::onnx
