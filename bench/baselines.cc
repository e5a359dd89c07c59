// OpenBLAS and oneDNN SGEMM calls for the benchmarks.
#include "bench/baselines.h"

#include <cblas.h>
#include <dnnl.h>
#include <omp.h>

#include "support/error.h"

namespace kiln::bench {

void OpenBlasSgemm(const SgemmShape& s, const float* a, const float* b, float* c) {
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(s.m),
              static_cast<blasint>(s.n), static_cast<blasint>(s.k), 1.0f, a,
              static_cast<blasint>(s.k), b, static_cast<blasint>(s.n), 0.0f, c,
              static_cast<blasint>(s.n));
}

void OneDnnSgemm(const SgemmShape& s, const float* a, const float* b, float* c) {
  dnnl_status_t status = dnnl_sgemm('N', 'N', s.m, s.n, s.k, 1.0f, a, s.k, b, s.n, 0.0f, c, s.n);
  KILN_CHECK(status == dnnl_success, ErrorKind::kRuntime,
             "dnnl_sgemm(" + std::to_string(s.m) + ", " + std::to_string(s.n) + ", " +
                 std::to_string(s.k) + ") failed with status " + std::to_string(status));
}

void SetOpenBlasThreads(int threads) { openblas_set_num_threads(threads); }

void SetOpenMpThreads(int threads) { omp_set_num_threads(threads); }

std::string OpenBlasVersion() {
  const char* config = openblas_get_config();
  return config ? config : "OpenBLAS";
}

std::string OneDnnVersion() {
  const dnnl_version_t* v = dnnl_version();
  return "oneDNN " + std::to_string(v->major) + "." + std::to_string(v->minor) + "." +
         std::to_string(v->patch) + " (" +
         (v->cpu_runtime == DNNL_RUNTIME_OMP ? "OpenMP" : "other") + " runtime)";
}

}  // namespace kiln::bench
