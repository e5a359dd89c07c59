// Stage-III CSR SpMM and SDDMM: the interpreter on the generated kernels agrees with the naive
// reference, on matrices with empty rows, a dense row and no nonzero at all.
#include "compiler/sparse/sparse_workloads.h"

#include <gtest/gtest.h>

#include "ir/interpreter/interpreter.h"
#include "ir/sparse/sparse_reference.h"
#include "ir/structural.h"
#include "support/error.h"
#include "tests/compiler/sparse/test_matrices.h"

namespace kiln::compiler::sparse {
namespace {

using testing::Banded;
using testing::RandomMatrix;

using ir::sparse::CooEntry;
using ir::sparse::CsrMatrix;

double InterpretedError(SparseOp op, const CsrMatrix& matrix, int64_t feat) {
  const CsrMatrix a = op == SparseOp::kSpmm ? PadEmptyRows(matrix) : matrix;
  SparseProblem p = ProblemOf(op, a, feat);
  ir::PrimFunc f = CsrWorkload(p);
  std::vector<ir::HostTensor> args = CsrArguments(p, a, 7);
  ir::HostTensor expected = CsrExpectedOutput(p, a, args);
  std::vector<ir::ArgValue> values(args.begin(), args.end());
  ir::Interpret(f, values);
  const ir::HostTensor& got = args[CsrOutputParam(op)];
  std::vector<float> g(static_cast<const float*>(got.data()),
                       static_cast<const float*>(got.data()) + got.numel());
  std::vector<float> w(static_cast<const float*>(expected.data()),
                       static_cast<const float*>(expected.data()) + expected.numel());
  return ir::sparse::MaxRelativeError(g, w);
}

TEST(SparseWorkloads, InterpretedCsrSpmmMatchesTheNaiveReference) {
  EXPECT_LT(InterpretedError(SparseOp::kSpmm, RandomMatrix(13, 17, 0.2, 1, true), 8), 1e-5);
  EXPECT_LT(InterpretedError(SparseOp::kSpmm, RandomMatrix(5, 3, 0.0, 2), 4), 1e-5);
}

TEST(SparseWorkloads, InterpretedCsrSddmmMatchesTheNaiveReference) {
  EXPECT_LT(InterpretedError(SparseOp::kSddmm, RandomMatrix(13, 17, 0.2, 3, true), 8), 1e-5);
  EXPECT_LT(InterpretedError(SparseOp::kSddmm, RandomMatrix(5, 3, 0.0, 4), 4), 1e-5);
}

TEST(SparseWorkloads, TheStructureIsPartOfTheKey) {
  CsrMatrix a = PadEmptyRows(RandomMatrix(13, 17, 0.2, 1));
  CsrMatrix b = PadEmptyRows(RandomMatrix(13, 17, 0.2, 2));
  ir::PrimFunc fa = CsrWorkload(ProblemOf(SparseOp::kSpmm, a, 8));
  ir::PrimFunc fb = CsrWorkload(ProblemOf(SparseOp::kSpmm, b, 8));
  ir::PrimFunc fa16 = CsrWorkload(ProblemOf(SparseOp::kSpmm, a, 16));
  EXPECT_EQ(ir::StructuralHash(fa),
            ir::StructuralHash(CsrWorkload(ProblemOf(SparseOp::kSpmm, a, 8))));
  EXPECT_NE(ir::StructuralHash(fa), ir::StructuralHash(fb));
  EXPECT_NE(ir::StructuralHash(fa), ir::StructuralHash(fa16));
}

TEST(SparseWorkloads, SpmmRefusesAnEmptyRowAndPaddingKeepsTheProduct) {
  CsrMatrix a = RandomMatrix(6, 5, 0.5, 5);
  ASSERT_EQ(a.RowLength(1), 0);
  try {
    ProblemOf(SparseOp::kSpmm, a, 4);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("row 1 has no nonzero"), std::string::npos) << e.what();
  }
  CsrMatrix padded = PadEmptyRows(a);
  EXPECT_EQ(padded.Check(), "");
  EXPECT_EQ(padded.nnz(), a.nnz() + 1);
  std::vector<float> b(5 * 3);
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(i) - 4.5f;
  EXPECT_EQ(ir::sparse::ReferenceSpmm(padded, b, 3), ir::sparse::ReferenceSpmm(a, b, 3));
}

TEST(SparseWorkloads, AnEmptyShapeIsRefusedByName) {
  CsrMatrix empty = ir::sparse::CsrFromEntries(0, 4, {});
  try {
    CsrWorkload(ProblemOf(SparseOp::kSpmm, empty, 8));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("0 x 4"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::compiler::sparse
