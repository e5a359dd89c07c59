// The library baselines of the sparse benchmark (bench_sparse, `tune` sparse figures): SpMM and
// SDDMM on a CsrMatrix through SuiteSparse:GraphBLAS and through Eigen, each timed with Kiln's
// one timing definition (runtime/timing.h: warm-up, repeats grown to min_repeat_ms, median; no
// cutoff, never a timeout).
//
//   SpMM:  C = A * B, A rows x cols (float32 CSR), B cols x feat and C rows x feat row-major.
//   SDDMM: out[p] = A.values[p] * dot(X[row(p), :], Y[col(p), :]) for every nonzero p, in A's
//          order; X rows x feat, Y cols x feat row-major.
//
// GraphBLAS: A packed as CSR (GxB_Matrix_pack_CSR), dense operands packed full row-major
// (GxB_Matrix_pack_FullR). SpMM is C = 0 then GrB_mxm C += A * B with the plus-times semiring
// (C full, so GraphBLAS runs its in-place saxpy kernel: some 4 times faster here than C = A * B,
// which builds a sparse C); SDDMM is the masked GrB_mxm C<struct(A)> = X * Y' (the dot-product
// method, dot3) then GrB_eWiseMult by A's values. The
// timed region is the operation and GrB_Matrix_wait (GraphBLAS runs non-blocking); the thread
// count goes in the descriptor and the global setting (GxB_NTHREADS). Eigen: A mapped without a
// copy as SparseMatrix<float, RowMajor>, SpMM is `C.noalias() = A * B` on row-major maps
// (Eigen::setNbThreads; Eigen runs it on OpenMP above 20000 nonzeros x columns); Eigen has no
// SDDMM, so its SDDMM is Eigen's dot product per nonzero, rows split over OpenMP threads.
// Building and packing the library's matrices is done once, outside the timed region, and
// reported apart (setup_seconds); so is turning GraphBLAS's C back into a dense array.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/sparse/csr_matrix.h"

namespace kiln::bench {

struct SparseTimingOptions {
  int threads = 1;
  int warmup = 1;
  int repeat = 5;  // timed repeats: the median is the figure
  double min_repeat_ms = 20;
};

struct SparseBaselineResult {
  // SpMM: C, rows x feat row-major (zero rows where A's row is empty). SDDMM: one value per
  // nonzero of A, in A's order.
  std::vector<float> output;
  double median_seconds = 0;            // one run of the operation: the figure
  std::vector<double> seconds_per_run;  // per repeat
  double setup_seconds = 0;             // building and packing the operands, once, not timed in
  double contention = 0;                // runtime/cpu_wait.h, over the repeats
};

// Whether this build has each library (CMake found it); a call to a missing one throws
// kiln::Error(kUnsupported) naming the Debian package to install.
bool GraphBlasAvailable();
bool EigenAvailable();
// "SuiteSparse:GraphBLAS 7.4.0" and "Eigen 3.4.0", or "not built".
std::string GraphBlasVersion();
std::string EigenVersion();

// Every function checks A (CsrMatrix::Check), that feat >= 1 and the dense operands' sizes,
// throwing kiln::Error(kType) naming the operand and the size expected.
SparseBaselineResult GraphBlasSpmm(const ir::sparse::CsrMatrix& a, const std::vector<float>& b,
                                   int64_t feat, const SparseTimingOptions& options);
SparseBaselineResult GraphBlasSddmm(const ir::sparse::CsrMatrix& a, const std::vector<float>& x,
                                    const std::vector<float>& y, int64_t feat,
                                    const SparseTimingOptions& options);
SparseBaselineResult EigenSpmm(const ir::sparse::CsrMatrix& a, const std::vector<float>& b,
                               int64_t feat, const SparseTimingOptions& options);
SparseBaselineResult EigenSddmm(const ir::sparse::CsrMatrix& a, const std::vector<float>& x,
                                const std::vector<float>& y, int64_t feat,
                                const SparseTimingOptions& options);

}  // namespace kiln::bench
