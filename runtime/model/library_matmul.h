// The matmul library functions: "dnnl_sgemm" (oneDNN) and "cblas_sgemm" (OpenBLAS) compute
// C = A x B in float32 with NumPy's matmul semantics, as the matmul blocks of a legalized
// model do. Arguments (A, B, C); A is [batch..., M, K] ([batch..., K, M] with the attribute
// trans_a = 1), B is [batch..., K, N] ([batch..., N, K] with trans_b = 1), C is
// [batch..., M, N]. The batch dims are right-aligned to C's; an operand may have fewer, or 1
// where C has more (broadcast, as attention's matmuls against shared weights). Dense layers
// with unbatched weights are one GEMM over every row; other batches are one GEMM each, spread
// over the threads when there are enough of them. A call of under 4 MFLOP runs on the calling
// thread alone.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/model/library_function.h"

namespace kiln::runtime::model {

inline constexpr char kDnnlSgemm[] = "dnnl_sgemm";
inline constexpr char kCblasSgemm[] = "cblas_sgemm";

// One matmul call's GEMMs: `a_offsets[b]` (elements into A) and `b_offsets[b]` per GEMM b of
// `m x n x k`; C's GEMMs are contiguous, m * n apart.
struct MatmulGeometry {
  int64_t m = 0, n = 0, k = 0;
  bool trans_a = false, trans_b = false;
  std::vector<int64_t> a_offsets, b_offsets;
};

// The geometry of shapes (A, B, C) under `attrs`. kiln::Error(kRuntime) naming `where` and the
// dim when the shapes do not make a matmul.
MatmulGeometry MatmulGeometryOf(const LibraryAttrs& attrs,
                                const std::vector<std::vector<int64_t>>& shapes,
                                const std::string& where);

// Registers both functions (the registry does, once).
void RegisterMatmulLibraryFunctions();

}  // namespace kiln::runtime::model
