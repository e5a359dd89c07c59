// The decision space of the format decomposition, from the matrix's structure, and its draw.
#include "compiler/sparse/formats/format_search.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <set>

namespace kiln::compiler::sparse {

namespace {

// 1 + ceil(log2(length)), within hyb's 1..16 buckets: the bucket count whose widest bucket
// holds a row of `length`.
int64_t BucketsFor(int64_t length) {
  int64_t buckets = 1;
  while (buckets < 16 && (int64_t{1} << (buckets - 1)) < length) ++buckets;
  return buckets;
}

// Per column partition of `partitions`, the length of every row that has a nonzero in it.
std::vector<std::vector<int64_t>> PartitionRowLengths(const ir::sparse::CsrMatrix& a,
                                                      int64_t partitions) {
  const int64_t width = (a.cols + partitions - 1) / partitions;
  std::vector<std::vector<int64_t>> lengths(partitions);
  std::vector<int64_t> in_row(partitions);
  for (int64_t r = 0; r < a.rows; ++r) {
    std::fill(in_row.begin(), in_row.end(), 0);
    for (int32_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) ++in_row[a.indices[p] / width];
    for (int64_t part = 0; part < partitions; ++part) {
      if (in_row[part] > 0) lengths[part].push_back(in_row[part]);
    }
  }
  return lengths;
}

// The parts and stored slots of hyb:P:B for row lengths per partition, as ToHyb builds it
// (format_conversion.h): a row goes to the narrowest bucket it fits, a longer one is split
// into rows of the widest.
struct HybShape {
  int64_t parts = 0, stored = 0;
};
HybShape HybShapeOf(const std::vector<std::vector<int64_t>>& lengths, int64_t buckets) {
  HybShape shape;
  const int64_t widest = int64_t{1} << (buckets - 1);
  for (const std::vector<int64_t>& partition : lengths) {
    std::vector<int64_t> rows_in(buckets, 0);
    for (int64_t length : partition) {
      if (length > widest) {
        rows_in[buckets - 1] += (length + widest - 1) / widest;
        continue;
      }
      int64_t b = 0;
      while ((int64_t{1} << b) < length) ++b;
      ++rows_in[b];
    }
    for (int64_t b = 0; b < buckets; ++b) {
      if (rows_in[b] == 0) continue;
      ++shape.parts;
      shape.stored += rows_in[b] << b;
    }
  }
  return shape;
}

// The q-quantile (0..1) of `values` (not empty), by nearest rank.
int64_t Quantile(std::vector<int64_t> values, double q) {
  const size_t at = std::min(values.size() - 1, static_cast<size_t>(q * values.size()));
  std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(at), values.end());
  return values[at];
}

void AddHyb(const ir::sparse::CsrMatrix& a, std::vector<SparseFormat>& out) {
  for (int64_t partitions : {1, 2, 4, 8, 16}) {
    if (partitions > 1 && a.cols / partitions < 32) break;
    const std::vector<std::vector<int64_t>> lengths = PartitionRowLengths(a, partitions);
    std::vector<int64_t> all;
    for (const std::vector<int64_t>& p : lengths) all.insert(all.end(), p.begin(), p.end());
    if (all.empty()) continue;
    std::set<int64_t> bucket_counts;
    for (double q : {0.5, 0.9, 0.99, 1.0}) bucket_counts.insert(BucketsFor(Quantile(all, q)));
    for (int64_t buckets : bucket_counts) {
      if (HybShapeOf(lengths, buckets).parts > kMaxHybParts) continue;
      out.push_back(HybFormat(partitions, buckets));
    }
  }
}

// Stored blocks of bsr:R:C.
int64_t BsrBlocks(const ir::sparse::CsrMatrix& a, int64_t block_rows, int64_t block_cols) {
  const int64_t block_row_count = (a.rows + block_rows - 1) / block_rows;
  std::vector<int64_t> seen((a.cols + block_cols - 1) / block_cols, -1);
  int64_t blocks = 0;
  for (int64_t br = 0; br < block_row_count; ++br) {
    const int64_t end = std::min(a.rows, (br + 1) * block_rows);
    for (int64_t r = br * block_rows; r < end; ++r) {
      for (int32_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) {
        int64_t& mark = seen[a.indices[p] / block_cols];
        if (mark != br) {
          mark = br;
          ++blocks;
        }
      }
    }
  }
  return blocks;
}

void AddBsr(const ir::sparse::CsrMatrix& a, std::vector<SparseFormat>& out) {
  const double nnz = static_cast<double>(std::max<int64_t>(a.nnz(), 1));
  for (int64_t r : {2, 4, 8, 16, 32, 64}) {
    for (int64_t c : {r / 2, r, r * 2}) {
      if (c < 2 || c > 64 || r > a.rows || c > a.cols) continue;
      const double stored = static_cast<double>(BsrBlocks(a, r, c)) * static_cast<double>(r * c);
      if (stored <= kMaxBsrFill * nnz) out.push_back(BsrFormat(r, c));
    }
  }
}

void AddEll(const ir::sparse::CsrMatrix& a, std::vector<SparseFormat>& out) {
  int64_t longest = 0;
  for (int64_t r = 0; r < a.rows; ++r) longest = std::max(longest, a.RowLength(r));
  if (longest == 0) return;
  const double stored = static_cast<double>(longest) * static_cast<double>(a.rows);
  if (stored <= kMaxEllFill * static_cast<double>(a.nnz())) out.push_back(EllFormat(longest));
}

}  // namespace

std::vector<SparseFormat> FormatSpace(const ir::sparse::CsrMatrix& a, SparseOp op,
                                      std::optional<FormatKind> kind) {
  auto wanted = [&](FormatKind k) { return !kind || *kind == k; };
  std::vector<SparseFormat> space;
  if (wanted(FormatKind::kCsr)) space.push_back(CsrFormat());
  if (a.nnz() == 0) return space;  // nothing to store otherwise
  if (wanted(FormatKind::kBsr)) AddBsr(a, space);
  if (op == SparseOp::kSddmm) return space;  // its kernels: csr and bsr
  if (wanted(FormatKind::kEll)) AddEll(a, space);
  if (wanted(FormatKind::kHyb)) AddHyb(a, space);
  return space;
}

bool IsFormatSearch(const std::string& spelling, std::optional<FormatKind>* kind) {
  if (spelling == "auto") {
    *kind = std::nullopt;
    return true;
  }
  for (FormatKind k : {FormatKind::kBsr, FormatKind::kEll, FormatKind::kHyb}) {
    if (spelling == FormatKindName(k)) {
      *kind = k;
      return true;
    }
  }
  return false;
}

std::vector<SparseFormat> DrawFormats(const std::vector<SparseFormat>& space, size_t count,
                                      uint64_t seed) {
  if (space.size() <= count) return space;
  std::vector<size_t> order(space.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  const bool has_csr = !space.empty() && space[0].kind == FormatKind::kCsr;
  std::mt19937_64 rng(seed);
  std::shuffle(order.begin() + (has_csr ? 1 : 0), order.end(), rng);
  order.resize(count);
  std::sort(order.begin(), order.end());
  std::vector<SparseFormat> drawn;
  for (size_t i : order) drawn.push_back(space[i]);
  return drawn;
}

}  // namespace kiln::compiler::sparse
