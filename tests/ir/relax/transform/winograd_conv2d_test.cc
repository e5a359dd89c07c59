// WinogradConv2d: which convolutions it rewrites (3x3, stride 1, dilation 1, groups 1,
// constant float32 weight; under auto only large enough ones) and which it leaves (stride 2,
// 1x1, groups, a weight that is a parameter), and the numerics of the rewritten module against
// the direct one in the reference executor, through the whole tuning pipeline, on random
// inputs: odd heights and widths (partial tiles), asymmetric padding, a batch of two, a bias
// and relu epilogue, F(4,3) and F(2,3).
#include "ir/relax/transform/winograd_conv2d.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "ir/relax/block_builder.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/relax/well_formed.h"
#include "support/error.h"

namespace kiln::ir::relax::transform {
namespace {

const DataType kF32 = DataType::Float(32);

struct ConvSpec {
  int64_t n = 1, c = 16, h = 11, w = 13, k = 24;
  int64_t kernel = 3;
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> padding = {1, 1, 1, 1};
  int64_t groups = 1;
  bool constant_weight = true;
  bool bias_relu = true;
};

std::vector<PrimExpr> Dims(const std::vector<int64_t>& dims) {
  std::vector<PrimExpr> out;
  for (int64_t d : dims) out.push_back(IntImm(DataType::Int(64), d));
  return out;
}

// main(x[, w]) = relu(conv2d(x, w) + b) (or the conv alone), weights random with `seed`.
IRModule ConvModule(const ConvSpec& s, uint64_t seed = 7) {
  Var x("x", TensorStructInfo(Dims({s.n, s.c, s.h, s.w}), kF32));
  std::vector<int64_t> wshape = {s.k, s.c / s.groups, s.kernel, s.kernel};
  Var wparam("w", TensorStructInfo(Dims(wshape), kF32));
  std::vector<Var> params = {x};
  if (!s.constant_weight) params.push_back(wparam);
  BlockBuilder bb;
  bb.BeginFunction("main", params);
  bb.BeginDataflow();
  Attrs attrs;
  attrs.Set("strides", s.strides);
  attrs.Set("padding", s.padding);
  attrs.Set("groups", s.groups);
  Expr weight = s.constant_weight ? Constant(HostTensor::Random(kF32, wshape, seed)) : wparam;
  Var y = bb.Emit(Call("nn.conv2d", {x, weight}, attrs), "conv");
  if (s.bias_relu) {
    Expr bias = Constant(HostTensor::Random(kF32, {s.k, 1, 1}, seed + 1));
    Var added = bb.Emit(Call("add", {y, bias}), "biased");
    y = bb.Emit(Call("nn.relu", {added}), "relu");
  }
  Var out = bb.EmitOutput(y, "out");
  bb.EndDataflow();
  bb.EndFunction(out);
  return bb.module();
}

// Op calls named `op` and call_tir calls of kernels whose name starts with `prefix` in main.
int CountOps(const IRModule& m, const std::string& op) {
  int count = 0;
  const auto* seq = (*m.LookupFunction("main"))->body.as<SeqExprNode>();
  for (const BindingBlock& block : seq->blocks) {
    for (const Binding& b : block.bindings) {
      const auto* call = b.value.as<CallNode>();
      count += call != nullptr && call->op == op;
    }
  }
  return count;
}

int CountKernelCalls(const IRModule& m, const std::string& prefix) {
  int count = 0;
  const auto* seq = (*m.LookupFunction("main"))->body.as<SeqExprNode>();
  for (const BindingBlock& block : seq->blocks) {
    for (const Binding& b : block.bindings) {
      const auto* call = b.value.as<CallNode>();
      if (call == nullptr || call->op != "call_tir" || call->args.empty()) continue;
      const auto* g = call->args[0].as<GlobalVarNode>();
      count += g != nullptr && g->name.rfind(prefix, 0) == 0;
    }
  }
  return count;
}

WinogradOptions Mode(WinogradMode mode, int tile = 4) {
  WinogradOptions o;
  o.mode = mode;
  o.tile = tile;
  return o;
}

TEST(WinogradConv2dTest, RewritesAThreeByThreeStrideOneConvWithAConstantWeight) {
  IRModule m = ConvModule({});
  IRModule out = WinogradConv2d(m, Mode(WinogradMode::kOn));
  EXPECT_NO_THROW(CheckWellFormed(out));
  EXPECT_EQ(CountOps(out, "nn.conv2d"), 0);
  EXPECT_EQ(CountOps(out, "matmul"), 1);
  EXPECT_EQ(CountKernelCalls(out, "winograd_input_transform"), 1);
  EXPECT_EQ(CountKernelCalls(out, "winograd_output_transform"), 1);
  // The epilogue stays for FuseOps.
  EXPECT_EQ(CountOps(out, "add"), 1);
  EXPECT_EQ(CountOps(out, "nn.relu"), 1);
}

TEST(WinogradConv2dTest, LeavesConvolutionsItDoesNotApplyTo) {
  ConvSpec stride2;
  stride2.strides = {2, 2};
  ConvSpec pointwise;
  pointwise.kernel = 1;
  pointwise.padding = {0, 0, 0, 0};
  ConvSpec grouped;
  grouped.groups = 2;
  ConvSpec parameter_weight;
  parameter_weight.constant_weight = false;
  for (const ConvSpec& s : {stride2, pointwise, grouped, parameter_weight}) {
    IRModule m = ConvModule(s);
    IRModule out = WinogradConv2d(m, Mode(WinogradMode::kOn));
    EXPECT_EQ(CountOps(out, "nn.conv2d"), 1);
    EXPECT_EQ(CountOps(out, "matmul"), 0);
  }
  // off leaves even an eligible one.
  IRModule off = WinogradConv2d(ConvModule({}), Mode(WinogradMode::kOff));
  EXPECT_EQ(CountOps(off, "nn.conv2d"), 1);
}

TEST(WinogradConv2dTest, AutoRewritesOnlyConvolutionsLargeEnoughToPay) {
  ConvSpec small_channels;
  small_channels.c = 8;
  ConvSpec small_image;
  small_image.h = 6;
  small_image.w = 6;  // 36 output pixels < 64
  for (const ConvSpec& s : {small_channels, small_image}) {
    EXPECT_EQ(CountOps(WinogradConv2d(ConvModule(s), Mode(WinogradMode::kAuto)), "nn.conv2d"), 1);
    EXPECT_EQ(CountOps(WinogradConv2d(ConvModule(s), Mode(WinogradMode::kOn)), "nn.conv2d"), 0);
  }
  EXPECT_EQ(CountOps(WinogradConv2d(ConvModule({}), Mode(WinogradMode::kAuto)), "nn.conv2d"), 0);
}

TEST(WinogradConv2dTest, RejectsAnUnsupportedTile) {
  try {
    WinogradConv2d(ConvModule({}), Mode(WinogradMode::kOn, 6));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("tile m = 6"), std::string::npos) << e.what();
  }
}

TEST(WinogradConv2dTest, ParsesTheModeNames) {
  EXPECT_EQ(ParseWinogradMode("auto"), WinogradMode::kAuto);
  EXPECT_EQ(ParseWinogradMode("on"), WinogradMode::kOn);
  EXPECT_EQ(ParseWinogradMode("off"), WinogradMode::kOff);
  EXPECT_FALSE(ParseWinogradMode("yes").has_value());
  EXPECT_STREQ(WinogradModeName(WinogradMode::kAuto), "auto");
}

// Largest |a - b| over the largest |b|: the error relative to the output's scale.
double RelativeError(const exec::Value& a, const exec::Value& b) {
  const HostTensor& x = a.tensor();
  const HostTensor& y = b.tensor();
  EXPECT_EQ(x.shape(), y.shape());
  double diff = 0, scale = 0;
  for (int64_t i = 0; i < y.numel(); ++i) {
    diff = std::max(diff, std::abs(x.GetDouble(i) - y.GetDouble(i)));
    scale = std::max(scale, std::abs(y.GetDouble(i)));
  }
  EXPECT_GT(scale, 0);
  return diff / scale;
}

// The pipeline with and without the rewrite agree on random inputs.
void ExpectMatchesDirect(const ConvSpec& s, int tile) {
  IRModule m = ConvModule(s);
  PipelineOptions on;
  on.winograd = Mode(WinogradMode::kOn, tile);
  IRModule direct = PrepareModuleForTuning(m);
  IRModule winograd = PrepareModuleForTuning(m, on);
  EXPECT_EQ(CountKernelCalls(winograd, "winograd_input_transform"), 1);
  HostTensor x = HostTensor::Random(kF32, {s.n, s.c, s.h, s.w}, 11);
  std::vector<exec::Value> inputs = {exec::Value::Tensor(x)};
  exec::Value expected = exec::Run(direct, "main", inputs);
  exec::Value got = exec::Run(winograd, "main", inputs);
  double error = RelativeError(got, expected);
  EXPECT_LT(error, tile == 4 ? 1e-4 : 1e-5);
  std::cout << "F(" << tile << ",3) " << s.n << "x" << s.c << "x" << s.h << "x" << s.w
            << ": relative error " << error << "\n";
}

TEST(WinogradConv2dTest, MatchesTheDirectConvolutionWithPartialTiles) {
  ExpectMatchesDirect({}, 4);  // 11 x 13: the last tile row and column are partial
  ExpectMatchesDirect({}, 2);
}

TEST(WinogradConv2dTest, MatchesTheDirectConvolutionWithAsymmetricPaddingAndABatch) {
  ConvSpec s;
  s.n = 2;
  s.h = 9;
  s.w = 8;
  s.padding = {0, 1, 2, 0};  // top, left, bottom, right
  s.bias_relu = false;
  ExpectMatchesDirect(s, 4);
  ExpectMatchesDirect(s, 2);
}

TEST(WinogradConv2dTest, SharesTheTransformKernelsOfConvolutionsOfOneShape) {
  // Two convs of the same shape in a row: one input and one output transform kernel.
  ConvSpec s;
  s.k = s.c;
  Var x("x", TensorStructInfo(Dims({s.n, s.c, s.h, s.w}), kF32));
  BlockBuilder bb;
  bb.BeginFunction("main", {x});
  bb.BeginDataflow();
  Attrs attrs;
  attrs.Set("padding", std::vector<int64_t>{1, 1, 1, 1});
  Var a =
      bb.Emit(Call("nn.conv2d", {x, Constant(HostTensor::Random(kF32, {16, 16, 3, 3}, 1))}, attrs));
  Var b =
      bb.Emit(Call("nn.conv2d", {a, Constant(HostTensor::Random(kF32, {16, 16, 3, 3}, 2))}, attrs));
  Var out = bb.EmitOutput(b);
  bb.EndDataflow();
  bb.EndFunction(out);
  IRModule rewritten = WinogradConv2d(bb.module(), Mode(WinogradMode::kOn));
  EXPECT_EQ(CountKernelCalls(rewritten, "winograd_input_transform"), 2);
  int kernels = 0;
  for (const std::string& name : rewritten.names()) {
    kernels += rewritten.LookupPrimFunc(name) != nullptr;
  }
  EXPECT_EQ(kernels, 2);
}

}  // namespace
}  // namespace kiln::ir::relax::transform
