// The stage-III CSR kernels as TVMScript text, built for one matrix structure: the one spelling
// of the sparse tasks' CSR SpMM and SDDMM, which compiler/sparse's CsrWorkload (the `tune
// sparse` task) and the ONNX front end's GNN aggregation (ir/frontend/onnx/convert_gnn_spmm.h)
// both parse, so that a record stored by one serves the other (docs/sparse.md).
//
// SpMM  C[rows, feat] = A * B: params a_indptr int32[rows + 1], a_indices int32[nnz],
//       a_data float32[nnz], b float32[cols, feat], c float32[rows, feat]; one reduction
//       block whose T.init zeroes C's row at its first nonzero (so A must have no empty row).
// SDDMM out[p] = a_data[p] * dot(X[row(p), :], Y[a_indices[p], :]): params a_indptr,
//       a_indices, a_data, x float32[rows, feat], y float32[cols, feat], out float32[nnz].
// Attributes: kiln.sparse_op, kiln.sparse_format ("csr"), kiln.sparse_structure (the structure
// hash, hex), kiln.sparse_rows, _cols, _nnz, _feat, kiln.sparse_row_offsets ("a_indptr",
// over which a schedule may balance parallel rows by nonzeros) and kiln.sparse_flops (2 * nnz *
// feat, SDDMM + nnz: the count ir::EstimateFlops takes, as the loops' extents load from indptr). A
// matrix with no nonzero gets buffers of one element (never read).
#pragma once

#include <cstdint>
#include <string>

namespace kiln::ir::sparse {

enum class CsrKernelOp { kSpmm, kSddmm };

struct CsrKernelShape {
  CsrKernelOp op = CsrKernelOp::kSpmm;
  int64_t rows = 0, cols = 0, nnz = 0, feat = 0;
  uint64_t structure_hash = 0;
};

// kiln::Error(kUnsupported) for a matrix without rows or columns, or no feature.
std::string CsrKernelText(const CsrKernelShape& shape);

}  // namespace kiln::ir::sparse
