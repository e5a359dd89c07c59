// SparseFormat: the storage format a sparse kernel reads, with its parameters, and its CLI
// spelling. The spellings (lower case, fields separated by ':'):
//   csr        compressed sparse rows, the matrix as given (no conversion)
//   bsr:R:C    block sparse rows: R x C dense blocks, every block holding a nonzero stored whole
//              (zeros filled); R, C in 1..256
//   ell:W      ELLPACK: every row padded to W slots; W in 1..65536, and every row of the matrix
//              must fit (a longer row is an error of the conversion, naming the row)
//   hyb:P:B    SparseTIR's hybrid format: the columns cut into P partitions of ceil(cols / P)
//              columns, and in each partition the rows put into ELL buckets of widths
//              1, 2, 4, ..., 2^(B-1) by their number of nonzeros in that partition (the
//              narrowest bucket they fit); rows longer than the widest bucket are split into
//              several rows of the widest bucket; empty rows are skipped. P in 1..1024,
//              B in 1..16.
// ParseSparseFormat(FormatSpelling(f)) == f for every valid f.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::compiler::sparse {

enum class FormatKind { kCsr, kBsr, kEll, kHyb };

struct SparseFormat {
  FormatKind kind = FormatKind::kCsr;
  int64_t block_rows = 1, block_cols = 1;  // bsr
  int64_t width = 1;                       // ell
  int64_t partitions = 1, buckets = 1;     // hyb

  // The width of hyb's widest bucket, 2^(buckets - 1).
  int64_t WidestBucket() const { return int64_t{1} << (buckets - 1); }
  bool operator==(const SparseFormat&) const = default;
};

inline SparseFormat CsrFormat() { return {}; }
SparseFormat BsrFormat(int64_t block_rows, int64_t block_cols);
SparseFormat EllFormat(int64_t width);
SparseFormat HybFormat(int64_t partitions, int64_t buckets);

// "csr", "bsr:4:4", "ell:32", "hyb:2:6".
std::string FormatSpelling(const SparseFormat& format);
// "csr", "bsr", "ell", "hyb".
const char* FormatKindName(FormatKind kind);

// The format named by `text`. kiln::Error(kParse) naming the text and what was expected, e.g.
// "sparse format 'bsr:0:4': block rows must be >= 1", "sparse format 'coo': unknown format
// (expected csr, bsr:R:C, ell:W or hyb:P:B)".
SparseFormat ParseSparseFormat(const std::string& text);

}  // namespace kiln::compiler::sparse
