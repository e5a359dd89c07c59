// Symbolic dim canonicalization and struct info: printing, equality, hashing, matching.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

#include "ir/relax/dim.h"
#include "ir/relax/struct_info.h"
#include "ir/relax/struct_info_util.h"

namespace kiln::ir::relax {
namespace {

class RelaxDimTest : public ::testing::Test {
 protected:
  PrimVar n = SymbolicDim("n");
  PrimVar m = SymbolicDim("m");
  PrimVar seq = SymbolicDim("seq");
  std::string S(const PrimExpr& e) { return DimToString(SimplifyDim(e)); }
};

TEST_F(RelaxDimTest, FoldsCoefficientsAndLikeTerms) {
  EXPECT_EQ(S(n * 4 * 3), "n * 12");
  EXPECT_EQ(S(n * 12 + n * 4), "n * 16");
  EXPECT_EQ(S(n * 2 - n * 2 + 7), "7");
  EXPECT_EQ(S((n + 1) * 2), "n * 2 + 2");
  EXPECT_EQ(S(m + n), S(n + m));
  EXPECT_EQ(S(n * m), S(m * n));
}

// INT64_MIN (ONNX's "from the very start" in a Slice) has no magnitude in int64: it is added
// with its sign rather than subtracted by its magnitude.
TEST_F(RelaxDimTest, TheSmallestInt64StaysWhole) {
  const int64_t smallest = std::numeric_limits<int64_t>::min();
  EXPECT_EQ(S(DimConst(smallest)), std::to_string(smallest));
  EXPECT_EQ(S(n + DimConst(smallest)), "n + " + std::to_string(smallest));
  EXPECT_EQ(S(n - 5), "n - 5");
}

TEST_F(RelaxDimTest, FloorDivAndModFoldWhenExact) {
  EXPECT_EQ(S(FloorDiv(seq, 2)), "seq // 2");
  EXPECT_EQ(S(FloorDiv(n * 8 + 4, 4)), "n * 2 + 1");
  EXPECT_EQ(S(FloorDiv(n * 8 + 5, 4)), "n * 2 + 1");
  EXPECT_EQ(S(FloorMod(n * 6 + 5, 3)), "2");
  EXPECT_EQ(S(FloorDiv(n - 1, 2) + 1), "(n - 1) // 2 + 1");
  EXPECT_EQ(S(FloorDiv(PrimExpr(7), -2)), "-4");
  EXPECT_EQ(S(FloorDiv(n * m * 6, n * 3)), "m * 2");
}

TEST_F(RelaxDimTest, MinMaxOfKnownDifference) {
  EXPECT_EQ(S(Min(n, n + 1)), "n");
  EXPECT_EQ(S(Max(n, n + 1)), "n + 1");
  EXPECT_EQ(S(Max(n, m)), "T.max(n, m)");
}

TEST_F(RelaxDimTest, ProofsAndExactDivision) {
  EXPECT_TRUE(ProveDimEqual(n * 2 + n, n * 3));
  EXPECT_TRUE(ProveDimEqual(FloorDiv(n * 4, 2), n * 2));
  EXPECT_FALSE(ProveDimEqual(n, m));
  EXPECT_TRUE(ProveDimNotEqual(n, n + 1));
  EXPECT_TRUE(ProveDimNotEqual(PrimExpr(768), PrimExpr(512)));
  EXPECT_FALSE(ProveDimNotEqual(n, m));
  auto q = DivideDimExact(n * 768, n);
  ASSERT_TRUE(q.has_value());
  EXPECT_EQ(DimToString(*q), "768");
  EXPECT_FALSE(DivideDimExact(n * 768 + 1, n).has_value());
  EXPECT_FALSE(DivideDimExact(PrimExpr(24), PrimExpr(5)).has_value());
  EXPECT_EQ(DimToString(DimProduct({n, PrimExpr(12), PrimExpr(64)})), "n * 768");
}

TEST_F(RelaxDimTest, ShapeVariablesAreNonNegative) {
  // Settled by the arith analyzer knowing that n >= 0; the polynomial form alone cannot.
  EXPECT_TRUE(ProveDimNotEqual(n + 1, PrimExpr(0)));
  EXPECT_TRUE(ProveDimNotEqual(n * 2 + 3, PrimExpr(1)));
  EXPECT_FALSE(ProveDimNotEqual(n * 2, PrimExpr(0)));
  EXPECT_EQ(S(Min(n, n * 2)), "n");
  EXPECT_EQ(S(Max(n + m, m)), "m + n");
}

TEST_F(RelaxDimTest, NarrowDimsAreWidened) {
  PrimExpr d = ToDim(PrimExpr(3));
  EXPECT_EQ(d.dtype(), DataType::Int(64));
  EXPECT_THROW(ToDim(FloatImm(DataType::Float(32), 1.0)), Error);
}

TEST_F(RelaxDimTest, StructInfoPrintsLikeTVMScript) {
  DataType f32 = DataType::Float(32);
  EXPECT_EQ(TensorStructInfo({n, 768}, "float32").ToString(), "R.Tensor((n, 768), \"float32\")");
  EXPECT_EQ(TensorStructInfo({n * 4 * 3}, f32).ToString(), "R.Tensor((n * 12,), \"float32\")");
  EXPECT_EQ(TensorStructInfo(f32, 2).ToString(), "R.Tensor(\"float32\", ndim=2)");
  EXPECT_EQ(TensorStructInfo(DataType::Void(), kUnknownNDim).ToString(), "R.Tensor(ndim=-1)");
  EXPECT_EQ(TensorStructInfo(std::vector<PrimExpr>{}, f32).ToString(), "R.Tensor((), \"float32\")");
  EXPECT_EQ(ShapeStructInfo({n, 4}).ToString(), "R.Shape([n, 4])");
  EXPECT_EQ(ShapeStructInfo(3).ToString(), "R.Shape(ndim=3)");
  EXPECT_EQ(PrimStructInfo(DataType::Int(64)).ToString(), "R.Prim(\"int64\")");
  EXPECT_EQ(PrimStructInfo(n * 2).ToString(), "R.Prim(value=n * 2)");
  EXPECT_EQ(
      TupleStructInfo({TensorStructInfo({2}, DataType::Int(64)), ObjectStructInfo()}).ToString(),
      "R.Tuple(R.Tensor((2,), \"int64\"), R.Object)");
  StructInfo t = TensorStructInfo({n}, f32);
  EXPECT_EQ(FuncStructInfo({t}, t).ToString(),
            "R.Callable((R.Tensor((n,), \"float32\"),), R.Tensor((n,), \"float32\"))");
  EXPECT_THROW(TensorStructInfo({n}, "floaty"), Error);
  EXPECT_THROW(TensorStructInfo({n, PrimExpr(2) - 5}, "float32"), Error);
}

TEST_F(RelaxDimTest, EqualityComparesShapeVariablesByIdentity) {
  EXPECT_TRUE(StructInfoEqual(TensorStructInfo({n, 768}, "float32"),
                              TensorStructInfo({n, 256 * 3}, "float32")));
  EXPECT_FALSE(StructInfoEqual(TensorStructInfo({n, 768}, "float32"),
                               TensorStructInfo({m, 768}, "float32")));
  EXPECT_FALSE(StructInfoEqual(TensorStructInfo({n, 768}, "float32"),
                               TensorStructInfo({n, 768}, "float16")));
  EXPECT_FALSE(
      StructInfoEqual(TensorStructInfo({n}, "float32"), TensorStructInfo(DataType::Float(32), 1)));
}

TEST_F(RelaxDimTest, StructuralEqualityRenamesShapeVariablesConsistently) {
  PrimVar k = SymbolicDim("k");
  StructInfo nn = TensorStructInfo({n, n}, "float32");
  StructInfo mm = TensorStructInfo({m, m}, "float32");
  StructInfo mk = TensorStructInfo({m, k}, "float32");
  EXPECT_TRUE(StructInfoStructuralEqual(nn, mm));
  EXPECT_FALSE(StructInfoStructuralEqual(nn, mk));
  EXPECT_EQ(StructInfoStructuralHash(nn), StructInfoStructuralHash(mm));
  EXPECT_NE(StructInfoStructuralHash(nn), StructInfoStructuralHash(mk));
  EXPECT_TRUE(StructInfoStructuralEqual(TupleStructInfo({nn, TensorStructInfo({n * 2}, "int32")}),
                                        TupleStructInfo({mm, TensorStructInfo({m * 2}, "int32")})));
}

TEST_F(RelaxDimTest, CanMatchRejectsOnlyProvableMismatches) {
  StructInfo pattern = TensorStructInfo({n, 4}, "float32");
  EXPECT_TRUE(CanMatch(pattern, TensorStructInfo(DataType::Float(32), 2)));
  EXPECT_TRUE(CanMatch(pattern, TensorStructInfo({7, 4}, "float32")));
  EXPECT_FALSE(CanMatch(pattern, TensorStructInfo({3, 5}, "float32")));
  EXPECT_FALSE(CanMatch(pattern, TensorStructInfo({3, 4}, "int32")));
  EXPECT_FALSE(CanMatch(pattern, TensorStructInfo(DataType::Float(32), 3)));
  EXPECT_TRUE(CanMatch(ObjectStructInfo(), ShapeStructInfo(2)));
  EXPECT_FALSE(CanMatch(pattern, ShapeStructInfo(2)));
}

TEST_F(RelaxDimTest, SymbolicVarsAndSubstitution) {
  StructInfo s =
      TupleStructInfo({TensorStructInfo({n, m}, "float32"), TensorStructInfo({m * 2}, "float32")});
  std::vector<PrimVar> vars = SymbolicVars(s);
  ASSERT_EQ(vars.size(), 2u);
  EXPECT_TRUE(vars[0].same_as(n));
  EXPECT_TRUE(vars[1].same_as(m));
  DimBindings b;
  BindSymbolicDims(TensorStructInfo({n, m}, "float32"), TensorStructInfo({16, seq}, "float32"), b);
  EXPECT_EQ(SubstituteDims(s, b).ToString(),
            "R.Tuple(R.Tensor((16, seq), \"float32\"), R.Tensor((seq * 2,), \"float32\"))");
}

}  // namespace
}  // namespace kiln::ir::relax
