// FoldConstant and DeadCodeElimination: constant kernels evaluated at compile time (chains,
// tuples, limits, failures left for run time), and dead bindings, blocks and functions removed
// while match_casts that define shape variables and bindings outside dataflow blocks stay.
#include "ir/relax/transform/fold_constant.h"

#include <gtest/gtest.h>

#include "ir/compute/create_prim_func.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/transform/dead_code_elimination.h"
#include "ir/relax/transform/fuse_ops.h"
#include "ir/relax/well_formed.h"
#include "tests/ir/relax/exec/test_kernels.h"
#include "tests/ir/relax/transform/test_graphs.h"

namespace kiln::ir::relax::transform {
namespace {

constexpr DataType kF32 = DataType::Float(32);

const std::vector<Binding>& MainBindings(const IRModule& m, size_t block = 0) {
  return (*m.LookupFunction("main"))->body.as<SeqExprNode>()->blocks.at(block).bindings;
}

bool IsCallTIR(const Expr& e) {
  const auto* c = e.as<CallNode>();
  return c != nullptr && c->op == "call_tir";
}

TEST(FoldConstantTest, ConstantTransposeIsComputedOnce) {
  testing::TestModel model = testing::ConstantWeightModel();
  IRModule folded = FoldConstant(model.module);
  const std::vector<Binding>& b = MainBindings(folded);
  ASSERT_EQ(b.size(), 4u);
  const auto* c = b[0].value.as<ConstantNode>();
  ASSERT_NE(c, nullptr);
  // The folded value is the transpose of the weight.
  const Expr& w =
      MainBindings(model.module)[0].value.as<CallNode>()->args[1].as<TupleNode>()->fields[0];
  const HostTensor& wt = w.as<ConstantNode>()->data;
  ASSERT_EQ(c->data.shape(), (std::vector<int64_t>{6, 5}));
  for (int64_t i = 0; i < 6; ++i) {
    for (int64_t j = 0; j < 5; ++j)
      EXPECT_EQ(c->data.GetDouble(i * 5 + j), wt.GetDouble(j * 6 + i));
  }
  for (size_t i = 1; i < b.size(); ++i) EXPECT_TRUE(IsCallTIR(b[i].value));
  // The kernel stays until dead code elimination.
  EXPECT_NE(folded.LookupPrimFunc("transpose"), nullptr);
  IRModule clean = DeadCodeElimination(folded);
  EXPECT_EQ(clean.LookupPrimFunc("transpose"), nullptr);
  EXPECT_EQ(MainBindings(clean).size(), 4u);  // the folded weight is still read by the matmul
  std::vector<exec::Value> in = model.Inputs(3, 1);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(model.module, "main", in), exec::Run(clean, "main", in)),
            0.0);
}

// c -> exp -> split (two outputs) -> add of the halves, all constant; x only enters at the end.
IRModule ConstantChain() {
  HostTensor c = HostTensor::Random(kF32, {2, 8}, 5);
  Var x("x", TensorStructInfo({2, 4}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var e = testing::EmitTIR(bb, "exp", {Constant(c)}, testing::ExpKernel);
  Var halves = testing::EmitTIRMulti(bb, "split", {e}, testing::SplitLastAxisKernel);
  Var lo = bb.Emit(TupleGetItem(halves, 0));
  Var hi = bb.Emit(TupleGetItem(halves, 1));
  Var sum = testing::EmitTIR(bb, "add", {lo, hi}, testing::AddKernel);
  Var out = testing::EmitTIR(bb, "add", {sum, x}, testing::AddKernel, true);
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.Finalize();
}

TEST(FoldConstantTest, ChainsAndTuplesFold) {
  IRModule before = ConstantChain();
  IRModule folded = FoldConstant(before);
  const std::vector<Binding>& b = MainBindings(folded);
  ASSERT_EQ(b.size(), 6u);
  EXPECT_NE(b[0].value.as<ConstantNode>(), nullptr);
  const auto* tuple = b[1].value.as<TupleNode>();
  ASSERT_NE(tuple, nullptr);
  EXPECT_EQ(tuple->fields.size(), 2u);
  for (size_t i = 2; i < 5; ++i) EXPECT_NE(b[i].value.as<ConstantNode>(), nullptr) << i;
  EXPECT_TRUE(IsCallTIR(b[5].value));
  exec::Value x = testing::RandomTensor({2, 4}, 8);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(before, "main", {x}), exec::Run(folded, "main", {x})),
            0.0);
  IRModule clean = DeadCodeElimination(folded);
  EXPECT_EQ(MainBindings(clean).size(), 2u);
  EXPECT_EQ(clean.size(), 2u);  // main and the last add
}

TEST(FoldConstantTest, LimitsLeaveLargeOrCostlyKernels) {
  IRModule before = ConstantChain();
  FoldConstantOptions small;
  small.max_output_elements = 8;  // exp's output has 16
  EXPECT_TRUE(IsCallTIR(MainBindings(FoldConstant(before, small))[0].value));
  FoldConstantOptions cheap;
  cheap.max_flops = 4;  // exp costs 16
  EXPECT_TRUE(IsCallTIR(MainBindings(FoldConstant(before, cheap))[0].value));
}

TEST(FoldConstantTest, NonConstantAndSymbolicCallsStay) {
  testing::TestModel model = testing::MlpModel(1);
  IRModule folded = FoldConstant(model.module);
  for (const Binding& b : MainBindings(folded)) EXPECT_TRUE(IsCallTIR(b.value));
}

TEST(FoldConstantTest, AKernelThatFailsIsLeftForRunTime) {
  // A kernel that reads past its input fails in the interpreter: folding leaves it (with a
  // warning) and running the model reports the error at the binding.
  compute::Tensor a = compute::Placeholder("A", {4}, kF32);
  compute::Tensor out = compute::Compute(
      {4}, [&](ir::Var i) { return a(i + 1); }, "shifted");
  IRModule mod;
  GlobalVar shifted = mod.Add("shifted", compute::CreatePrimFunc({a, out}, "shifted"));
  BlockBuilder bb(mod);
  bb.BeginFunction("main", {});
  Var y = bb.Emit(
      CallTIR(shifted, {Constant(HostTensor(kF32, {4}))}, {TensorStructInfo({4}, kF32)}), "y");
  bb.EndFunction(y);
  IRModule folded = FoldConstant(bb.Finalize());
  EXPECT_TRUE(IsCallTIR(MainBindings(folded)[0].value));
  EXPECT_THROW(exec::Run(folded, "main", {}), Error);
}

TEST(DeadCodeEliminationTest, BindingsBlocksAndFunctions) {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 4}, kF32));
  BlockBuilder bb;
  // A helper nobody calls, and a kernel only it calls.
  Var hx("hx", TensorStructInfo({n, 4}, kF32));
  bb.BeginFunction("unused_helper", {hx}, Attrs().Set("Primitive", int64_t{1}));
  bb.BeginDataflow();
  Var hr = testing::EmitTIR(bb, "helper_exp", {hx}, testing::ExpKernel, true);
  bb.EndDataflow();
  bb.EndFunction(hr);
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var dead1 = testing::EmitTIR(bb, "relu", {x}, testing::ReluKernel);
  testing::EmitTIR(bb, "exp", {dead1}, testing::ExpKernel);  // uses dead1 only
  PrimVar m = SymbolicDim("m");
  bb.EmitMatchCast(x, TensorStructInfo({m, 4}, kF32), "cast");  // defines m
  Var live = testing::EmitTIR(bb, "exp", {x}, testing::ExpKernel, true);
  bb.EndDataflow();
  // Outside a dataflow block a binding may have effects: kept although unused.
  testing::EmitTIR(bb, "relu", {live}, testing::ReluKernel);
  bb.BeginDataflow();
  testing::EmitTIR(bb, "relu", {live}, testing::ReluKernel);
  bb.EndDataflow();
  bb.EndFunction(live);
  IRModule before = bb.Finalize();

  IRModule after = DeadCodeElimination(before);
  EXPECT_NO_THROW(CheckWellFormed(after));
  const auto* seq = (*after.LookupFunction("main"))->body.as<SeqExprNode>();
  ASSERT_EQ(seq->blocks.size(), 2u);  // the last dataflow block became empty
  ASSERT_EQ(seq->blocks[0].bindings.size(), 2u);
  EXPECT_TRUE(seq->blocks[0].bindings[0].is_match_cast());
  EXPECT_EQ(seq->blocks[0].bindings[1].var.name(), live.name());
  EXPECT_EQ(seq->blocks[1].bindings.size(), 1u);
  EXPECT_FALSE(after.Contains("unused_helper"));
  EXPECT_FALSE(after.Contains("helper_exp"));
  EXPECT_FALSE(after.Contains("relu"));  // only dead bindings called it
  EXPECT_TRUE(after.Contains("exp1"));
  EXPECT_TRUE(after.Contains("relu1"));

  // Explicit entry points keep what they reach; an unknown one is an error.
  EXPECT_TRUE(DeadCodeElimination(before, {"main", "unused_helper"}).Contains("helper_exp"));
  EXPECT_THROW(DeadCodeElimination(before, {"nothing"}), Error);
  // A module of kernels only has no entry point: nothing is removed.
  IRModule kernels;
  kernels.Add("k", *before.LookupPrimFunc("relu"));
  EXPECT_EQ(DeadCodeElimination(kernels).size(), 1u);
}

}  // namespace
}  // namespace kiln::ir::relax::transform
