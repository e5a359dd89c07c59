// The R-MAT generator: quadrant draws per level, self-loops dropped, a seeded label permutation,
// duplicates merged by the CSR build.
#include "ir/sparse/rmat.h"

#include <limits>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

#include "ir/sparse/seeded_random.h"
#include "support/error.h"

namespace kiln::ir::sparse {

CsrMatrix GenerateRmat(const RmatOptions& options, RmatInfo* info) {
  KILN_CHECK(options.scale >= 1 && options.scale <= 28, ErrorKind::kUnsupported,
             "GenerateRmat: scale " + std::to_string(options.scale) + ": expected 1..28");
  KILN_CHECK(
      options.edge_factor >= 1 && options.edge_factor <= 1024, ErrorKind::kUnsupported,
      "GenerateRmat: edge factor " + std::to_string(options.edge_factor) + ": expected 1..1024");
  const int64_t n = int64_t{1} << options.scale;
  const int64_t drawn = options.edge_factor * n;
  KILN_CHECK(drawn <= std::numeric_limits<int32_t>::max(), ErrorKind::kUnsupported,
             "GenerateRmat: " + std::to_string(drawn) +
                 " edges (edge factor x 2^scale): at most 2^31 - 1 fit a CsrMatrix");
  const double a = options.a, b = options.b, c = options.c;
  const double d = 1.0 - a - b - c;
  KILN_CHECK(a >= 0 && b >= 0 && c >= 0 && d >= -1e-12, ErrorKind::kUnsupported,
             "GenerateRmat: probabilities a " + std::to_string(a) + ", b " + std::to_string(b) +
                 ", c " + std::to_string(c) + ": expected non-negative with a + b + c <= 1");
  const double ab = a + b, abc = a + b + c;

  SeededRandom rng(options.seed);
  std::vector<CooEntry> entries;
  entries.reserve(static_cast<size_t>(drawn));
  int64_t self_loops = 0;
  for (int64_t e = 0; e < drawn; ++e) {
    int64_t row = 0, col = 0;
    for (int64_t bit = n >> 1; bit > 0; bit >>= 1) {
      double r = rng.UniformReal();
      if (r < a) continue;
      if (r < ab) {
        col |= bit;
      } else if (r < abc) {
        row |= bit;
      } else {
        row |= bit;
        col |= bit;
      }
    }
    if (row == col) {
      ++self_loops;
      continue;
    }
    entries.push_back({row, col, 1.0});
  }
  if (options.permute) {
    // Fisher-Yates over the labels, from the same stream after the edges.
    std::vector<int64_t> label(static_cast<size_t>(n));
    std::iota(label.begin(), label.end(), 0);
    for (int64_t i = n - 1; i > 0; --i) {
      int64_t j = static_cast<int64_t>(rng.Below(static_cast<uint64_t>(i + 1)));
      std::swap(label[i], label[j]);
    }
    for (CooEntry& entry : entries) {
      entry.row = label[entry.row];
      entry.col = label[entry.col];
    }
  }
  int64_t duplicates = 0;
  CsrMatrix m = CsrFromEntries(n, n, std::move(entries), &duplicates);
  for (float& v : m.values) v = 1.0f;  // merged, not summed
  if (info) {
    info->drawn = drawn;
    info->self_loops = self_loops;
    info->duplicates = duplicates;
  }
  return m;
}

}  // namespace kiln::ir::sparse
