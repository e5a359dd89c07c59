// Matrix Market coordinate files (the NIST exchange format that SuiteSparse, R's Matrix and
// scipy write) read into a CsrMatrix. Fields real, integer and pattern (each nonzero 1);
// symmetries general, symmetric and skew-symmetric (the other triangle is mirrored, negated for
// skew-symmetric). Entries are 1-based; duplicates are summed, as the format means, and
// counted. Every error names the file and line and what was expected: a malformed banner or
// size line, an index out of range, a value that is not a finite number, fewer or more entries
// than the size line declares. Complex and hermitian matrices and the dense array format are
// refused by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::sparse {

struct MatrixMarketInfo {
  std::string field;       // "real", "integer" or "pattern"
  std::string symmetry;    // "general", "symmetric" or "skew-symmetric"
  int64_t entries = 0;     // entry lines in the file
  int64_t duplicates = 0;  // entries summed into an earlier one (after mirroring)
};

// `text` is the file's content; `name` names it in errors. Throws kiln::Error(kParse) or
// (kUnsupported) as the header says.
CsrMatrix ParseMatrixMarket(std::string_view text, const std::string& name,
                            MatrixMarketInfo* info = nullptr);
// Reads the file at `path` (kiln::Error(kIO) when it cannot be read).
CsrMatrix ReadMatrixMarket(const std::string& path, MatrixMarketInfo* info = nullptr);

}  // namespace kiln::ir::sparse
