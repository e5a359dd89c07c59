// DecomposeOpsForInference: rewrites ops whose inference form is plain elementwise and broadcast
// arithmetic into that arithmetic, before LegalizeOps, as TVM's
// relax.transform.DecomposeOpsForInference does, so that the pieces fuse with their neighbours:
//
// - nn.batch_norm(x, gamma, beta, mean, var) with the moving statistics becomes
//       x * scale + shift,  scale = gamma / sqrt(var + eps),  shift = beta - mean * scale
//   with scale and shift expanded to broadcast along the channel axis. This is the form ONNX
//   Runtime computes; with constant statistics FoldConstant turns scale and shift into two
//   constants, and conv2d + bias + scale + shift + relu fuse into one kernel. The call's tuple
//   (y, mean, var) is resolved where it is read: y = bn[0] reads the result directly, so the
//   projection no longer stands between the arithmetic and its consumers.
// - nn.dropout(x) (inference) becomes (x, mask) with a mask of ones made only when the mask is
//   read; x = d[0] reads x directly.
//
// Other ops stay, layer_norm among them (one kernel is faster than its decomposition). A call
// whose input has an unknown rank or dtype, or whose statistics are not tensors of rank 1, is
// left for LegalizeOps. A projection of a decomposed call in another binding block keeps reading
// the tuple, which is then bound as before.
#pragma once

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

IRModule DecomposeOpsForInference(const IRModule& module);

}  // namespace kiln::ir::relax::transform
