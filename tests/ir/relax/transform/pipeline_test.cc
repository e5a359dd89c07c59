// PrepareModuleForTuning on graphs of real Relax ops (legalized by LegalizeOps): a two-layer
// GPT-style transformer with a symbolic sequence length, an MLP with constant weights, and the
// hand-written gated MLP of examples/relax (nested calls, a hand-written TensorIR kernel). The
// prepared module computes what the legalized one does (reference executor, random inputs),
// and splits into fewer tasks than the graph has ops, with both layers sharing their tasks. A
// module that is not in A-normal form is rejected before any pass runs.
#include "ir/relax/transform/pipeline.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "ir/relax/block_builder.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/relax/well_formed.h"
#include "tests/ir/relax/exec/test_kernels.h"
#include "tests/ir/relax/transform/golden.h"

namespace kiln::ir::relax::transform {
namespace {

constexpr DataType kF32 = DataType::Float(32);

Var Tensor(const std::string& name, std::vector<PrimExpr> shape) {
  return Var(name, TensorStructInfo(std::move(shape), kF32));
}

struct Model {
  IRModule module;
  int num_ops = 0;
  std::vector<std::vector<int64_t>> shapes;  // -1: the sequence length
  std::vector<exec::Value> Inputs(int64_t seq, uint64_t seed) const {
    std::vector<exec::Value> out;
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::vector<int64_t> s = shapes[i];
      for (int64_t& d : s) d = d < 0 ? seq : d;
      out.push_back(testing::RandomTensor(s, seed * 97 + i));
    }
    return out;
  }
};

// Pre-norm blocks over x: (1, seq, 16), 2 heads of 8.
Model Gpt(int layers) {
  Model m;
  PrimVar seq = SymbolicDim("seq");
  std::vector<Var> params;
  auto param = [&](const std::string& name, std::vector<PrimExpr> shape) {
    std::vector<int64_t> s;
    for (const PrimExpr& d : shape) s.push_back(AsConstInt(d).value_or(-1));
    m.shapes.push_back(s);
    params.push_back(Tensor(name, std::move(shape)));
    return params.back();
  };
  Var x = param("x", {1, seq, 16});
  struct Layer {
    Var g1, b1, w_qkv, b_qkv, w_o, b_o, g2, b2, w_up, b_up, w_down, b_down;
  };
  std::vector<Layer> ls;
  for (int l = 0; l < layers; ++l) {
    std::string s = std::to_string(l);
    ls.push_back(
        Layer{param("ln1_g" + s, {16}), param("ln1_b" + s, {16}), param("w_qkv" + s, {48, 16}),
              param("b_qkv" + s, {48}), param("w_o" + s, {16, 16}), param("b_o" + s, {16}),
              param("ln2_g" + s, {16}), param("ln2_b" + s, {16}), param("w_up" + s, {32, 16}),
              param("b_up" + s, {32}), param("w_down" + s, {16, 32}), param("b_down" + s, {16})});
  }
  BlockBuilder bb;
  bb.BeginFunction("main", params);
  bb.BeginDataflow();
  auto op = [&](const std::string& name, std::vector<Expr> args, Attrs attrs = Attrs(),
                bool output = false) {
    ++m.num_ops;
    Expr call = Call(name, std::move(args), std::move(attrs));
    return output ? bb.EmitOutput(call) : bb.Emit(call);
  };
  HostTensor scale(kF32, {});
  scale.SetDouble(0, 1.0 / std::sqrt(8.0));
  Var h = x;
  for (int l = 0; l < layers; ++l) {
    const Layer& p = ls[l];
    Attrs last_axis;
    last_axis.Set("axes", {-1});
    Var ln = op("nn.layer_norm", {h, p.g1, p.b1}, last_axis);
    Var qkv = op("linear", {ln, p.w_qkv, p.b_qkv});
    Var parts = op("split", {qkv}, Attrs().Set("indices_or_sections", 3).Set("axis", 2));
    auto heads = [&](int i, std::vector<int64_t> perm) {
      Var t = bb.Emit(TupleGetItem(parts, i));
      Var r = op("reshape", {t, ShapeExpr({1, seq, 2, 8})});
      return op("permute_dims", {r}, Attrs().Set("axes", std::move(perm)));
    };
    Var q = heads(0, {0, 2, 1, 3});
    Var k = heads(1, {0, 2, 3, 1});
    Var v = heads(2, {0, 2, 1, 3});
    Var scores = op("matmul", {q, k});
    Var scaled = op("multiply", {scores, Constant(scale)});
    Var probs = op("nn.softmax", {scaled}, Attrs().Set("axis", -1));
    Var ctx = op("matmul", {probs, v});
    Var ctx_t = op("permute_dims", {ctx}, Attrs().Set("axes", {0, 2, 1, 3}));
    Var merged = op("reshape", {ctx_t, ShapeExpr({1, seq, -1})});
    Var attn = op("linear", {merged, p.w_o, p.b_o});
    Var h1 = op("add", {h, attn});
    Var ln2 = op("nn.layer_norm", {h1, p.g2, p.b2}, last_axis);
    Var up = op("nn.gelu", {op("linear", {ln2, p.w_up, p.b_up})});
    Var down = op("linear", {up, p.w_down, p.b_down});
    h = op("add", {h1, down}, Attrs(), l + 1 == layers);
  }
  bb.EndDataflow();
  bb.EndFunction(h);
  m.module = bb.Finalize();
  return m;
}

TEST(PipelineTest, GptBlocksKeepTheirResultsAndShareTasks) {
  Model model = Gpt(2);
  IRModule legalized = LegalizeOps(model.module);
  IRModule prepared = PrepareModuleForTuning(model.module);
  EXPECT_NO_THROW(CheckWellFormed(prepared));
  for (int64_t seq : {1, 4}) {
    SCOPED_TRACE("seq = " + std::to_string(seq));
    std::vector<exec::Value> in = model.Inputs(seq, static_cast<uint64_t>(seq));
    exec::Value expected = exec::Run(legalized, "main", in);
    EXPECT_EQ(testing::MaxAbsDiff(expected, exec::Run(prepared, "main", in)), 0.0);
  }
  std::vector<ExtractedTask> tasks = ExtractTasks(prepared);
  int64_t calls = 0;
  for (const ExtractedTask& t : tasks) {
    calls += t.weight;
    EXPECT_EQ(t.weight % 2, 0) << t.name << ": both layers call the same kernels";
  }
  EXPECT_LT(calls, model.num_ops);
  EXPECT_LT(static_cast<int64_t>(tasks.size()), calls);
}

TEST(PipelineTest, ConstantWeightsAreFoldedAndFused) {
  // relu(x @ transpose(W) + b) with W and b constants, as ONNX exports a Gemm.
  PrimVar n = SymbolicDim("n");
  Var x = Tensor("x", {n, 6});
  HostTensor w = HostTensor::Random(kF32, {5, 6}, 3);
  HostTensor b = HostTensor::Random(kF32, {5}, 4);
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var wt = bb.Emit(Call("permute_dims", {Constant(w)}, Attrs().Set("axes", {1, 0})));
  Var mm = bb.Emit(Call("matmul", {x, wt}));
  Var add = bb.Emit(Call("add", {mm, Constant(b)}));
  Var out = bb.EmitOutput(Call("nn.relu", {add}));
  bb.EndDataflow();
  bb.EndFunction(out);
  IRModule mod = bb.Finalize();
  IRModule prepared = PrepareModuleForTuning(mod);
  // The transposed weight is a constant, the bias a parameter of the one fused kernel.
  EXPECT_EQ(testing::CheckGolden("pipeline_gemm.relax", prepared), "");
  std::vector<ExtractedTask> tasks = ExtractTasks(prepared);
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].weight, 1);
  exec::Value xv = testing::RandomTensor({3, 6}, 9);
  EXPECT_EQ(testing::MaxAbsDiff(exec::Run(LegalizeOps(mod), "main", {xv}),
                                exec::Run(prepared, "main", {xv})),
            0.0);
}

TEST(PipelineTest, HandWrittenGatedMlpExample) {
  std::string path = std::string(KILN_SOURCE_DIR) + "/examples/relax/gated_mlp.relax";
  std::ifstream in(path);
  ASSERT_TRUE(in) << path;
  std::stringstream text;
  text << in.rdbuf();
  IRModule module = ParseModule(text.str(), path);
  // R.multiply(R.nn.silu(gate), up) reads as lv = R.nn.silu(gate); act = R.multiply(lv, up).
  EXPECT_NO_THROW(CheckWellFormed(module));
  IRModule legalized = LegalizeOps(module);
  IRModule prepared = PrepareModuleForTuning(module);
  EXPECT_NO_THROW(CheckWellFormed(prepared));
  std::vector<std::vector<int64_t>> shapes = {{-1, 64}, {64}, {64, 128}, {64, 128}, {128, 64}};
  for (int64_t n : {1, 5}) {
    SCOPED_TRACE("n = " + std::to_string(n));
    std::vector<exec::Value> inputs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      std::vector<int64_t> s = shapes[i];
      for (int64_t& d : s) d = d < 0 ? n : d;
      inputs.push_back(testing::RandomTensor(s, static_cast<uint64_t>(n * 10) + i));
    }
    EXPECT_EQ(testing::MaxAbsDiff(exec::Run(legalized, "main", inputs),
                                  exec::Run(prepared, "main", inputs)),
              0.0);
  }
  // The gate's SiLU joins its matmul, the product joins the up projection, and the hand-written
  // residual add (annotated elementwise) joins the down projection.
  std::vector<std::string> names;
  for (const ExtractedTask& t : ExtractTasks(prepared)) names.push_back(t.name);
  EXPECT_EQ(names,
            (std::vector<std::string>{"rms_norm", "fused_matmul_silu", "fused_matmul1_multiply",
                                      "fused_matmul2_residual_add"}));
}

TEST(PipelineTest, ANestedCallIsRejectedBeforeAnyPass) {
  Var x = Tensor("x", {4});
  Var y = Tensor("y", {4});
  BindingBlock block{{VarBinding(y, Call("multiply", {Call("nn.silu", {x}), x}))}, true};
  Var out = Tensor("out", {4});
  block.bindings.push_back(VarBinding(out, Call("exp", {y})));
  IRModule module;
  module.Add("main", MakeFunction({x}, SeqExpr({block}, out)));
  try {
    PrepareModuleForTuning(module);
    ADD_FAILURE() << "a module with a nested call was prepared";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
    EXPECT_THAT(e.what(), ::testing::HasSubstr("PrepareModuleForTuning: the input module is not "
                                               "well formed: function main, binding of y: argument "
                                               "0 of R.multiply is a call of R.nn.silu"));
  }
}

}  // namespace
}  // namespace kiln::ir::relax::transform
