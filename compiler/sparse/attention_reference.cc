// Naive block-sparse attention: plain loops over the mask's blocks, double accumulation.
#include "compiler/sparse/attention_reference.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "support/error.h"

namespace kiln::compiler::sparse {

namespace {

void CheckSize(const char* fn, const char* name, const std::vector<float>& v, int64_t want) {
  KILN_CHECK(static_cast<int64_t>(v.size()) == want, ErrorKind::kType,
             std::string(fn) + ": " + name + " holds " + std::to_string(v.size()) +
                 " values (expected " + std::to_string(want) + ")");
}

}  // namespace

std::vector<float> NaiveAttentionScores(const AttentionMask& m, int64_t heads, int64_t dim,
                                        float scale, const std::vector<float>& q,
                                        const std::vector<float>& k) {
  const int64_t L = m.SeqLen(), b = m.block, blocks = m.Blocks();
  CheckSize("NaiveAttentionScores", "Q", q, heads * L * dim);
  CheckSize("NaiveAttentionScores", "K", k, heads * L * dim);
  std::vector<float> s(static_cast<size_t>(heads * blocks * b * b));
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t bi = 0; bi < m.NumBlockRows(); ++bi) {
      for (int32_t p = m.layout.indptr[bi]; p < m.layout.indptr[bi + 1]; ++p) {
        const int64_t bj = m.layout.indices[p];
        for (int64_t r = 0; r < b; ++r) {
          const float* qrow = &q[((h * L) + bi * b + r) * dim];
          for (int64_t c = 0; c < b; ++c) {
            const float* krow = &k[((h * L) + bj * b + c) * dim];
            double acc = 0;
            for (int64_t d = 0; d < dim; ++d) acc += double{qrow[d]} * double{krow[d]};
            s[((h * blocks + p) * b + r) * b + c] = static_cast<float>(acc * double{scale});
          }
        }
      }
    }
  }
  return s;
}

std::vector<float> NaiveAttentionSoftmax(const AttentionMask& m, int64_t heads,
                                         const std::vector<float>& scores) {
  const int64_t b = m.block, blocks = m.Blocks();
  CheckSize("NaiveAttentionSoftmax", "S", scores, heads * blocks * b * b);
  std::vector<float> out(scores.size());
  auto at = [&](int64_t h, int64_t p, int64_t r, int64_t c) {
    return static_cast<size_t>(((h * blocks + p) * b + r) * b + c);
  };
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t bi = 0; bi < m.NumBlockRows(); ++bi) {
      const int32_t first = m.layout.indptr[bi], last = m.layout.indptr[bi + 1];
      for (int64_t r = 0; r < b; ++r) {
        double mx = -std::numeric_limits<double>::infinity();
        for (int32_t p = first; p < last; ++p) {
          for (int64_t c = 0; c < b; ++c) mx = std::max(mx, double{scores[at(h, p, r, c)]});
        }
        double sum = 0;
        for (int32_t p = first; p < last; ++p) {
          for (int64_t c = 0; c < b; ++c) sum += std::exp(double{scores[at(h, p, r, c)]} - mx);
        }
        for (int32_t p = first; p < last; ++p) {
          for (int64_t c = 0; c < b; ++c) {
            out[at(h, p, r, c)] =
                static_cast<float>(std::exp(double{scores[at(h, p, r, c)]} - mx) / sum);
          }
        }
      }
    }
  }
  return out;
}

std::vector<float> NaiveAttentionOutput(const AttentionMask& m, int64_t heads, int64_t dim,
                                        const std::vector<float>& probs,
                                        const std::vector<float>& v) {
  const int64_t L = m.SeqLen(), b = m.block, blocks = m.Blocks();
  CheckSize("NaiveAttentionOutput", "P", probs, heads * blocks * b * b);
  CheckSize("NaiveAttentionOutput", "V", v, heads * L * dim);
  std::vector<float> o(static_cast<size_t>(heads * L * dim));
  std::vector<double> acc(static_cast<size_t>(dim));
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t bi = 0; bi < m.NumBlockRows(); ++bi) {
      for (int64_t r = 0; r < b; ++r) {
        std::fill(acc.begin(), acc.end(), 0.0);
        for (int32_t p = m.layout.indptr[bi]; p < m.layout.indptr[bi + 1]; ++p) {
          const int64_t bj = m.layout.indices[p];
          for (int64_t c = 0; c < b; ++c) {
            const double w = probs[((h * blocks + p) * b + r) * b + c];
            const float* vrow = &v[((h * L) + bj * b + c) * dim];
            for (int64_t d = 0; d < dim; ++d) acc[d] += w * double{vrow[d]};
          }
        }
        float* orow = &o[((h * L) + bi * b + r) * dim];
        for (int64_t d = 0; d < dim; ++d) orow[d] = static_cast<float>(acc[d]);
      }
    }
  }
  return o;
}

NaiveAttention NaiveBlockSparseAttention(const AttentionMask& mask, int64_t heads, int64_t dim,
                                         float scale, const std::vector<float>& q,
                                         const std::vector<float>& k, const std::vector<float>& v) {
  NaiveAttention a;
  a.scores = NaiveAttentionScores(mask, heads, dim, scale, q, k);
  a.probs = NaiveAttentionSoftmax(mask, heads, a.scores);
  a.out = NaiveAttentionOutput(mask, heads, dim, a.probs, v);
  return a;
}

}  // namespace kiln::compiler::sparse
