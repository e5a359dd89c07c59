// AnnotateTIROpPattern: each pattern kind on kernels shaped as LegalizeOps makes them, the
// multi-block rules (softmax, mean, conv with its pad stage), opaque functions, TVM's codes, and
// the module pass keeping a kernel's own annotation.
#include "ir/relax/transform/annotate_op_pattern.h"

#include <gtest/gtest.h>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/reduce.h"
#include "ir/text/parser.h"
#include "tests/ir/relax/exec/test_kernels.h"

namespace kiln::ir::relax::transform {
namespace {

using compute::Placeholder;
using compute::Tensor;

constexpr DataType kF32 = DataType::Float(32);

ir::PrimFunc Kernel(const std::vector<std::vector<PrimExpr>>& shapes,
                    const testing::KernelBody& body) {
  std::vector<Tensor> inputs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    inputs.push_back(Placeholder(std::string(1, static_cast<char>('A' + i)), shapes[i], kF32));
  }
  std::vector<Tensor> params = inputs;
  params.push_back(body(inputs));
  return compute::CreatePrimFunc(params, "kernel");
}

TEST(AnnotateOpPatternTest, ElementwiseBroadcastInjective) {
  PrimVar n("n", DataType::Int(64));
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}, {n, 8}}, testing::AddKernel)), OpPattern::kElemWise);
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}}, testing::GeluKernel)), OpPattern::kElemWise);
  // x + b[j]: an elementwise load with a broadcast one is elementwise, as in TVM.
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}, {8}}, testing::BiasAddKernel)), OpPattern::kElemWise);
  // x[i, j] - c[i, 0]: the unit dim indexed by 0 is skipped.
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}, {n, 1}}, testing::SubColumnKernel)),
            OpPattern::kElemWise);
  // Only a broadcast load: out[i, j] = b[j].
  auto broadcast = [](const std::vector<Tensor>& in) {
    return compute::Compute(
        {IntImm(DataType::Int(64), 3), in[0].shape()[0]},
        [&](ir::Var, ir::Var j) { return in[0](j); }, "T_broadcast_to");
  };
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{8}}, broadcast)), OpPattern::kBroadcast);
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 2, 8}}, testing::PermuteKernel({1, 0, 2}))),
            OpPattern::kInjective);
  auto to_heads = [](const std::vector<PrimExpr>& s) {
    return std::vector<PrimExpr>{s[0], IntImm(DataType::Int(64), 2), IntImm(DataType::Int(64), 8)};
  };
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 16}}, testing::ReshapeKernel(to_heads))),
            OpPattern::kInjective);
}

TEST(AnnotateOpPatternTest, Reductions) {
  PrimVar n("n", DataType::Int(64));
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}}, testing::SumKernel)), OpPattern::kCommReduce);
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}, {8, 4}}, testing::MatmulKernel)),
            OpPattern::kOutEWiseFusable);
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{2, n, 8}, {2, 8, n}}, testing::BatchMatmulKernel)),
            OpPattern::kOutEWiseFusable);
  // An elementwise output stage after a reduction: TVM's rule for softmax and mean.
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{n, 8}}, testing::MeanKernel)), OpPattern::kOutEWiseFusable);
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{2, n, n}}, testing::SoftmaxKernel)),
            OpPattern::kOutEWiseFusable);
  // A pad stage (injective) and a multiply-add reduction over it.
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{1, 3, 8, 8}, {4, 3, 3, 3}}, testing::Conv2dKernel)),
            OpPattern::kOutEWiseFusable);
  // Pooling reads h * 2 + rh: not a pure reduction.
  EXPECT_EQ(AnalyzeOpPattern(Kernel({{1, 4, 8, 8}}, testing::MaxPool2x2Kernel)),
            OpPattern::kOutEWiseFusable);
}

TEST(AnnotateOpPatternTest, MatmulWithCastsStaysFusable) {
  Tensor a = Placeholder("A", {4, 8}, DataType::Int(8));
  Tensor b = Placeholder("B", {8, 4}, DataType::Int(8));
  IterVar k = compute::ReduceAxis(8, "k");
  Tensor c = compute::Compute(
      {4, 4},
      [&](ir::Var i, ir::Var j) {
        return compute::Sum(
            ir::Cast(DataType::Int(32), a(i, k.var)) * ir::Cast(DataType::Int(32), b(k.var, j)),
            {k});
      },
      "matmul");
  EXPECT_EQ(AnalyzeOpPattern(compute::CreatePrimFunc({a, b, c}, "qmatmul")),
            OpPattern::kOutEWiseFusable);
}

TEST(AnnotateOpPatternTest, OpaqueFunctions) {
  // A store whose index is not an iteration variable, and a block with two stores.
  ir::PrimFunc scatter = ParsePrimFunc(R"(
@T.prim_func
def scatter(A: T.Buffer((4,), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi * 2] = A[vi]
)");
  EXPECT_EQ(AnalyzeOpPattern(scatter), OpPattern::kOpaque);
  ir::PrimFunc two_stores = ParsePrimFunc(R"(
@T.prim_func
def two_stores(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.block("B"):
            vi = T.axis.spatial(4, i)
            B[vi] = A[vi]
            C[3 - vi] = A[vi]
)");
  EXPECT_EQ(AnalyzeOpPattern(two_stores), OpPattern::kOpaque);
  // No block at all: nothing a schedule or fusion could work with.
  ir::PrimFunc loops = ParsePrimFunc(R"(
@T.prim_func
def loops(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i]
)");
  EXPECT_EQ(AnalyzeOpPattern(loops), OpPattern::kOpaque);
}

TEST(AnnotateOpPatternTest, CodesAndModulePass) {
  EXPECT_EQ(OpPatternCode(OpPattern::kElemWise), 0);
  EXPECT_EQ(OpPatternCode(OpPattern::kBroadcast), 1);
  EXPECT_EQ(OpPatternCode(OpPattern::kInjective), 2);
  EXPECT_EQ(OpPatternCode(OpPattern::kCommReduce), 3);
  EXPECT_EQ(OpPatternCode(OpPattern::kOutEWiseFusable), 4);
  EXPECT_EQ(OpPatternCode(OpPattern::kOpaque), 8);
  EXPECT_EQ(OpPatternFromCode(4), OpPattern::kOutEWiseFusable);
  EXPECT_FALSE(OpPatternFromCode(7).has_value());

  PrimVar n("n", DataType::Int(64));
  IRModule mod;
  mod.Add("matmul", Kernel({{n, 8}, {8, 4}}, testing::MatmulKernel));
  // A kernel annotated by its author keeps its annotation.
  mod.Add("add", WithOpPattern(Kernel({{n, 8}, {n, 8}}, testing::AddKernel), OpPattern::kOpaque));
  IRModule annotated = AnnotateTIROpPattern(mod);
  const ir::PrimFunc* mm = annotated.LookupPrimFunc("matmul");
  ASSERT_NE(mm, nullptr);
  EXPECT_EQ(GetOpPattern(*mm), OpPattern::kOutEWiseFusable);
  EXPECT_TRUE(IsConstInt((*mm)->attrs.at(kOpPatternAttr), 4));
  EXPECT_EQ(GetOpPattern(*annotated.LookupPrimFunc("add")), OpPattern::kOpaque);
  EXPECT_FALSE(GetOpPattern(*mod.LookupPrimFunc("matmul")).has_value());
}

}  // namespace
}  // namespace kiln::ir::relax::transform
