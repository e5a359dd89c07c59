// Sparse workloads as stage-III TensorIR: ordinary loops and blocks over flat buffers, the
// form SparseTIR's lowering ends in, built for one matrix structure. The structure itself
// (indptr, indices) is a parameter, so the kernel is general code; but the shapes are the
// matrix's, and the function's attributes carry the structure's hash, rows, cols, nnz and the
// feature size, so that a tuning record (keyed by the function's structural hash) is reused
// only for the same structure and feature size. kiln.sparse_row_offsets names a_indptr, over
// which a schedule may balance its parallel rows by nonzeros (the "sparse-cpu" rules).
//
// CSR SpMM  C[rows, feat] = A[rows, cols] * B[cols, feat]:
//   params a_indptr int32[rows + 1], a_indices int32[nnz], a_data float32[nnz],
//          b float32[cols, feat], c float32[rows, feat]
//   One reduction block over (row, nonzero, feature) whose T.init zeroes C's row when the
//   row's first nonzero comes: a row with no nonzero would never be written, so the matrix
//   must have none (PadEmptyRows gives each empty row one explicit zero; ProblemOf checks).
//   The single writer lets a schedule accumulate a row's tile in registers (cache_write) and
//   move the zeroing out of the nonzero loop (decompose_reduction).
// CSR SDDMM out[p] = a_data[p] * dot(X[row(p), :], Y[a_indices[p], :]):
//   params a_indptr, a_indices, a_data, x float32[rows, feat], y float32[cols, feat],
//          out float32[nnz]
// A matrix with no nonzero gets buffers of one element (never read).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/interpreter/interpreter.h"
#include "ir/sparse/csr_matrix.h"

namespace kiln::compiler::sparse {

enum class SparseOp { kSpmm, kSddmm };
const char* SparseOpName(SparseOp op);  // "spmm", "sddmm"
// kiln::Error(kParse) naming the accepted spellings otherwise.
SparseOp ParseSparseOp(const std::string& name);

// What a sparse workload computes and on what: its key besides the code.
struct SparseProblem {
  SparseOp op = SparseOp::kSpmm;
  int64_t rows = 0, cols = 0, nnz = 0, feat = 0;
  uint64_t structure_hash = 0;
  // 2 * nnz * feat multiply-adds (SDDMM: plus the scaling, counted in nnz).
  double Flops() const;
};

// kiln::Error(kType) when `a` breaks CsrMatrix's invariants, or, for SpMM, has an empty row.
SparseProblem ProblemOf(SparseOp op, const ir::sparse::CsrMatrix& a, int64_t feat);

// `a` with one explicit zero (value 0, in column 0) in every row that has no nonzero: the
// same matrix, in the form the SpMM kernel takes. A row of B holding an infinity or a NaN would
// leak into such a row as NaN (0 * inf); the naive reference computes the same.
ir::sparse::CsrMatrix PadEmptyRows(const ir::sparse::CsrMatrix& a);

// The TVMScript text of the stage-III CSR kernel of `problem`.
std::string CsrWorkloadText(const SparseProblem& problem);
// The same, parsed.
ir::PrimFunc CsrWorkload(const SparseProblem& problem);

// The kernel's arguments, in parameter order: the structure of `a`, seeded random values
// in [-1, 1) for the nonzeros and the dense operands, and zeros for the output.
std::vector<ir::HostTensor> CsrArguments(const SparseProblem& problem,
                                         const ir::sparse::CsrMatrix& a, uint64_t seed);

// The output's expected value for `args` (as CsrArguments returns them), from the naive
// reference (ir/sparse/sparse_reference.h), and the output's parameter index.
ir::HostTensor CsrExpectedOutput(const SparseProblem& problem, const ir::sparse::CsrMatrix& a,
                                 const std::vector<ir::HostTensor>& args);
inline size_t CsrOutputParam(SparseOp op) { return op == SparseOp::kSpmm ? 4 : 5; }

}  // namespace kiln::compiler::sparse
