// EstimateFlops: matmul counts 2*M*N*K, symbolic dims stay symbolic, elementwise chains count
// each operation once per element, and index arithmetic counts nothing.
#include "ir/analysis/flop_count.h"

#include <gtest/gtest.h>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/sparse/csr_kernel_text.h"
#include "ir/text/parser.h"
#include "support/error.h"

namespace kiln::ir {
namespace {

using compute::Compute;
using compute::Placeholder;
using compute::ReduceAxis;
using compute::Sum;
using compute::Tensor;

const DataType kF32 = DataType::Float(32);

PrimFunc Matmul(Expr m, Expr n, Expr k_extent) {
  Tensor a = Placeholder("A", {m, k_extent}, kF32);
  Tensor b = Placeholder("B", {k_extent, n}, kF32);
  IterVar k = ReduceAxis(k_extent, "k");
  Tensor c = Compute(
      {m, n}, [&](Var i, Var j) { return Sum(a(i, k.var) * b(k.var, j), {k}); }, "C");
  return compute::CreatePrimFunc({a, b, c}, "matmul");
}

TEST(EstimateFlops, MatmulIsTwoMNK) {
  Expr flops = EstimateFlops(Matmul(64, 32, 16));
  ASSERT_TRUE(AsConstInt(flops).has_value());
  EXPECT_EQ(*AsConstInt(flops), 2 * 64 * 32 * 16);
}

TEST(EstimateFlops, SymbolicDimsStaySymbolicAndBind) {
  Var n("n", DataType::Int(64));
  PrimFunc f = Matmul(n, 32, 16);
  EXPECT_FALSE(AsConstInt(EstimateFlops(f)).has_value());
  EXPECT_EQ(EstimateFlops(f, {{"n", 10}}), 2.0 * 10 * 32 * 16);
  try {
    EstimateFlops(f, {});
    ADD_FAILURE() << "expected an error for the unbound dim";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_NE(std::string(e.what()).find("'n'"), std::string::npos) << e.what();
  }
}

TEST(EstimateFlops, ElementwiseCountsValueOpsNotIndexOps) {
  // B[i] = exp(A[i * 2 + 1]) * 3 + 1: exp, multiply, add per element; the index math is free.
  Tensor a = Placeholder("A", {64}, kF32);
  Tensor b = Compute(
      {Expr(31)},
      [&](Var i) {
        return compute::Exp(a(i * 2 + 1)) * compute::Const(kF32, 3) + compute::Const(kF32, 1);
      },
      "B");
  Expr flops = EstimateFlops(compute::CreatePrimFunc({a, b}, "f"));
  EXPECT_EQ(*AsConstInt(flops), 31 * 3);
}

TEST(EstimateFlops, ScheduledLoopNestCountsTheSame) {
  // The same matmul with its i loop split by hand: the count does not change.
  PrimFunc f = ParsePrimFunc(R"(
@T.prim_func
def mm(A: T.Buffer((64, 16), "float32"), B: T.Buffer((16, 32), "float32"), C: T.Buffer((64, 32), "float32")):
    for i0, i1, j, k in T.grid(8, 8, 32, 16):
        with T.block("C"):
            vi = T.axis.spatial(64, i0 * 8 + i1)
            vj, vk = T.axis.remap("SR", [j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)");
  EXPECT_EQ(*AsConstInt(EstimateFlops(f)), 2 * 64 * 32 * 16);
}

// A sparse kernel's loops run over its structure's rows: the count is its kiln.sparse_flops
// attribute, which the stage-III CSR text writes (2 * nnz * feat; SDDMM + nnz).
TEST(EstimateFlops, ASparseKernelCountsItsAttribute) {
  const std::string spmm = sparse::CsrKernelText({sparse::CsrKernelOp::kSpmm, 5, 4, 9, 8, 1});
  EXPECT_EQ(AsConstInt(EstimateFlops(ParsePrimFunc(spmm))), 2 * 9 * 8);
  const std::string sddmm = sparse::CsrKernelText({sparse::CsrKernelOp::kSddmm, 5, 4, 9, 8, 1});
  EXPECT_DOUBLE_EQ(EstimateFlops(ParsePrimFunc(sddmm), {}), 2 * 9 * 8 + 9);
}

}  // namespace
}  // namespace kiln::ir
