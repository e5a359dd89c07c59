// Stage-III SpMM (and BSR SDDMM) kernels over the formats of format_conversion.h, written as
// TVMScript and parsed, with the attribute scheme of sparse_workloads.h's CSR kernels
// ("kiln.sparse_op", "kiln.sparse_format" with the parameters, "kiln.sparse_structure" the
// converted structure's hash, "kiln.sparse_rows", "_cols", "_nnz" (the nonzeros the kernel
// multiplies), "_feat"). Loops keep the shape search/space/rules/sparse_tiling.cc schedules: rows
// outermost, then the nonzero (or block, or ELL slot) loop, the feature dimension innermost.
//
// BSR SpMM (bsr:R:C), C = A * B over block rows BR and block columns BC:
//   params bsr_indptr int32[BR + 1], bsr_indices int32[blocks], bsr_data float32[blocks, R, C],
//          b float32[BC * C, feat], c float32[BR * R, feat]
//   B and C have their rows rounded up to whole blocks: B's extra rows must be zero and C's
//   come out zero. Loops: block row i, row r in the block, then one loop j over the block
//   row's blocks times their columns (block j // C, column j % C: data-dependent, as CSR's
//   nonzero loop), then the feature k; the reduction's T.init zeroes C (every block row has a
//   block, format_conversion.h), so a schedule may accumulate a row's tile in registers as for
//   CSR.
// BSR SDDMM (bsr:R:C), out = A .* (X * Y^T) on A's stored blocks:
//   params bsr_indptr, bsr_indices, bsr_data as above, x float32[BR * R, feat],
//          y float32[BC * C, feat], out float32[blocks, R, C] (the stored blocks' layout; a
//          filled zero of a block comes out 0); X's and Y's extra rows must be zero. A
//          reduction block "bsr_sddmm" (T.init) and a block "bsr_sddmm_scale".
// ELL SpMM (ell:W):
//   params ell_indices int32[rows, W], ell_data float32[rows, W], b float32[cols, feat],
//          c float32[rows, feat]; the reduction's T.init zeroes C.
// hyb part SpMM (one per part of hyb:P:B, an ELL kernel over the part's stored rows):
//   params row_index int32[n], part_indices int32[n, W], part_data float32[n, W],
//          b float32[cols, feat], c float32[rows, feat]
//   It ACCUMULATES into C (c[row_index[i], :] += ...). The first part (first_part) zeroes the
//   whole of C first (block "hyb_init"), so the parts run in order compute C with no separate
//   kernel. A part whose rows repeat (a row longer than the widest bucket, split) has the
//   attribute "kiln.sparse_rows_repeat" = 1: its row loop must not run in parallel, as two
//   stored rows of one matrix row would add to the same row of C at once (no atomic add on
//   the CPU); sparse_tiling.cc reads it.
// An empty index or value array gets one element (never read).
#pragma once

#include <cstdint>
#include <string>

#include "compiler/sparse/formats/format_conversion.h"
#include "compiler/sparse/formats/sparse_format.h"
#include "ir/function.h"

namespace kiln::compiler::sparse {

std::string BsrSpmmText(const BsrMatrix& m, int64_t feat);
std::string BsrSddmmText(const BsrMatrix& m, int64_t feat);
std::string EllSpmmText(const EllMatrix& m, int64_t feat);
// `part` is one of hyb.parts; first_part: it zeroes C first. The kernel is named
// hyb_spmm_p<partition>_w<width>.
std::string HybPartSpmmText(const HybMatrix& hyb, const HybPart& part, bool first_part,
                            int64_t feat);

// Parses one of the texts above (kiln::Error(kParse) would be a bug here).
ir::PrimFunc ParseFormatWorkload(const std::string& text);

}  // namespace kiln::compiler::sparse
