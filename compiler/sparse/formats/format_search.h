// The format decomposition as a search: the formats a matrix could be stored in (its decision
// space: hyb's column partitions and bucket count, BSR's block shape, ELL's width), derived
// from the matrix's row lengths and block structure, and a seeded draw of the ones to tune.
// SparseTIR leaves these parameters to hand (its hyb recipe sets them per data set); TuneSparse
// (sparse_tuning.h) draws a few, tunes each with a small share of the trials, and gives the rest
// to the fastest two, so that the decisions are measured, not guessed.
//
// The space of a matrix keeps only what could pay:
//   csr        always;
//   bsr:R:C    R, C in {2, 4, 8, 16, 32, 64} with R = C or R = 2C or C = 2R, storing at most
//              kMaxBsrFill times the nonzeros (filled zeros count);
//   ell:W      W the longest row, storing at most kMaxEllFill times the nonzeros;
//   hyb:P:B    P in {1, 2, 4, 8, 16} (at most cols / 32 partitions, so a partition keeps 32
//              columns), B from 1 + log2 of the row length at the median, the 90th and 99th
//              percentile and the longest row of a partition (rounded up, within 1..16), with
//              at most kMaxHybParts parts.
// SDDMM has kernels in csr and bsr only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/sparse/formats/sparse_format.h"
#include "compiler/sparse/sparse_workloads.h"
#include "ir/sparse/csr_matrix.h"

namespace kiln::compiler::sparse {

inline constexpr double kMaxBsrFill = 3.0;
inline constexpr double kMaxEllFill = 2.0;
inline constexpr int64_t kMaxHybParts = 32;

// The formats of `op` that could hold `a`, in a fixed order (csr first when it is in), limited
// to `kind` when given. Never empty for csr; may be empty for a kind the matrix does not suit
// (an ELL of a skewed graph).
std::vector<SparseFormat> FormatSpace(const ir::sparse::CsrMatrix& a, SparseOp op,
                                      std::optional<FormatKind> kind = std::nullopt);

// Whether `spelling` asks for a search rather than one format: "auto" (every kind, *kind left
// empty) or a kind alone, "bsr", "ell" or "hyb" (its parameters searched, *kind set).
bool IsFormatSearch(const std::string& spelling, std::optional<FormatKind>* kind);

// `count` formats of `space` drawn without replacement with `seed` (all of them when the space
// is that small), in the space's order; csr, when in the space, is always among them.
std::vector<SparseFormat> DrawFormats(const std::vector<SparseFormat>& space, size_t count,
                                      uint64_t seed);

}  // namespace kiln::compiler::sparse
