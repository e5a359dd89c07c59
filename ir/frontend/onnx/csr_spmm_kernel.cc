// The stage-III CSR SpMM kernel of a matrix, parsed from the shared text.
#include "ir/frontend/onnx/csr_spmm_kernel.h"

#include "ir/sparse/csr_kernel_text.h"
#include "ir/text/parser.h"

namespace kiln::ir::frontend::onnx {

ir::PrimFunc CsrSpmmKernel(const ir::sparse::CsrMatrix& a, int64_t feat) {
  return ir::ParsePrimFunc(ir::sparse::CsrKernelText({ir::sparse::CsrKernelOp::kSpmm, a.rows,
                                                      a.cols, a.nnz(), feat, a.StructureHash()}),
                           "<csr spmm kernel>");
}

}  // namespace kiln::ir::frontend::onnx
