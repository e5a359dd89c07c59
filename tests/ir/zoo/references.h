// Plain C++ reference implementations of the zoo functions: straightforward loops over host
// tensors in double precision, written independently of the IR so that they can judge it.
// Each takes one tensor per function parameter, in parameter order, and fills the outputs;
// sizes are read from the tensors, so symbolic dimensions need nothing more.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <vector>

#include "ir/host_tensor.h"

namespace kiln::ir::zoo {

// Row-major element access by multi-index.
inline int64_t FlatIndex(const HostTensor& t, std::initializer_list<int64_t> index) {
  int64_t flat = 0;
  size_t d = 0;
  for (int64_t i : index) flat = flat * t.shape()[d++] + i;
  return flat;
}
inline double Get(const HostTensor& t, std::initializer_list<int64_t> index) {
  return t.GetDouble(FlatIndex(t, index));
}
inline void Set(HostTensor& t, std::initializer_list<int64_t> index, double value) {
  t.SetDouble(FlatIndex(t, index), value);
}
inline int64_t Dim(const HostTensor& t, size_t d) { return t.shape()[d]; }

using Args = std::vector<HostTensor>;

// Constants shared by the zoo's definitions and their references.
inline constexpr double kScaleFactor = 2.5;   // scalar_mul
inline constexpr double kNormEpsilon = 1e-5;  // layer_norm, rms_norm

// Element-wise (references_elementwise.cc).
void RefAddBroadcast(Args& t);
void RefBroadcastAdd2d(Args& t);
void RefScalarMul(Args& t);
void RefRelu(Args& t);
void RefExp(Args& t);
void RefSigmoid(Args& t);
void RefGeluErf(Args& t);
void RefGeluTanh(Args& t);
void RefCast(Args& t);
void RefWhere(Args& t);
void RefAdd(Args& t);
void RefSquarePlusOne(Args& t);

// Reductions (references_reduce.cc).
void RefRowSum(Args& t);
void RefRowSumPositive(Args& t);
void RefSumAll(Args& t);
void RefSumKeepdims(Args& t);
void RefRowMean(Args& t);
void RefColumnMax(Args& t);
void RefRowMin(Args& t);
void RefRowProd(Args& t);

// Linear algebra (references_nn.cc).
void RefMatmul(Args& t);
void RefBatchMatmul(Args& t);
void RefDenseBiasRelu(Args& t);

// Convolution and pooling (references_nn.cc).
void RefConv2dNchw(Args& t);
void RefConv2dNhwc(Args& t);
void RefConv2dStride2Pad1(Args& t);
void RefDepthwiseConv(Args& t);
void RefMaxPool2x2(Args& t);
void RefAvgPool3x3Stride2Pad1(Args& t);
void RefGlobalAvgPool(Args& t);

// Normalization (references_nn.cc).
void RefSoftmax(Args& t);
void RefLogSoftmax(Args& t);
void RefLayerNorm(Args& t);
void RefRmsNorm(Args& t);

// Layout (references_layout.cc).
void RefTranspose(Args& t);
void RefFlatten(Args& t);
void RefReshape(Args& t);
void RefConcat(Args& t);
void RefStridedSlice(Args& t);
void RefPad(Args& t);

}  // namespace kiln::ir::zoo
