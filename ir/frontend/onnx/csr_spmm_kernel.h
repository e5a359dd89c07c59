// The stage-III CSR SpMM kernel C[rows, feat] = A[rows, cols] * B[cols, feat] that a model's
// sparse aggregation becomes (convert_gnn_spmm.cc), built for one matrix structure: params
// a_indptr int32[rows + 1], a_indices int32[nnz], a_data float32[nnz], b float32[cols, feat],
// c float32[rows, feat], and the kiln.sparse_* attributes (structure hash, rows, cols, nnz,
// feat). Its text is ir/sparse/csr_kernel_text.h's, which compiler/sparse's CsrWorkload parses
// too: a test keeps the two structurally equal, so that the records `tune sparse` stores serve
// a model's task and back.
// Internal to ir/frontend/onnx.
#pragma once

#include <cstdint>

#include "ir/function.h"
#include "ir/sparse/csr_matrix.h"

namespace kiln::ir::frontend::onnx {

// The kernel for `a` (no empty row: the kernel's T.init zeroes a row at its first nonzero) and
// `feat` features. kiln::Error(kUnsupported) for a matrix without rows or columns, or no feature.
ir::PrimFunc CsrSpmmKernel(const ir::sparse::CsrMatrix& a, int64_t feat);

}  // namespace kiln::ir::frontend::onnx
