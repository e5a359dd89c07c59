// FuseOps and FuseTIR: golden text of the module before and after each pass (an MLP layer, a
// conv chain, a group whose shape variable must be passed as tir_vars), the boundaries fusion
// does not cross, the depth limit, multi-output kernels (hand-written, and split as LegalizeOps
// makes it: its fields leave a group one by one, or the whole tuple field by field),
// deduplication of identical groups, and fused kernels that the schedule primitives and the
// interpreter accept.
#include "ir/relax/transform/fuse_ops.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/interpreter/random_inputs.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/relax/well_formed.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"
#include "tests/ir/relax/exec/test_kernels.h"
#include "tests/ir/relax/transform/golden.h"
#include "tests/ir/relax/transform/test_graphs.h"

namespace kiln::ir::relax::transform {
namespace {

using testing::CheckGolden;
using testing::EmitTIR;

constexpr DataType kF32 = DataType::Float(32);

std::vector<std::string> PrimFuncNames(const IRModule& m) {
  std::vector<std::string> out;
  for (const std::string& name : m.names()) {
    if (m.LookupPrimFunc(name) != nullptr) out.push_back(name);
  }
  return out;
}

std::vector<std::string> PrimitiveNames(const IRModule& m) {
  std::vector<std::string> out;
  for (const std::string& name : m.names()) {
    const Function* f = m.LookupFunction(name);
    if (f != nullptr && IsPrimitiveFunction(*f)) out.push_back(name);
  }
  return out;
}

// The call_tir callees of main's bindings, in order.
std::vector<std::string> MainCalls(const IRModule& m) {
  std::vector<std::string> out;
  const auto* seq = (*m.LookupFunction("main"))->body.as<SeqExprNode>();
  for (const BindingBlock& block : seq->blocks) {
    for (const Binding& b : block.bindings) {
      const auto* call = b.value.as<CallNode>();
      if (call == nullptr) continue;
      if (call->op == "call_tir") {
        out.push_back(call->args[0].as<GlobalVarNode>()->name);
      } else if (const auto* g = call->callee.as<GlobalVarNode>()) {
        out.push_back(g->name + "()");
      }
    }
  }
  return out;
}

TEST(FuseOpsTest, MlpLayerGolden) {
  IRModule annotated = AnnotateTIROpPattern(testing::MlpModel(1).module);
  EXPECT_EQ(CheckGolden("mlp_annotated.relax", annotated), "");
  IRModule fused = FuseOps(annotated);
  EXPECT_NO_THROW(CheckWellFormed(fused));
  EXPECT_EQ(PrimitiveNames(fused),
            (std::vector<std::string>{"fused_matmul_add_gelu", "fused_matmul1_add1_relu"}));
  EXPECT_EQ(MainCalls(fused),
            (std::vector<std::string>{"fused_matmul_add_gelu()", "fused_matmul1_add1_relu()"}));
  EXPECT_EQ(CheckGolden("mlp_fuse_ops.relax", fused), "");
  IRModule tir = FuseTIR(fused);
  EXPECT_NO_THROW(CheckWellFormed(tir));
  EXPECT_EQ(PrimFuncNames(tir),
            (std::vector<std::string>{"fused_matmul_add_gelu", "fused_matmul1_add1_relu"}));
  EXPECT_TRUE(PrimitiveNames(tir).empty());
  EXPECT_EQ(CheckGolden("mlp_fuse_tir.relax", tir), "");
}

TEST(FuseOpsTest, ConvChainGolden) {
  IRModule annotated = AnnotateTIROpPattern(testing::ConvModel().module);
  IRModule fused = FuseOps(annotated);
  // Pooling is out-elementwise-fusable itself: it is not an epilogue of the conv.
  EXPECT_EQ(MainCalls(fused), (std::vector<std::string>{"fused_conv2d_add_relu()", "max_pool2d"}));
  IRModule tir = FuseTIR(fused);
  EXPECT_EQ(MainCalls(tir), (std::vector<std::string>{"fused_conv2d_add_relu", "max_pool2d"}));
  EXPECT_EQ(CheckGolden("conv_fuse_tir.relax", tir), "");
}

// reshape (n * 4,) -> (n, 4), exp, reshape back: the intermediate (n, 4) needs n, which no
// parameter buffer has as a whole dim, so the merged kernel takes it through tir_vars.
IRModule ReshapeRoundTrip() {
  PrimVar n = SymbolicDim("n");
  Var s("s", ShapeStructInfo({n}));
  Var x("x", TensorStructInfo({n * 4}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {s, x});
  bb.BeginDataflow();
  auto rows = [](const std::vector<PrimExpr>& in) {
    PrimExpr four = IntImm(DataType::Int(64), 4);
    return std::vector<PrimExpr>{ir::FloorDiv(in[0], four), four};
  };
  auto flat = [](const std::vector<PrimExpr>& in) { return std::vector<PrimExpr>{in[0] * in[1]}; };
  Var r = EmitTIR(bb, "reshape", {x}, testing::ReshapeKernel(rows));
  Var e = EmitTIR(bb, "exp", {r}, testing::ExpKernel);
  Var out = EmitTIR(bb, "reshape", {e}, testing::ReshapeKernel(flat), true);
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.Finalize();
}

TEST(FuseOpsTest, ShapeVariablesNotInBuffersBecomeTirVars) {
  IRModule before = AnnotateTIROpPattern(ReshapeRoundTrip());
  IRModule after = FuseTIR(FuseOps(before));
  EXPECT_EQ(MainCalls(after), (std::vector<std::string>{"fused_reshape_exp_reshape1"}));
  const ir::PrimFunc* f = after.LookupPrimFunc("fused_reshape_exp_reshape1");
  ASSERT_NE(f, nullptr);
  ASSERT_EQ((*f)->params.size(), 3u);  // x, the output, and n
  EXPECT_FALSE((*f)->BufferOf((*f)->params[2]).has_value());
  EXPECT_EQ(CheckGolden("reshape_tir_vars_fuse_tir.relax", after), "");
  exec::Value s = exec::Value::Shape({3});
  exec::Value x = testing::RandomTensor({12}, 5);
  EXPECT_EQ(
      testing::MaxAbsDiff(exec::Run(before, "main", {s, x}), exec::Run(after, "main", {s, x})),
      0.0);
}

TEST(FuseOpsTest, BoundariesAreNotCrossed) {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 4}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var a = EmitTIR(bb, "exp", {x}, testing::ExpKernel);
  Var b = EmitTIR(bb, "relu", {a}, testing::ReluKernel);
  // A match_cast reads b: b is used outside the exp-relu chain.
  PrimVar m = SymbolicDim("m");
  Var c = bb.EmitMatchCast(b, TensorStructInfo({m, 4}, kF32), "c");
  Var d = EmitTIR(bb, "exp", {c}, testing::ExpKernel);
  Var e = EmitTIR(bb, "relu", {d}, testing::ReluKernel, true);
  bb.EndDataflow();
  // Outside a dataflow block nothing is fused.
  Var f = EmitTIR(bb, "exp", {e}, testing::ExpKernel);
  Var g = EmitTIR(bb, "relu", {f}, testing::ReluKernel);
  bb.EndFunction(g);
  IRModule before = AnnotateTIROpPattern(bb.Finalize());
  IRModule after = FuseOps(before);
  EXPECT_EQ(MainCalls(after),
            (std::vector<std::string>{"fused_exp_relu()", "fused_exp1_relu1()", "exp2", "relu2"}));
  exec::Value xv = testing::RandomTensor({3, 4}, 1);
  IRModule tir = FuseTIR(after);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(before, "main", {xv}), exec::Run(tir, "main", {xv})), 0);
}

TEST(FuseOpsTest, UnannotatedAndOpaqueKernelsStayAlone) {
  // Without AnnotateTIROpPattern every kernel is opaque.
  IRModule plain = testing::MlpModel(1).module;
  EXPECT_EQ(MainCalls(FuseOps(plain)), MainCalls(plain));
  // An opaque kernel in the middle splits the chain.
  IRModule annotated = AnnotateTIROpPattern(plain);
  annotated.Update("add", WithOpPattern(*annotated.LookupPrimFunc("add"), OpPattern::kOpaque));
  EXPECT_EQ(MainCalls(FuseOps(annotated)),
            (std::vector<std::string>{"matmul", "add", "gelu", "fused_matmul1_add1_relu()"}));
}

TEST(FuseOpsTest, DepthLimit) {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 4}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var h = x;
  for (int i = 0; i < 6; ++i) h = EmitTIR(bb, "exp", {h}, testing::ExpKernel, i == 5);
  bb.EndDataflow();
  bb.EndFunction(h);
  IRModule before = AnnotateTIROpPattern(bb.Finalize());
  EXPECT_EQ(MainCalls(FuseOps(before)).size(), 1u);
  FuseOpsOptions limited;
  limited.max_fuse_depth = 2;
  std::vector<std::string> calls = MainCalls(FuseOps(before, limited));
  EXPECT_EQ(calls.size(), 3u);
  for (const std::string& c : calls) EXPECT_THAT(c, ::testing::StartsWith("fused_exp"));
  FuseOpsOptions invalid;
  invalid.max_fuse_depth = 0;
  EXPECT_THROW(FuseOps(before, invalid), Error);
}

TEST(FuseOpsTest, MultiOutputKernelJoinsItsConsumers) {
  PrimVar n = SymbolicDim("n");
  Var x("x", TensorStructInfo({n, 8}, kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var halves = testing::EmitTIRMulti(bb, "split", {x}, testing::SplitLastAxisKernel);
  Var lo = bb.Emit(TupleGetItem(halves, 0));
  Var hi = bb.Emit(TupleGetItem(halves, 1));
  Var sum = EmitTIR(bb, "add", {lo, hi}, testing::AddKernel, true);
  bb.EndDataflow();
  bb.EndFunction(sum);
  IRModule before = AnnotateTIROpPattern(bb.Finalize());
  IRModule fused = FuseOps(before);
  EXPECT_EQ(MainCalls(fused), (std::vector<std::string>{"fused_split_add()"}));
  IRModule tir = FuseTIR(fused);
  EXPECT_EQ(PrimFuncNames(tir), (std::vector<std::string>{"fused_split_add"}));
  exec::Value xv = testing::RandomTensor({3, 8}, 2);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(before, "main", {xv}), exec::Run(tir, "main", {xv})), 0);
}

// A module of real ops, legalized (R.split becomes one call_tir with an output per part) and
// annotated, ready for FuseOps.
IRModule LegalizedText(const std::string& body, const std::string& ret) {
  std::string text = R"(
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 8), dtype="float32")) -> )" +
                     ret + R"(:
        n = T.int64()
        with R.dataflow():
)" + body + "        return out\n";
  return AnnotateTIROpPattern(LegalizeOps(ParseModule(text, "<split>")));
}

// Fuses `before` and checks that the fused module computes the same on random inputs (n = 3).
IRModule FuseAndCompare(const IRModule& before) {
  IRModule fused = FuseOps(before);
  EXPECT_NO_THROW(CheckWellFormed(fused));
  IRModule tir = FuseTIR(fused);
  EXPECT_NO_THROW(CheckWellFormed(tir));
  exec::Value xv = testing::RandomTensor({3, 8}, 4);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(before, "main", {xv}), exec::Run(tir, "main", {xv})), 0);
  return tir;
}

TEST(FuseOpsTest, SplitFieldsJoinTheGroupOfTheSplit) {
  // exp -> split, and each half to an output of its own: no consumer post-dominates the split,
  // so exp and split fuse and the projections join them, one result per half.
  IRModule before = LegalizedText(R"(
            e = R.exp(x)
            s = R.split(e, indices_or_sections=2, axis=1)
            a = s[0]
            b = s[1]
            ra = R.nn.relu(a)
            rb = R.sigmoid(b)
            out = (ra, rb)
            R.output(out)
)",
                                  "R.Tuple(R.Tensor((\"n\", 4), \"float32\"), "
                                  "R.Tensor((\"n\", 4), \"float32\"))");
  IRModule fused = FuseOps(before);
  EXPECT_EQ(MainCalls(fused), (std::vector<std::string>{"fused_exp_split()", "relu", "sigmoid"}));
  const Function* group = fused.LookupFunction("fused_exp_split");
  ASSERT_NE(group, nullptr);
  const auto* ret = (*group)->body.as<SeqExprNode>()->body.as<TupleNode>();
  ASSERT_NE(ret, nullptr);
  EXPECT_EQ(ret->fields.size(), 2u);
  IRModule tir = FuseAndCompare(before);
  EXPECT_EQ((*tir.LookupPrimFunc("fused_exp_split"))->params.size(), 3u);  // x and two halves
}

TEST(FuseOpsTest, SplitFieldsFuseIntoTheirCommonConsumer) {
  // A gated unit: both halves meet again, so split, sigmoid and multiply are one kernel.
  IRModule before = LegalizedText(R"(
            s = R.split(x, indices_or_sections=2, axis=1)
            a = s[0]
            b = s[1]
            g = R.sigmoid(b)
            out = R.multiply(a, g)
            R.output(out)
)",
                                  "R.Tensor((\"n\", 4), \"float32\")");
  IRModule tir = FuseAndCompare(before);
  EXPECT_EQ(MainCalls(tir), (std::vector<std::string>{"fused_split_sigmoid_multiply"}));
}

TEST(FuseOpsTest, SplitTupleUsedWholeLeavesItsGroupFieldByField) {
  // The tuple s is an output of the block, and a's consumer comes before b: b cannot join the
  // group of exp and split, which returns both halves and rebuilds s from them.
  IRModule before = LegalizedText(R"(
            e = R.exp(x)
            s = R.split(e, indices_or_sections=2, axis=1)
            a = s[0]
            ra = R.nn.relu(a)
            b = s[1]
            rb = R.sigmoid(b)
            c = R.add(ra, rb)
            out = (s, c)
            R.output(out)
)",
                                  "R.Tuple(R.Tuple(R.Tensor((\"n\", 4), \"float32\"), "
                                  "R.Tensor((\"n\", 4), \"float32\")), "
                                  "R.Tensor((\"n\", 4), \"float32\"))");
  IRModule fused = FuseOps(before);
  EXPECT_EQ(MainCalls(fused),
            (std::vector<std::string>{"fused_exp_split()", "fused_relu_sigmoid_add()"}));
  IRModule tir = FuseAndCompare(before);
  EXPECT_EQ(PrimFuncNames(tir),
            (std::vector<std::string>{"fused_exp_split", "fused_relu_sigmoid_add"}));
}

TEST(FuseOpsTest, PrimitiveFunctionReturningATupleMerges) {
  // A hand-written group with two outputs: exp(x) and relu(exp(x)).
  PrimVar n = SymbolicDim("n");
  BlockBuilder bb;
  Var p("p", TensorStructInfo({n, 4}, kF32));
  Attrs primitive;
  primitive.Set(kPrimitiveAttr, int64_t{1});
  bb.BeginFunction("group", {p}, primitive);
  bb.BeginDataflow();
  Var e = EmitTIR(bb, "exp", {p}, testing::ExpKernel, true);
  Var r = EmitTIR(bb, "relu", {e}, testing::ReluKernel, true);
  bb.EndDataflow();
  GlobalVar group = bb.EndFunction(Tuple({e, r}));
  Var x("x", TensorStructInfo({n, 4}, kF32));
  bb.BeginFunction("main", {x});
  Var t = bb.Emit(CallFunction(group, {x}), "t");
  bb.EndFunction(t);
  IRModule before = AnnotateTIROpPattern(bb.Finalize());
  IRModule tir = FuseTIR(before);
  EXPECT_EQ(PrimFuncNames(tir), (std::vector<std::string>{"group"}));
  EXPECT_EQ(MainCalls(tir), (std::vector<std::string>{"group"}));
  EXPECT_EQ((*tir.LookupPrimFunc("group"))->params.size(), 3u);
  exec::Value xv = testing::RandomTensor({2, 4}, 3);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(before, "main", {xv}), exec::Run(tir, "main", {xv})), 0);
}

TEST(FuseOpsTest, IdenticalGroupsShareOneKernel) {
  testing::TestModel model = testing::MlpModel(3);
  IRModule fused = FuseOps(AnnotateTIROpPattern(model.module));
  EXPECT_EQ(PrimitiveNames(fused).size(), 4u);
  IRModule tir = FuseTIR(fused);
  EXPECT_EQ(PrimFuncNames(tir),
            (std::vector<std::string>{"fused_matmul_add_gelu", "fused_matmul3_add3_relu"}));
  EXPECT_EQ(MainCalls(tir),
            (std::vector<std::string>{"fused_matmul_add_gelu", "fused_matmul_add_gelu",
                                      "fused_matmul_add_gelu", "fused_matmul3_add3_relu"}));
}

// Every fused kernel of the transformer parses back from its text, is accepted by the
// schedule state (unique block names and loop variables), and can have its elementwise
// stages inlined with compute_inline without changing what it computes.
TEST(FuseOpsTest, FusedKernelsAreSchedulable) {
  IRModule tir = FuseTIR(FuseOps(AnnotateTIROpPattern(testing::TransformerModel(1).module)));
  int inlined = 0;
  for (const std::string& name : PrimFuncNames(tir)) {
    if (name.rfind("fused_", 0) != 0) continue;
    const ir::PrimFunc& f = *tir.LookupPrimFunc(name);
    SCOPED_TRACE(name);
    EXPECT_TRUE(ir::StructuralEqual(ir::ParsePrimFunc(ir::PrintPrimFunc(f)), f));
    search::Schedule sch(f);
    std::map<std::string, int64_t> dims = {{"n", 3}};
    std::vector<HostTensor> expected = ir::RunWithRandomInputs(f, dims, 11);
    // Inline every intermediate stage that compute_inline accepts.
    const auto* realize = f->body.as<ir::BlockRealizeNode>();
    for (const ir::Buffer& alloc : realize->block_node()->alloc_buffers) {
      for (size_t i = 0; i < sch.state().size(); ++i) {
        const ir::BlockNode* block = sch.state().entry(static_cast<int>(i)).block();
        if (block == nullptr || block->writes.size() != 1 ||
            !block->writes[0].buffer.same_as(alloc)) {
          continue;
        }
        try {
          sch.ComputeInline(sch.GetBlock(block->name));
          ++inlined;
        } catch (const Error&) {
          // A reduction or a stage read at shifted indices stays a stage of its own.
        }
        break;
      }
    }
    std::vector<HostTensor> actual = ir::RunWithRandomInputs(sch.func(), dims, 11);
    ASSERT_EQ(actual.size(), expected.size());
    for (size_t i = 0; i < actual.size(); ++i) {
      TensorComparison c = CompareTensors(expected[i], actual[i], 1e-5, 1e-6);
      EXPECT_TRUE(c.ok) << c.message;
    }
  }
  EXPECT_GT(inlined, 3);
}

}  // namespace
}  // namespace kiln::ir::relax::transform
