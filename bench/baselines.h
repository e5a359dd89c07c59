// The library baselines bench programs time Kiln's kernels against, behind one small
// interface so that each library's threading is set in one place: OpenBLAS (cblas_sgemm, its
// own pthread pool) and oneDNN (dnnl_sgemm, OpenMP). Row-major, no transposes.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::bench {

struct SgemmShape {
  int64_t m, n, k;
};

// C = A * B with A m x k, B k x n, C m x n, all row-major and contiguous.
void OpenBlasSgemm(const SgemmShape& shape, const float* a, const float* b, float* c);
void OneDnnSgemm(const SgemmShape& shape, const float* a, const float* b, float* c);

// Thread counts. OpenBLAS keeps its own pool; oneDNN and Kiln's generated kernels share the
// process's OpenMP runtime (libgomp), so one call sets both.
void SetOpenBlasThreads(int threads);
void SetOpenMpThreads(int threads);

// "OpenBLAS 0.3.21 ..." and "oneDNN 2.6.x", for the report.
std::string OpenBlasVersion();
std::string OneDnnVersion();

}  // namespace kiln::bench
