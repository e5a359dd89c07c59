// DecomposeOpsForInference: batch_norm becomes x * scale + shift (the result agrees with the
// legalized batch_norm on random inputs, with constant or parameter statistics, channel axis
// first, inner or last), its projections read the result directly so that conv2d + bias +
// batch_norm + relu prepare into one fused kernel, a tuple read whole stays bound, dropout
// passes its input through (a mask of ones only when read), and other ops stay.
#include "ir/relax/transform/decompose_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/relax/block_builder.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/expr_functor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/relax/well_formed.h"
#include "tests/ir/relax/exec/test_kernels.h"

namespace kiln::ir::relax::transform {
namespace {

constexpr DataType kF32 = DataType::Float(32);

// Op names and projections left in main.
struct Census : ExprVisitor {
  using ExprVisitor::VisitExpr_;
  void VisitExpr_(const CallNode* op) override {
    if (!op->op.empty()) ops.push_back(op->op);
    ExprVisitor::VisitExpr_(op);
  }
  void VisitExpr_(const TupleGetItemNode* op) override {
    ++projections;
    ExprVisitor::VisitExpr_(op);
  }
  std::vector<std::string> ops;
  int projections = 0;
};

Census Count(const IRModule& m) {
  Census c;
  c.VisitExpr(*m.LookupFunction("main"));
  return c;
}

bool Has(const std::vector<std::string>& ops, const std::string& op) {
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// Positive random values for variances.
Expr PositiveConstant(int64_t n, uint64_t seed) {
  HostTensor t = HostTensor::Random(kF32, {n}, seed);
  for (int64_t i = 0; i < n; ++i) t.SetDouble(i, 0.5 + t.GetDouble(i) * t.GetDouble(i));
  return Constant(t);
}

// The legalized original and the decomposed module agree on `inputs` up to rounding (the two
// compute the same formula in another order).
void ExpectSameResults(const IRModule& original, const IRModule& decomposed,
                       const std::vector<exec::Value>& inputs) {
  EXPECT_NO_THROW(CheckWellFormed(decomposed));
  exec::Value expected = exec::Run(LegalizeOps(original), "main", inputs);
  exec::Value actual = exec::Run(LegalizeOps(decomposed), "main", inputs);
  EXPECT_LT(testing::MaxAbsDiff(expected, actual), 1e-5);
}

// x: (n, 4, 5, 5) -> conv2d 3x3 (4 filters, padding 1) -> channel bias -> batch_norm -> relu,
// with every weight and statistic a constant, as ONNX exports a CNN block.
IRModule ConvBatchNormRelu() {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 4, 5, 5}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Attrs conv;
  conv.Set("padding", {1, 1, 1, 1});
  Var c =
      bb.Emit(Call("nn.conv2d", {x, Constant(HostTensor::Random(kF32, {4, 4, 3, 3}, 1))}, conv));
  Var b = bb.Emit(Call("add", {c, Constant(HostTensor::Random(kF32, {1, 4, 1, 1}, 2))}));
  Var bn = bb.Emit(Call(
      "nn.batch_norm",
      {b, Constant(HostTensor::Random(kF32, {4}, 3)), Constant(HostTensor::Random(kF32, {4}, 4)),
       Constant(HostTensor::Random(kF32, {4}, 5)), PositiveConstant(4, 6)},
      Attrs().Set("epsilon", 1e-3).Set("training", false)));
  Var y = bb.Emit(TupleGetItem(bn, 0));
  Var out = bb.EmitOutput(Call("nn.relu", {y}));
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.Finalize();
}

TEST(DecomposeOpsTest, BatchNormBecomesScaleAndShift) {
  IRModule before = ConvBatchNormRelu();
  IRModule after = DecomposeOpsForInference(before);
  Census c = Count(after);
  EXPECT_FALSE(Has(c.ops, "nn.batch_norm"));
  EXPECT_TRUE(Has(c.ops, "sqrt") && Has(c.ops, "divide") && Has(c.ops, "expand_dims"));
  EXPECT_EQ(c.projections, 0) << "relu reads the decomposed result directly";
  ExpectSameResults(before, after, {testing::RandomTensor({2, 4, 5, 5}, 7)});
}

TEST(DecomposeOpsTest, ConvBiasBatchNormReluPrepareIntoOneKernel) {
  IRModule before = ConvBatchNormRelu();
  IRModule prepared = PrepareModuleForTuning(before);
  std::vector<ExtractedTask> tasks = ExtractTasks(prepared);
  ASSERT_EQ(tasks.size(), 1u) << FormatTaskTable(tasks);
  EXPECT_THAT(tasks[0].name, ::testing::StartsWith("fused_conv2d_add"));
  EXPECT_THAT(tasks[0].name, ::testing::EndsWith("_relu"));
  // Folded statistics: the kernel takes x, the weight, the bias, one scale and one shift, and
  // writes the output.
  EXPECT_EQ(tasks[0].params.size(), 6u) << tasks[0].ShapesString();
  exec::Value x = testing::RandomTensor({2, 4, 5, 5}, 8);
  EXPECT_LT(testing::MaxAbsDiff(exec::Run(LegalizeOps(before), "main", {x}),
                                exec::Run(prepared, "main", {x})),
            1e-5);
}

// batch_norm over `axis` of x with statistics passed as parameters.
IRModule BatchNormWithParameters(std::vector<PrimExpr> shape, int axis) {
  int rank = static_cast<int>(shape.size());
  int64_t channels = *AsConstInt(shape[(axis + rank) % rank]);
  Var x("x", TensorStructInfo(std::move(shape), kF32));
  std::vector<Var> params = {x};
  for (const char* name : {"gamma", "beta", "mean", "var"}) {
    params.push_back(Var(name, TensorStructInfo({DimConst(channels)}, kF32)));
  }
  BlockBuilder bb;
  bb.BeginFunction("main", params);
  bb.BeginDataflow();
  Var bn = bb.Emit(Call("nn.batch_norm", {params[0], params[1], params[2], params[3], params[4]},
                        Attrs().Set("axis", axis).Set("training", false)));
  Var out = bb.EmitOutput(TupleGetItem(bn, 0));
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.Finalize();
}

TEST(DecomposeOpsTest, StatisticsAsParametersAndEveryChannelAxis) {
  struct Case {
    std::vector<int64_t> shape;
    int axis;
  };
  for (const Case& k :
       {Case{{2, 3, 4, 5}, 1}, Case{{2, 3}, 1}, Case{{3, 2, 4}, 0}, Case{{2, 4, 3}, -1}}) {
    SCOPED_TRACE("axis " + std::to_string(k.axis) + " of rank " + std::to_string(k.shape.size()));
    std::vector<PrimExpr> dims;
    for (int64_t d : k.shape) dims.push_back(DimConst(d));
    IRModule before = BatchNormWithParameters(dims, k.axis);
    IRModule after = DecomposeOpsForInference(before);
    EXPECT_FALSE(Has(Count(after).ops, "nn.batch_norm"));
    int rank = static_cast<int>(k.shape.size());
    int64_t c = k.shape[(k.axis + rank) % rank];
    std::vector<exec::Value> in = {testing::RandomTensor(k.shape, 1)};
    for (uint64_t i = 0; i < 4; ++i) in.push_back(testing::RandomTensor({c}, 2 + i));
    // A positive variance.
    HostTensor var = in[4].tensor();
    for (int64_t i = 0; i < c; ++i) var.SetDouble(i, 0.5 + var.GetDouble(i) * var.GetDouble(i));
    in[4] = exec::Value::Tensor(var);
    ExpectSameResults(before, after, in);
  }
}

TEST(DecomposeOpsTest, ATupleReadWholeStaysBound) {
  // The whole (y, mean, var) is returned, and a projection in the next block reads it.
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 3}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var bn = bb.EmitOutput(Call("nn.batch_norm",
                              {x, Constant(HostTensor::Random(kF32, {3}, 1)),
                               Constant(HostTensor::Random(kF32, {3}, 2)),
                               Constant(HostTensor::Random(kF32, {3}, 3)), PositiveConstant(3, 4)},
                              Attrs().Set("training", false)),
                         "bn");
  bb.EndDataflow();
  Var y = bb.Emit(TupleGetItem(bn, 0), "y");
  bb.EndFunction(Tuple({bn, y}));
  IRModule before = bb.Finalize();
  IRModule after = DecomposeOpsForInference(before);
  Census c = Count(after);
  EXPECT_FALSE(Has(c.ops, "nn.batch_norm"));
  EXPECT_EQ(c.projections, 1);
  ExpectSameResults(before, after, {testing::RandomTensor({4, 3}, 5)});
}

TEST(DecomposeOpsTest, DropoutPassesItsInputThrough) {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 3}, kF32));
  for (bool read_mask : {false, true}) {
    SCOPED_TRACE(read_mask ? "mask read" : "mask unread");
    BlockBuilder bb;
    bb.BeginFunction("main", {x});
    bb.BeginDataflow();
    Var d = bb.Emit(Call("nn.dropout", {x}, Attrs().Set("rate", 0.25)));
    Var y = bb.Emit(TupleGetItem(d, 0));
    Var out = read_mask ? bb.EmitOutput(Call("multiply", {y, bb.Emit(TupleGetItem(d, 1))}))
                        : bb.EmitOutput(Call("exp", {y}));
    bb.EndDataflow();
    bb.EndFunction(out);
    IRModule before = bb.Finalize();
    IRModule after = DecomposeOpsForInference(before);
    Census c = Count(after);
    EXPECT_FALSE(Has(c.ops, "nn.dropout"));
    EXPECT_EQ(Has(c.ops, "ones_like"), read_mask);
    EXPECT_EQ(c.projections, 0);
    ExpectSameResults(before, after, {testing::RandomTensor({2, 3}, 6)});
  }
}

TEST(DecomposeOpsTest, OtherOpsStay) {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 8}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var ln = bb.Emit(Call(
      "nn.layer_norm",
      {x, Constant(HostTensor::Random(kF32, {8}, 1)), Constant(HostTensor::Random(kF32, {8}, 2))},
      Attrs().Set("axes", {-1})));
  Var out = bb.EmitOutput(Call("nn.relu", {ln}));
  bb.EndDataflow();
  bb.EndFunction(out);
  IRModule before = bb.Finalize();
  IRModule after = DecomposeOpsForInference(before);
  EXPECT_TRUE(after.LookupFunction("main")->same_as(*before.LookupFunction("main")));
}

}  // namespace
}  // namespace kiln::ir::relax::transform
