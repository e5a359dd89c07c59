// Block-sparse attention masks: the block layout (band, global, seeded random blocks), then its
// expansion to tokens.
#include "ir/sparse/block_mask.h"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "ir/sparse/seeded_random.h"
#include "support/error.h"

namespace kiln::ir::sparse {
namespace {

int64_t BlockCount(const BlockMaskOptions& o) {
  KILN_CHECK(o.seq_len >= 1 && o.block >= 1, ErrorKind::kUnsupported,
             "block mask: seq_len " + std::to_string(o.seq_len) + " and block " +
                 std::to_string(o.block) + " must be at least 1");
  KILN_CHECK(o.local_blocks >= 0 && o.global_blocks >= 0 && o.random_blocks >= 0,
             ErrorKind::kUnsupported,
             "block mask: local, global and random block counts must be non-negative");
  KILN_CHECK(o.seq_len <= (int64_t{1} << 28), ErrorKind::kUnsupported,
             "block mask: seq_len " + std::to_string(o.seq_len) + " is above 2^28");
  return (o.seq_len + o.block - 1) / o.block;
}

}  // namespace

CsrMatrix BlockMaskLayout(const BlockMaskOptions& options) {
  const int64_t blocks = BlockCount(options);
  SeededRandom rng(options.seed);
  CsrMatrix m;
  m.rows = m.cols = blocks;
  m.indptr.push_back(0);
  std::vector<char> chosen(static_cast<size_t>(blocks));
  std::vector<int32_t> candidates;
  for (int64_t i = 0; i < blocks; ++i) {
    std::fill(chosen.begin(), chosen.end(), 0);
    if (i < options.global_blocks) {
      std::fill(chosen.begin(), chosen.end(), 1);
    } else {
      for (int64_t j = std::max<int64_t>(0, i - options.local_blocks);
           j <= std::min(blocks - 1, i + options.local_blocks); ++j) {
        chosen[j] = 1;
      }
      for (int64_t j = 0; j < std::min(blocks, options.global_blocks); ++j) chosen[j] = 1;
      candidates.clear();
      for (int64_t j = 0; j < blocks; ++j) {
        if (!chosen[j]) candidates.push_back(static_cast<int32_t>(j));
      }
      // A partial Fisher-Yates: the first `take` candidates become a uniform sample.
      int64_t take = std::min<int64_t>(options.random_blocks, candidates.size());
      for (int64_t k = 0; k < take; ++k) {
        int64_t pick = k + static_cast<int64_t>(rng.Below(candidates.size() - k));
        std::swap(candidates[k], candidates[pick]);
        chosen[candidates[k]] = 1;
      }
    }
    for (int64_t j = 0; j < blocks; ++j) {
      if (chosen[j]) m.indices.push_back(static_cast<int32_t>(j));
    }
    m.indptr.push_back(static_cast<int32_t>(m.indices.size()));
  }
  m.values.assign(m.indices.size(), 1.0f);
  return m;
}

CsrMatrix BlockSparseMask(const BlockMaskOptions& options) {
  CsrMatrix layout = BlockMaskLayout(options);
  const int64_t seq = options.seq_len, block = options.block;
  auto width = [&](int64_t b) { return std::min(block, seq - b * block); };
  int64_t nnz = 0;
  for (int64_t bi = 0; bi < layout.rows; ++bi) {
    int64_t row_nnz = 0;
    for (int32_t p = layout.indptr[bi]; p < layout.indptr[bi + 1]; ++p) {
      row_nnz += width(layout.indices[p]);
    }
    nnz += row_nnz * width(bi);
  }
  KILN_CHECK(nnz <= std::numeric_limits<int32_t>::max(), ErrorKind::kUnsupported,
             "block mask: " + std::to_string(nnz) + " nonzeros do not fit 32-bit offsets");
  CsrMatrix m;
  m.rows = m.cols = seq;
  m.indptr.reserve(static_cast<size_t>(seq) + 1);
  m.indices.reserve(static_cast<size_t>(nnz));
  m.indptr.push_back(0);
  for (int64_t r = 0; r < seq; ++r) {
    int64_t bi = r / block;
    for (int32_t p = layout.indptr[bi]; p < layout.indptr[bi + 1]; ++p) {
      int64_t start = layout.indices[p] * block;
      for (int64_t c = start; c < start + width(layout.indices[p]); ++c) {
        m.indices.push_back(static_cast<int32_t>(c));
      }
    }
    m.indptr.push_back(static_cast<int32_t>(m.indices.size()));
  }
  m.values.assign(m.indices.size(), 1.0f);
  return m;
}

}  // namespace kiln::ir::sparse
