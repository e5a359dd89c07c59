// CsrMatrix to BSR, ELL and hyb: linear passes over the CSR arrays, each slot remembering the
// nonzero it holds.
#include "compiler/sparse/formats/format_conversion.h"

#include <algorithm>
#include <limits>

#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::compiler::sparse {

using ir::sparse::CsrMatrix;

namespace {

constexpr int64_t kMaxSlots = std::numeric_limits<int32_t>::max();

void CheckMatrix(const CsrMatrix& a, const char* function) {
  std::string problem = a.Check();
  KILN_CHECK(problem.empty(), ErrorKind::kType, std::string(function) + ": " + problem);
}

void CheckSlots(int64_t slots, const char* function, const std::string& what) {
  KILN_CHECK(slots <= kMaxSlots, ErrorKind::kUnsupported,
             std::string(function) + ": " + what + " needs " + std::to_string(slots) +
                 " slots, past the 32-bit limit of " + std::to_string(kMaxSlots));
}

void HashInts(StableHasher& h, const std::vector<int32_t>& v) {
  h.Int(static_cast<int64_t>(v.size()));
  for (int32_t x : v) h.Int(x);
}

// Appends one stored row of `width` slots holding a's nonzeros [begin, end) of `row`.
void AppendEllRow(EllMatrix& m, const CsrMatrix& a, int64_t row, int64_t begin, int64_t end) {
  m.row_index.push_back(static_cast<int32_t>(row));
  int32_t pad_col = end > begin ? a.indices[end - 1] : 0;
  for (int64_t s = 0; s < m.width; ++s) {
    int64_t p = begin + s;
    bool real = p < end;
    m.indices.push_back(real ? a.indices[p] : pad_col);
    m.values.push_back(real && !a.values.empty() ? a.values[p] : 0.0f);
    m.source.push_back(real ? static_cast<int32_t>(p) : -1);
  }
}

}  // namespace

uint64_t BsrMatrix::StructureHash() const {
  StableHasher h;
  h.String("kiln-bsr-v1");
  h.Int(block_rows);
  h.Int(block_cols);
  h.Int(rows);
  h.Int(cols);
  HashInts(h, indptr);
  HashInts(h, indices);
  return h.value();
}

int64_t EllMatrix::Nnz() const {
  return static_cast<int64_t>(
      std::count_if(source.begin(), source.end(), [](int32_t s) { return s >= 0; }));
}

uint64_t EllMatrix::StructureHash() const {
  StableHasher h;
  h.String("kiln-ell-v1");
  h.Int(width);
  h.Int(rows);
  h.Int(cols);
  HashInts(h, row_index);
  HashInts(h, indices);
  for (int32_t s : source) h.Byte(s >= 0 ? 1 : 0);
  return h.value();
}

BsrMatrix ToBsr(const CsrMatrix& a, int64_t block_rows, int64_t block_cols) {
  CheckMatrix(a, "ToBsr");
  KILN_CHECK(block_rows >= 1 && block_rows <= 256 && block_cols >= 1 && block_cols <= 256,
             ErrorKind::kUnsupported,
             "ToBsr: blocks of " + std::to_string(block_rows) + " x " + std::to_string(block_cols) +
                 " (expected 1..256 each)");
  BsrMatrix m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.block_rows = block_rows;
  m.block_cols = block_cols;
  const int64_t brows = m.NumBlockRows(), bcols = m.NumBlockCols();
  const int64_t block_size = block_rows * block_cols;
  m.indptr.assign(brows + 1, 0);
  // slot_of[bc]: the stored block of block column bc in the current block row, or -1.
  std::vector<int64_t> slot_of(bcols, -1);
  std::vector<int32_t> row_blocks;
  for (int64_t br = 0; br < brows; ++br) {
    const int64_t r0 = br * block_rows, r1 = std::min(a.rows, r0 + block_rows);
    row_blocks.clear();
    for (int64_t p = a.indptr[r0]; p < a.indptr[r1]; ++p) {
      int32_t bc = static_cast<int32_t>(a.indices[p] / block_cols);
      if (slot_of[bc] < 0) {
        slot_of[bc] = 0;
        row_blocks.push_back(bc);
      }
    }
    // An empty block row stores one zero block, so that every row of C has a writer
    // (format_workloads.h: the SpMM kernel zeroes C in its reduction's T.init).
    if (row_blocks.empty() && bcols > 0) row_blocks.push_back(0);
    std::sort(row_blocks.begin(), row_blocks.end());
    const int64_t first = m.Blocks();
    CheckSlots((first + static_cast<int64_t>(row_blocks.size())) * block_size, "ToBsr",
               "the blocks of the matrix");
    for (size_t i = 0; i < row_blocks.size(); ++i) {
      slot_of[row_blocks[i]] = first + static_cast<int64_t>(i);
      m.indices.push_back(row_blocks[i]);
    }
    m.values.resize(m.Blocks() * block_size, 0.0f);
    m.source.resize(m.Blocks() * block_size, -1);
    for (int64_t r = r0; r < r1; ++r) {
      for (int64_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p) {
        int64_t c = a.indices[p];
        int64_t slot =
            slot_of[c / block_cols] * block_size + (r - r0) * block_cols + (c % block_cols);
        m.values[slot] = a.values.empty() ? 0.0f : a.values[p];
        m.source[slot] = static_cast<int32_t>(p);
      }
    }
    for (int32_t bc : row_blocks) slot_of[bc] = -1;
    m.indptr[br + 1] = static_cast<int32_t>(m.Blocks());
  }
  return m;
}

EllMatrix ToEll(const CsrMatrix& a, int64_t width) {
  CheckMatrix(a, "ToEll");
  KILN_CHECK(width >= 1 && width <= 65536, ErrorKind::kUnsupported,
             "ToEll: width " + std::to_string(width) + " (expected 1..65536)");
  CheckSlots(a.rows * width, "ToEll", "ELL of width " + std::to_string(width));
  EllMatrix m;
  m.rows = a.rows;
  m.cols = a.cols;
  m.width = width;
  for (int64_t r = 0; r < a.rows; ++r) {
    KILN_CHECK(a.RowLength(r) <= width, ErrorKind::kUnsupported,
               "ToEll: row " + std::to_string(r) + " has " + std::to_string(a.RowLength(r)) +
                   " nonzeros, more than the ELL width " + std::to_string(width) +
                   " (use a wider ELL or hyb)");
  }
  m.row_index.reserve(a.rows);
  m.indices.reserve(a.rows * width);
  m.values.reserve(a.rows * width);
  m.source.reserve(a.rows * width);
  for (int64_t r = 0; r < a.rows; ++r) AppendEllRow(m, a, r, a.indptr[r], a.indptr[r + 1]);
  return m;
}

HybMatrix ToHyb(const CsrMatrix& a, int64_t partitions, int64_t buckets) {
  CheckMatrix(a, "ToHyb");
  KILN_CHECK(partitions >= 1 && partitions <= 1024 && buckets >= 1 && buckets <= 16,
             ErrorKind::kUnsupported,
             "ToHyb: " + std::to_string(partitions) + " column partitions and " +
                 std::to_string(buckets) + " buckets (expected 1..1024 and 1..16)");
  HybMatrix h;
  h.rows = a.rows;
  h.cols = a.cols;
  h.partitions = partitions;
  h.buckets = buckets;
  const int64_t part_cols = std::max<int64_t>(1, (a.cols + partitions - 1) / partitions);
  std::vector<EllMatrix> ells(partitions * buckets);
  for (int64_t p = 0; p < partitions; ++p) {
    for (int64_t b = 0; b < buckets; ++b) {
      EllMatrix& e = ells[p * buckets + b];
      e.rows = a.rows;
      e.cols = a.cols;
      e.width = int64_t{1} << b;
    }
  }
  for (int64_t r = 0; r < a.rows; ++r) {
    // The row's nonzeros are sorted by column: each partition's are one contiguous run.
    int64_t begin = a.indptr[r];
    const int64_t row_end = a.indptr[r + 1];
    while (begin < row_end) {
      const int64_t part = a.indices[begin] / part_cols;
      int64_t end = begin;
      while (end < row_end && a.indices[end] / part_cols == part) ++end;
      const int64_t degree = end - begin;
      int64_t bucket = 0;
      while (bucket + 1 < buckets && (int64_t{1} << bucket) < degree) ++bucket;
      EllMatrix& e = ells[part * buckets + bucket];
      if (degree > e.width) e.rows_repeat = true;
      for (int64_t s = begin; s < end; s += e.width) {
        AppendEllRow(e, a, r, s, std::min(end, s + e.width));
      }
      CheckSlots(static_cast<int64_t>(e.indices.size()), "ToHyb",
                 "the part of width " + std::to_string(e.width));
      begin = end;
    }
  }
  for (int64_t p = 0; p < partitions; ++p) {
    for (int64_t b = 0; b < buckets; ++b) {
      EllMatrix& e = ells[p * buckets + b];
      if (e.row_index.empty()) continue;
      HybPart part;
      part.partition = p;
      part.col_begin = std::min(a.cols, p * part_cols);
      part.col_end = std::min(a.cols, (p + 1) * part_cols);
      part.bucket = b;
      part.ell = std::move(e);
      h.parts.push_back(std::move(part));
    }
  }
  return h;
}

std::vector<float> GatherValues(const std::vector<int32_t>& source,
                                const std::vector<float>& csr_values) {
  std::vector<float> out(source.size(), 0.0f);
  for (size_t i = 0; i < source.size(); ++i) {
    if (source[i] < 0) continue;
    KILN_CHECK(static_cast<size_t>(source[i]) < csr_values.size(), ErrorKind::kInternal,
               "GatherValues: slot " + std::to_string(i) + " holds nonzero " +
                   std::to_string(source[i]) + " of " + std::to_string(csr_values.size()));
    out[i] = csr_values[source[i]];
  }
  return out;
}

std::vector<double> Densify(const CsrMatrix& a) {
  std::vector<double> d(a.rows * a.cols, 0.0);
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t p = a.indptr[r]; p < a.indptr[r + 1]; ++p)
      d[r * a.cols + a.indices[p]] += a.values[p];
  }
  return d;
}

std::vector<double> Densify(const BsrMatrix& m) {
  std::vector<double> d(m.rows * m.cols, 0.0);
  const int64_t bs = m.block_rows * m.block_cols;
  for (int64_t br = 0; br < m.NumBlockRows(); ++br) {
    for (int64_t k = m.indptr[br]; k < m.indptr[br + 1]; ++k) {
      for (int64_t i = 0; i < m.block_rows; ++i) {
        for (int64_t j = 0; j < m.block_cols; ++j) {
          const int64_t r = br * m.block_rows + i, c = m.indices[k] * m.block_cols + j;
          const float v = m.values[k * bs + i * m.block_cols + j];
          if (r < m.rows && c < m.cols) {
            d[r * m.cols + c] += v;
          } else {
            KILN_CHECK(v == 0.0f, ErrorKind::kInternal,
                       "Densify(BSR): cell (" + std::to_string(r) + ", " + std::to_string(c) +
                           ") past the matrix holds " + std::to_string(v));
          }
        }
      }
    }
  }
  return d;
}

std::vector<double> Densify(const EllMatrix& m) {
  std::vector<double> d(m.rows * m.cols, 0.0);
  for (int64_t s = 0; s < m.StoredRows(); ++s) {
    for (int64_t j = 0; j < m.width; ++j) {
      d[m.row_index[s] * m.cols + m.indices[s * m.width + j]] += m.values[s * m.width + j];
    }
  }
  return d;
}

std::vector<double> Densify(const HybMatrix& m) {
  std::vector<double> d(m.rows * m.cols, 0.0);
  for (const HybPart& part : m.parts) {
    std::vector<double> p = Densify(part.ell);
    for (size_t i = 0; i < d.size(); ++i) d[i] += p[i];
  }
  return d;
}

}  // namespace kiln::compiler::sparse
