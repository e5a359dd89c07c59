// Hand-legalized models for the transform tests.
#include "tests/ir/relax/transform/test_graphs.h"

#include <cmath>

#include "ir/relax/block_builder.h"
#include "tests/ir/relax/exec/test_kernels.h"

namespace kiln::ir::relax::testing {

namespace {

constexpr DataType kF32 = DataType::Float(32);

Var TensorParam(TestModel& model, const std::string& name, std::vector<PrimExpr> shape) {
  std::vector<int64_t> concrete;
  for (const PrimExpr& d : shape) {
    auto c = AsConstInt(d);
    concrete.push_back(c ? *c : -1);
  }
  model.input_shapes.push_back(concrete);
  return Var(name, TensorStructInfo(std::move(shape), kF32));
}

// Counts call_tir bindings as they are emitted.
struct Emitter {
  BlockBuilder& bb;
  int& count;
  Var operator()(const std::string& name, const std::vector<Expr>& args, const KernelBody& body,
                 bool output = false) {
    ++count;
    return EmitTIR(bb, name, args, body, output);
  }
};

}  // namespace

std::vector<exec::Value> TestModel::Inputs(int64_t n, uint64_t seed) const {
  std::vector<exec::Value> out;
  for (size_t i = 0; i < input_shapes.size(); ++i) {
    std::vector<int64_t> shape = input_shapes[i];
    for (int64_t& d : shape) d = d < 0 ? n : d;
    out.push_back(RandomTensor(shape, seed * 131 + i));
  }
  return out;
}

TestModel MlpModel(int layers) {
  TestModel model;
  PrimVar n = SymbolicDim("n");
  std::vector<Var> params = {TensorParam(model, "x", {n, 8})};
  for (int l = 0; l < layers; ++l) {
    params.push_back(TensorParam(model, "w" + std::to_string(l), {8, 8}));
    params.push_back(TensorParam(model, "b" + std::to_string(l), {8}));
  }
  params.push_back(TensorParam(model, "w_out", {8, 4}));
  params.push_back(TensorParam(model, "b_out", {4}));
  BlockBuilder bb;
  Emitter emit{bb, model.num_ops};
  bb.BeginFunction("main", params);
  bb.BeginDataflow();
  Var h = params[0];
  for (int l = 0; l < layers; ++l) {
    Var mm = emit("matmul", {h, params[1 + 2 * l]}, MatmulKernel);
    Var add = emit("add", {mm, params[2 + 2 * l]}, BiasAddKernel);
    h = emit("gelu", {add}, GeluKernel);
  }
  Var mm = emit("matmul", {h, params[params.size() - 2]}, MatmulKernel);
  Var add = emit("add", {mm, params.back()}, BiasAddKernel);
  Var out = emit("relu", {add}, ReluKernel, true);
  bb.EndDataflow();
  bb.EndFunction(out);
  model.module = bb.Finalize();
  return model;
}

TestModel TransformerModel(int layers) {
  TestModel model;
  PrimVar n = SymbolicDim("n");
  std::vector<Var> params = {TensorParam(model, "x", {n, 16})};
  struct LayerParams {
    Var wq, bq, wk, bk, wv, bv, wo, bo, w1, b1, w2, b2;
  };
  std::vector<LayerParams> lp;
  for (int l = 0; l < layers; ++l) {
    std::string s = std::to_string(l);
    LayerParams p{TensorParam(model, "wq" + s, {16, 16}), TensorParam(model, "bq" + s, {16}),
                  TensorParam(model, "wk" + s, {16, 16}), TensorParam(model, "bk" + s, {16}),
                  TensorParam(model, "wv" + s, {16, 16}), TensorParam(model, "bv" + s, {16}),
                  TensorParam(model, "wo" + s, {16, 16}), TensorParam(model, "bo" + s, {16}),
                  TensorParam(model, "w1" + s, {16, 32}), TensorParam(model, "b1" + s, {32}),
                  TensorParam(model, "w2" + s, {32, 16}), TensorParam(model, "b2" + s, {16})};
    for (const Var& v : {p.wq, p.bq, p.wk, p.bk, p.wv, p.bv, p.wo, p.bo, p.w1, p.b1, p.w2, p.b2}) {
      params.push_back(v);
    }
    lp.push_back(p);
  }
  BlockBuilder bb;
  Emitter emit{bb, model.num_ops};
  bb.BeginFunction("main", params);
  bb.BeginDataflow();
  auto heads = [](const std::vector<PrimExpr>& s) {
    return std::vector<PrimExpr>{s[0], DimConst(2), DimConst(8)};
  };
  auto flat = [](const std::vector<PrimExpr>& s) {
    return std::vector<PrimExpr>{s[0], DimConst(16)};
  };
  auto linear = [&](const Var& in, const Var& w, const Var& b) {
    return emit("add", {emit("matmul", {in, w}, MatmulKernel), b}, BiasAddKernel);
  };
  Var h = params[0];
  for (int l = 0; l < layers; ++l) {
    const LayerParams& p = lp[l];
    bool last = l + 1 == layers;
    Var mean = emit("mean", {h}, MeanKernel);
    Var centered = emit("subtract", {h, mean}, SubColumnKernel);
    Var sq = emit("square", {centered}, SquareKernel);
    Var var = emit("mean", {sq}, MeanKernel);
    Var rstd = emit("rsqrt", {var}, RsqrtEpsKernel);
    Var ln = emit("multiply", {centered, rstd}, MulColumnKernel);
    Var q = linear(ln, p.wq, p.bq), k = linear(ln, p.wk, p.bk), v = linear(ln, p.wv, p.bv);
    Var qh =
        emit("transpose", {emit("reshape", {q}, ReshapeKernel(heads))}, PermuteKernel({1, 0, 2}));
    Var kh =
        emit("transpose", {emit("reshape", {k}, ReshapeKernel(heads))}, PermuteKernel({1, 2, 0}));
    Var vh =
        emit("transpose", {emit("reshape", {v}, ReshapeKernel(heads))}, PermuteKernel({1, 0, 2}));
    Var scores = emit("matmul", {qh, kh}, BatchMatmulKernel);
    Var scaled = emit("multiply", {scores}, ScaleKernel(1.0 / std::sqrt(8.0)));
    Var probs = emit("softmax", {scaled}, SoftmaxKernel);
    Var ctx = emit("matmul", {probs, vh}, BatchMatmulKernel);
    Var merged =
        emit("reshape", {emit("transpose", {ctx}, PermuteKernel({1, 0, 2}))}, ReshapeKernel(flat));
    Var attn = linear(merged, p.wo, p.bo);
    Var h1 = emit("add", {h, attn}, AddKernel);
    Var m1 = emit("gelu", {linear(h1, p.w1, p.b1)}, GeluKernel);
    Var m2 = linear(m1, p.w2, p.b2);
    h = emit("add", {h1, m2}, AddKernel, last);
  }
  bb.EndDataflow();
  bb.EndFunction(h);
  model.module = bb.Finalize();
  return model;
}

TestModel ConvModel() {
  TestModel model;
  Var x = TensorParam(model, "x", {1, 3, 8, 8});
  Var w = TensorParam(model, "w", {4, 3, 3, 3});
  Var b = TensorParam(model, "b", {4, 1, 1});
  BlockBuilder bb;
  Emitter emit{bb, model.num_ops};
  bb.BeginFunction("main", {x, w, b});
  bb.BeginDataflow();
  Var conv = emit("conv2d", {x, w}, Conv2dKernel);
  Var biased = emit("add", {conv, b}, ChannelBiasKernel);
  Var act = emit("relu", {biased}, ReluKernel);
  Var pooled = emit("max_pool2d", {act}, MaxPool2x2Kernel, true);
  bb.EndDataflow();
  bb.EndFunction(pooled);
  model.module = bb.Finalize();
  return model;
}

TestModel ConstantWeightModel() {
  TestModel model;
  PrimVar n = SymbolicDim("n");
  Var x = TensorParam(model, "x", {n, 6});
  HostTensor w = HostTensor::Random(kF32, {5, 6}, 77);
  HostTensor b = HostTensor::Random(kF32, {5}, 78);
  BlockBuilder bb;
  Emitter emit{bb, model.num_ops};
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Var wt = emit("transpose", {Constant(w)}, PermuteKernel({1, 0}));
  Var mm = emit("matmul", {x, wt}, MatmulKernel);
  Var add = emit("add", {mm, Constant(b)}, BiasAddKernel);
  Var out = emit("relu", {add}, ReluKernel, true);
  bb.EndDataflow();
  bb.EndFunction(out);
  model.module = bb.Finalize();
  return model;
}

}  // namespace kiln::ir::relax::testing
