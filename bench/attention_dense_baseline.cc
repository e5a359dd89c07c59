// Dense masked attention with OpenBLAS sgemm, timed as Kiln times kernels.
#include "bench/attention_dense_baseline.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>

#include "runtime/timing.h"
#include "support/error.h"

#if KILN_HAVE_OPENBLAS
#include <cblas.h>
#endif

namespace kiln::bench {

using compiler::sparse::AttentionMask;

bool DenseAttentionAvailable() { return KILN_HAVE_OPENBLAS != 0; }

namespace {

// Rows [begin, end) of one head's L x L scores: masked-out blocks to -inf, then the softmax.
void MaskedSoftmaxRows(const AttentionMask& m, const std::vector<char>& allowed, float* s,
                       int64_t begin, int64_t end) {
  const int64_t L = m.SeqLen(), b = m.block, nb = m.NumBlockRows();
  const float neg_inf = -std::numeric_limits<float>::infinity();
  for (int64_t row = begin; row < end; ++row) {
    float* r = s + row * L;
    const char* row_allowed = &allowed[static_cast<size_t>((row / b) * nb)];
    float mx = neg_inf;
    for (int64_t c = 0; c < L; ++c) {
      if (!row_allowed[c / b]) r[c] = neg_inf;
      mx = std::max(mx, r[c]);
    }
    float sum = 0;
    for (int64_t c = 0; c < L; ++c) {
      r[c] = std::exp(r[c] - mx);
      sum += r[c];
    }
    const float inv = 1.0f / sum;
    for (int64_t c = 0; c < L; ++c) r[c] *= inv;
  }
}

}  // namespace

DenseAttentionResult DenseMaskedAttention(const AttentionMask& m, int64_t heads, int64_t dim,
                                          float scale, const std::vector<float>& q,
                                          const std::vector<float>& k, const std::vector<float>& v,
                                          int threads, double min_repeat_ms) {
  const int64_t L = m.SeqLen(), nb = m.NumBlockRows();
  const size_t size = static_cast<size_t>(heads * L * dim);
  KILN_CHECK(q.size() == size && k.size() == size && v.size() == size, ErrorKind::kType,
             "DenseMaskedAttention: Q, K and V must hold " + std::to_string(size) +
                 " values each (H x L x D)");
  KILN_CHECK(L <= 32768, ErrorKind::kUnsupported,
             "DenseMaskedAttention: " + std::to_string(L) +
                 " tokens: the L x L scores of one head would exceed 4 GiB (at most 32768)");
#if KILN_HAVE_OPENBLAS
  const int workers =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  openblas_set_num_threads(workers);
  std::vector<char> allowed(static_cast<size_t>(nb * nb), 0);
  for (int64_t bi = 0; bi < nb; ++bi) {
    for (int32_t p = m.layout.indptr[bi]; p < m.layout.indptr[bi + 1]; ++p) {
      allowed[static_cast<size_t>(bi * nb + m.layout.indices[p])] = 1;
    }
  }
  DenseAttentionResult result;
  result.out.assign(size, 0.0f);
  std::vector<float> s(static_cast<size_t>(L * L));
  const int n = static_cast<int>(L), d = static_cast<int>(dim);
  auto run = [&] {
    for (int64_t h = 0; h < heads; ++h) {
      const float* qh = &q[static_cast<size_t>(h * L * dim)];
      const float* kh = &k[static_cast<size_t>(h * L * dim)];
      const float* vh = &v[static_cast<size_t>(h * L * dim)];
      float* oh = &result.out[static_cast<size_t>(h * L * dim)];
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, d, scale, qh, d, kh, d, 0.0f,
                  s.data(), n);
      if (workers == 1) {
        MaskedSoftmaxRows(m, allowed, s.data(), 0, L);
      } else {
        std::vector<std::thread> pool;
        const int64_t chunk = (L + workers - 1) / workers;
        for (int w = 0; w < workers; ++w) {
          const int64_t begin = w * chunk, end = std::min(L, begin + chunk);
          if (begin < end) {
            pool.emplace_back(MaskedSoftmaxRows, std::cref(m), std::cref(allowed), s.data(), begin,
                              end);
          }
        }
        for (std::thread& t : pool) t.join();
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, d, n, 1.0f, s.data(), n, vh, d,
                  0.0f, oh, d);
    }
  };
  runtime::TimingConfig config;
  config.number = 1;
  config.repeat = 3;
  config.min_repeat_ms = min_repeat_ms;
  config.warmup = 1;
  runtime::TimingResult timing = runtime::TimeFunction(run, config);
  result.median_seconds = timing.median_seconds;
  result.repeats = timing.seconds_per_run;
  return result;
#else
  (void)nb;
  (void)scale;
  (void)threads;
  (void)min_repeat_ms;
  throw Error(ErrorKind::kUnsupported,
              "DenseMaskedAttention: built without OpenBLAS (install libopenblas-dev and "
              "configure again)");
#endif
}

}  // namespace kiln::bench
