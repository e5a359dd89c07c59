// The block builder: an MLP and a transformer attention block with a symbolic sequence
// length, match_cast, dataflow scoping rules and naming, normalization of nested values to
// A-normal form, and the debug printer's output.
#include "ir/relax/block_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ir/relax/printer.h"
#include "ir/relax/text/printer.h"
#include "ir/relax/well_formed.h"
#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

TEST(RelaxBlockBuilderTest, MLP) {
  PrimVar n = SymbolicDim("n");
  Var x = Tensor("x", {n, 784});
  Var w1 = Tensor("w1", {784, 128});
  Var b1 = Tensor("b1", {128});
  Var w2 = Tensor("w2", {10, 128});
  Var b2 = Tensor("b2", {10});
  BlockBuilder bb;
  bb.BeginFunction("main", {x, w1, b1, w2, b2});
  bb.BeginDataflow();
  Var lv = bb.Emit(Call("matmul", {x, w1}));
  Var lv1 = bb.Emit(Call("add", {lv, b1}));
  Var lv2 = bb.Emit(Call("nn.relu", {lv1}));
  Var lv3 = bb.Emit(Call("linear", {lv2, w2, b2}));
  Var gv = bb.EmitOutput(Call("nn.softmax", {lv3}));
  bb.EndDataflow();
  GlobalVar main = bb.EndFunction(gv);

  EXPECT_TRUE(lv.is_dataflow());
  EXPECT_FALSE(gv.is_dataflow());
  EXPECT_EQ(lv3.name(), "lv3");
  EXPECT_EQ(Info(lv2), "R.Tensor((n, 128), \"float32\")");
  EXPECT_EQ(Info(gv), "R.Tensor((n, 10), \"float32\")");
  EXPECT_EQ(main.name(), "main");
  EXPECT_EQ(Info(main),
            "R.Callable((R.Tensor((n, 784), \"float32\"), R.Tensor((784, 128), \"float32\"), "
            "R.Tensor((128,), \"float32\"), R.Tensor((10, 128), \"float32\"), "
            "R.Tensor((10,), \"float32\")), R.Tensor((n, 10), \"float32\"))");

  IRModule mod = bb.Finalize();
  EXPECT_NO_THROW(CheckWellFormed(mod));
  const Function* f = mod.LookupFunction("main");
  ASSERT_NE(f, nullptr);
  const auto* seq = (*f)->body.as<SeqExprNode>();
  ASSERT_NE(seq, nullptr);
  ASSERT_EQ(seq->blocks.size(), 1u);
  EXPECT_TRUE(seq->blocks[0].is_dataflow);
  EXPECT_EQ(seq->blocks[0].bindings.size(), 5u);
  EXPECT_EQ(
      DebugPrint(mod),
      "# from typing import TypeVar\n"
      "# from tvm.script import ir as I\n"
      "# from tvm.script import relax as R\n"
      "\n"
      "n = TypeVar(\"n\")\n"
      "@I.ir_module\n"
      "class Module:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((n, 784), dtype=\"float32\"), w1: R.Tensor((784, 128), "
      "dtype=\"float32\"), b1: R.Tensor((128,), dtype=\"float32\"), w2: R.Tensor((10, 128), "
      "dtype=\"float32\"), b2: R.Tensor((10,), dtype=\"float32\")) -> R.Tensor((n, 10), "
      "dtype=\"float32\"):\n"
      "        with R.dataflow():\n"
      "            lv: R.Tensor((n, 128), dtype=\"float32\") = R.matmul(x, w1, out_dtype=None)\n"
      "            lv1: R.Tensor((n, 128), dtype=\"float32\") = R.add(lv, b1)\n"
      "            lv2: R.Tensor((n, 128), dtype=\"float32\") = R.nn.relu(lv1)\n"
      "            lv3: R.Tensor((n, 10), dtype=\"float32\") = R.linear(lv2, w2, b2, "
      "out_dtype=None)\n"
      "            gv: R.Tensor((n, 10), dtype=\"float32\") = R.nn.softmax(lv3, axis=-1)\n"
      "            R.output(gv)\n"
      "        return gv\n");
}

// Multi-head self-attention over (1, seq, 768) with 12 heads of 64, as exported by GPT-2.
struct Attention {
  PrimVar seq = SymbolicDim("seq");
  Var x = Tensor("x", {1, seq, 768});
  Var mask = Tensor("mask", {1, 1, seq, seq});
  Var w_qkv = Tensor("w_qkv", {2304, 768});
  Var b_qkv = Tensor("b_qkv", {2304});
  Var w_out = Tensor("w_out", {768, 768});
  Var b_out = Tensor("b_out", {768});
  Var scores, context, output;

  GlobalVar Build(BlockBuilder& bb) {
    bb.BeginFunction("attention", {x, mask, w_qkv, b_qkv, w_out, b_out});
    bb.BeginDataflow();
    Var qkv = bb.Emit(Call("linear", {x, w_qkv, b_qkv}));
    Var parts = bb.Emit(Call("split", {qkv}, Attrs().Set("indices_or_sections", 3).Set("axis", 2)));
    auto heads = [&](int i, std::vector<int64_t> perm) {
      Var t = bb.Emit(TupleGetItem(parts, i));
      Var r = bb.Emit(Call("reshape", {t, ShapeExpr({1, seq, 12, 64})}));
      return bb.Emit(Call("permute_dims", {r}, Attrs().Set("axes", std::move(perm))));
    };
    Var q = heads(0, {0, 2, 1, 3});
    Var k = heads(1, {0, 2, 3, 1});
    Var v = heads(2, {0, 2, 1, 3});
    HostTensor scale(DataType::Float(32), {});
    scale.SetDouble(0, 0.125);
    scores = bb.Emit(Call("matmul", {q, k}));
    Var scaled = bb.Emit(Call("multiply", {scores, Constant(scale)}));
    Var masked = bb.Emit(Call("add", {scaled, mask}));
    Var probs = bb.Emit(Call("nn.softmax", {masked}, Attrs().Set("axis", -1)));
    Var ctx = bb.Emit(Call("matmul", {probs, v}));
    Var ctx_t = bb.Emit(Call("permute_dims", {ctx}, Attrs().Set("axes", {0, 2, 1, 3})));
    context = bb.Emit(Call("reshape", {ctx_t, ShapeExpr({1, seq, -1})}));
    Var projected = bb.Emit(Call("linear", {context, w_out, b_out}));
    output = bb.EmitOutput(Call("add", {projected, x}));
    bb.EndDataflow();
    return bb.EndFunction(output);
  }
};

TEST(RelaxBlockBuilderTest, AttentionWithSymbolicSequenceLength) {
  BlockBuilder bb;
  Attention a;
  GlobalVar f = a.Build(bb);
  EXPECT_EQ(Info(a.scores), "R.Tensor((1, 12, seq, seq), \"float32\")");
  EXPECT_EQ(Info(a.context), "R.Tensor((1, seq, 768), \"float32\")");
  EXPECT_EQ(Info(a.output), "R.Tensor((1, seq, 768), \"float32\")");
  const auto* sig = f.struct_info().as<FuncStructInfoNode>();
  ASSERT_NE(sig, nullptr);
  EXPECT_EQ(sig->ret.ToString(), "R.Tensor((1, seq, 768), \"float32\")");
  IRModule mod = bb.Finalize();
  EXPECT_NO_THROW(CheckWellFormed(mod));
  EXPECT_THAT(DebugPrint(mod), ::testing::HasSubstr("R.split(lv, indices_or_sections=3, axis=2)"));
  EXPECT_THAT(DebugPrint(mod), ::testing::HasSubstr("= lv1[2]\n"));
}

TEST(RelaxBlockBuilderTest, MatchCastBindsNewShapeVariables) {
  Var x("x", TensorStructInfo(DataType::Float(32), 2));
  PrimVar n = SymbolicDim("n");
  BlockBuilder bb;
  bb.BeginFunction("f", {x});
  Var y = bb.EmitMatchCast(x, TensorStructInfo({n, 4}, "float32"));
  Var s = bb.Emit(Call("sum", {y}, Attrs().Set("axis", {1})));
  bb.EndFunction(s);
  EXPECT_EQ(Info(y), "R.Tensor((n, 4), \"float32\")");
  EXPECT_EQ(Info(s), "R.Tensor((n,), \"float32\")");
  EXPECT_FALSE(y.is_dataflow());
  IRModule mod = bb.Finalize();
  EXPECT_THAT(DebugPrint(mod),
              ::testing::HasSubstr("gv: R.Tensor((n, 4), dtype=\"float32\") = R.match_cast(x, "
                                   "R.Tensor((n, 4), dtype=\"float32\"))"));
  const auto* seq = (*mod.LookupFunction("f"))->body.as<SeqExprNode>();
  EXPECT_TRUE(seq->blocks[0].bindings[0].is_match_cast());
  EXPECT_FALSE(seq->blocks[0].bindings[1].is_match_cast());
}

TEST(RelaxBlockBuilderTest, DataflowScopingIsEnforced) {
  Var x = Tensor("x", {4});
  BlockBuilder bb;
  EXPECT_THROW(bb.Emit(x), Error);  // no function open
  bb.BeginFunction("f", {x});
  EXPECT_THROW(bb.EmitOutput(Call("exp", {x})), Error);
  bb.BeginDataflow();
  EXPECT_THROW(bb.BeginDataflow(), Error);
  Var lv = bb.Emit(Call("exp", {x}));
  EXPECT_THROW(bb.EndFunction(x), Error);  // dataflow block still open
  bb.EndDataflow();
  try {
    bb.Emit(Call("exp", {lv}));
    ADD_FAILURE() << "a dataflow var was used outside its block";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("dataflow variable lv is used outside"));
  }
  EXPECT_THROW(bb.EndFunction(lv), Error);
  EXPECT_THROW(bb.BeginFunction("g", {}), Error);
  EXPECT_THROW(bb.Finalize(), Error);
  EXPECT_NO_THROW(bb.EndFunction(x));
}

TEST(RelaxBlockBuilderTest, NamesAreUnique) {
  Var x = Tensor("x", {4});
  BlockBuilder bb;
  for (int i = 0; i < 2; ++i) {
    bb.BeginFunction("main", {x});
    Var a = bb.Emit(Call("exp", {x}), "y");
    Var b = bb.Emit(Call("exp", {a}), "y");
    Var c = bb.Emit(Call("exp", {b}), "x");
    EXPECT_EQ(a.name(), "y");
    EXPECT_EQ(b.name(), "y1");
    EXPECT_EQ(c.name(), "x1");
    bb.EndFunction(c);
  }
  EXPECT_EQ(bb.module().names(), (std::vector<std::string>{"main", "main1"}));
  const Function* second = bb.module().LookupFunction("main1");
  ASSERT_NE(second, nullptr);
  EXPECT_EQ(AttrValueToString(*(*second)->attrs.Find("global_symbol")), "\"main1\"");
}

TEST(RelaxBlockBuilderTest, DeclaredReturnMustFitTheBody) {
  Var x = Tensor("x", {4});
  BlockBuilder bb;
  bb.BeginFunction("f", {x});
  Var y = bb.Emit(Call("exp", {x}));
  try {
    bb.EndFunction(y, TensorStructInfo({5}, "float32"));
    ADD_FAILURE() << "a return of another shape was accepted";
  } catch (const Error& e) {
    EXPECT_THAT(e.what(), ::testing::HasSubstr("function f: body is R.Tensor((4,), \"float32\"), "
                                               "which cannot be the declared return "
                                               "R.Tensor((5,), \"float32\")"));
  }
  // The function stays open and can still be finished.
  GlobalVar f = bb.EndFunction(y, TensorStructInfo(DataType::Float(32), 1));
  EXPECT_EQ(f.struct_info().as<FuncStructInfoNode>()->ret.ToString(),
            "R.Tensor(\"float32\", ndim=1)");
}

// Each binding of `f` as "name = value" (the value as PrintExpr prints it), dataflow
// variables marked with '~'.
std::vector<std::string> Bindings(const IRModule& m, const std::string& f) {
  std::vector<std::string> out;
  const auto* seq = (*m.LookupFunction(f))->body.as<SeqExprNode>();
  for (const BindingBlock& block : seq->blocks) {
    for (const Binding& b : block.bindings) {
      out.push_back((b.var.is_dataflow() ? "~" : "") + b.var.name() + " = " + PrintExpr(b.value));
    }
  }
  return out;
}

TEST(RelaxBlockBuilderTest, NestedValuesAreEmittedFirst) {
  Var x = Tensor("x", {4, 6});
  BlockBuilder bb;
  bb.BeginFunction("f", {x});
  bb.BeginDataflow();
  Var act = bb.Emit(Call("multiply", {Call("nn.silu", {x}), x}), "act");
  // The inner values of an output stay inside the block.
  Var out = bb.EmitOutput(Call("add", {Call("exp", {act}), Call("log", {x})}), "out");
  Expr first =
      bb.Normalize(TupleGetItem(Call("split", {out}, Attrs().Set("indices_or_sections", 2)), 0));
  Var half = bb.EmitOutput(first, "half");
  Var cast =
      bb.EmitMatchCast(Call("exp", {Call("sqrt", {x})}), TensorStructInfo({4, 6}, "float32"));
  bb.EndDataflow();
  // A returned call is bound to a Var; a tuple of leaves stays the returned value.
  GlobalVar f = bb.EndFunction(Tuple({half, Call("exp", {out})}));
  IRModule m = bb.Finalize();
  EXPECT_NO_THROW(CheckWellFormed(m));
  EXPECT_EQ(
      Bindings(m, "f"),
      (std::vector<std::string>{
          "~lv = R.nn.silu(x)", "~act = R.multiply(lv, x)", "~lv1 = R.exp(act)", "~lv2 = R.log(x)",
          "out = R.add(lv1, lv2)", "~lv3 = R.split(out, indices_or_sections=2, axis=0)",
          "half = lv3[0]", "~lv4 = R.sqrt(x)", "~lv5 = R.exp(lv4)", "gv = R.exp(out)"}));
  const auto* seq = (*m.LookupFunction("f"))->body.as<SeqExprNode>();
  ASSERT_EQ(seq->blocks.size(), 2u);
  // The value of a match_cast may stay a call; only its argument was emitted.
  EXPECT_TRUE(seq->blocks[0].bindings.back().is_match_cast());
  EXPECT_TRUE(seq->blocks[0].bindings.back().var.same_as(cast));
  EXPECT_FALSE(seq->blocks[1].is_dataflow);
  EXPECT_TRUE(IsLeafOrTuple(seq->body));
  EXPECT_EQ(f.name(), "f");
}

TEST(RelaxBlockBuilderTest, NormalFormLeavesAndValues) {
  Var x = Tensor("x", {4});
  EXPECT_TRUE(IsLeaf(x));
  EXPECT_TRUE(IsLeaf(Constant(HostTensor::Random(DataType::Float(32), {2}, 1))));
  EXPECT_TRUE(IsLeaf(ShapeExpr({DimConst(4)})));
  EXPECT_TRUE(IsLeaf(GlobalVar("g")));
  EXPECT_FALSE(IsLeaf(Tuple({x})));
  EXPECT_TRUE(IsLeafOrTuple(Tuple({x, Tuple({x})})));
  EXPECT_FALSE(IsLeafOrTuple(Tuple({x, Call("exp", {x})})));
  EXPECT_FALSE(IsLeafOrTuple(Call("exp", {x})));
  // A value already normal comes back as it is, and nothing is emitted.
  Expr call = Call("add", {x, x});
  int emitted = 0;
  EmitFn count = [&](const Expr&) -> Var {
    ++emitted;
    return x;
  };
  EXPECT_TRUE(NormalizeValue(call, count).same_as(call));
  EXPECT_TRUE(NormalizeArgument(x, count).same_as(x));
  EXPECT_EQ(emitted, 0);
  // A call as an argument is emitted itself.
  EXPECT_TRUE(NormalizeArgument(call, count).same_as(x));
  EXPECT_EQ(emitted, 1);
}

TEST(RelaxBlockBuilderTest, RejectedReturnLeavesTheFunctionAsItWas) {
  Var x = Tensor("x", {4});
  BlockBuilder bb;
  bb.BeginFunction("f", {x});
  Var y = bb.Emit(Call("exp", {x}), "y");
  EXPECT_THROW(bb.EndFunction(Call("log", {y}), TensorStructInfo({5}, "float32")), Error);
  bb.EndFunction(y);
  EXPECT_EQ(Bindings(bb.module(), "f"), (std::vector<std::string>{"y = R.exp(x)"}));
}

}  // namespace
}  // namespace kiln::ir::relax
