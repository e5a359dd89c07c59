// Convolution and pooling zoo functions, including padding stages and strides.
#include "ir/compute/create_prim_func.h"
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "tests/ir/zoo/entries.h"
#include "tests/ir/zoo/references.h"

namespace kiln::ir::zoo {

using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)

namespace {

constexpr DataType kF32 = DataType::Float(32);

// `in` (N, C, H, W) with `pad` zeros on each side of H and W.
Tensor PadHW(const Tensor& in, int pad, const std::string& name) {
  auto h = AsConstInt(in.shape()[2]), w = AsConstInt(in.shape()[3]);
  return Compute({in.shape()[0], in.shape()[1], static_cast<int>(*h + 2 * pad),
                  static_cast<int>(*w + 2 * pad)},
                 [&](Var n, Var c, Var y, Var x) {
                   return PaddedLoad(in, {n, c, y - pad, x - pad}, Const(in.dtype(), 0));
                 },
                 name, {"i0", "i1", "i2", "i3"});
}

const std::vector<std::string> kNchw = {"nn", "ff", "yy", "xx"};

PrimFunc Conv2dNchw() {  // (1, 4, 10, 10) * (8, 4, 3, 3) -> (1, 8, 8, 8)
  Tensor in = Placeholder("data", {1, 4, 10, 10}, kF32);
  Tensor w = Placeholder("kernel", {8, 4, 3, 3}, kF32);
  IterVar rc = ReduceAxis(4, "rc"), ry = ReduceAxis(3, "ry"), rx = ReduceAxis(3, "rx");
  Tensor out = Compute(
      {1, 8, 8, 8},
      [&](Var n, Var f, Var y, Var x) {
        return Sum(in(n, rc.var, y + ry.var, x + rx.var) * w(f, rc.var, ry.var, rx.var),
                   {rc, ry, rx});
      },
      "conv2d_nchw", kNchw);
  return CreatePrimFunc({in, w, out}, "conv2d_nchw");
}

PrimFunc Conv2dNhwc() {  // (1, 10, 10, 4) * HWIO (3, 3, 4, 8) -> (1, 8, 8, 8)
  Tensor in = Placeholder("data", {1, 10, 10, 4}, kF32);
  Tensor w = Placeholder("kernel", {3, 3, 4, 8}, kF32);
  IterVar ry = ReduceAxis(3, "ry"), rx = ReduceAxis(3, "rx"), rc = ReduceAxis(4, "rc");
  Tensor out =
      Compute({1, 8, 8, 8},
              [&](Var n, Var y, Var x, Var f) {
                return Sum(in(n, y + ry.var, x + rx.var, rc.var) * w(ry.var, rx.var, rc.var, f),
                           {ry, rx, rc});
              },
              "conv2d_nhwc", {"nn", "yy", "xx", "ff"});
  return CreatePrimFunc({in, w, out}, "conv2d_nhwc");
}

PrimFunc Conv2dStride2Pad1() {  // (1, 4, 12, 12) * (8, 4, 3, 3), stride 2, pad 1 -> (1, 8, 6, 6)
  Tensor in = Placeholder("data", {1, 4, 12, 12}, kF32);
  Tensor w = Placeholder("kernel", {8, 4, 3, 3}, kF32);
  Tensor padded = PadHW(in, 1, "pad_temp");
  IterVar rc = ReduceAxis(4, "rc"), ry = ReduceAxis(3, "ry"), rx = ReduceAxis(3, "rx");
  Tensor out = Compute(
      {1, 8, 6, 6},
      [&](Var n, Var f, Var y, Var x) {
        return Sum(padded(n, rc.var, y * 2 + ry.var, x * 2 + rx.var) * w(f, rc.var, ry.var, rx.var),
                   {rc, ry, rx});
      },
      "conv2d_nchw", kNchw);
  return CreatePrimFunc({in, w, out}, "conv2d_stride2_pad1");
}

PrimFunc DepthwiseConv() {  // (1, 8, 10, 10) * (8, 1, 3, 3) -> (1, 8, 8, 8)
  Tensor in = Placeholder("data", {1, 8, 10, 10}, kF32);
  Tensor w = Placeholder("kernel", {8, 1, 3, 3}, kF32);
  IterVar ry = ReduceAxis(3, "ry"), rx = ReduceAxis(3, "rx");
  Tensor out =
      Compute({1, 8, 8, 8},
              [&](Var n, Var c, Var y, Var x) {
                return Sum(in(n, c, y + ry.var, x + rx.var) * w(c, 0, ry.var, rx.var), {ry, rx});
              },
              "depthwise_conv2d", {"b", "c", "i", "j"});
  return CreatePrimFunc({in, w, out}, "depthwise_conv");
}

PrimFunc MaxPool2x2() {  // (1, 4, 8, 8) -> (1, 4, 4, 4)
  Tensor in = Placeholder("data", {1, 4, 8, 8}, kF32);
  IterVar ry = ReduceAxis(2, "rv0"), rx = ReduceAxis(2, "rv1");
  Tensor out = Compute({1, 4, 4, 4},
                       [&](Var n, Var c, Var y, Var x) {
                         return Max(in(n, c, y * 2 + ry.var, x * 2 + rx.var), {ry, rx});
                       },
                       "pool_max", {"ax0", "ax1", "ax2", "ax3"});
  return CreatePrimFunc({in, out}, "max_pool_2x2");
}

PrimFunc AvgPool3x3Stride2Pad1() {  // (1, 4, 9, 9) -> (1, 4, 5, 5), padding counted
  Tensor in = Placeholder("data", {1, 4, 9, 9}, kF32);
  Tensor padded = PadHW(in, 1, "pad_temp");
  IterVar ry = ReduceAxis(3, "rv0"), rx = ReduceAxis(3, "rv1");
  const std::vector<std::string> axes = {"ax0", "ax1", "ax2", "ax3"};
  Tensor sum = Compute(
      {1, 4, 5, 5},
      [&](Var n, Var c, Var y, Var x) {
        return Sum(padded(n, c, y * 2 + ry.var, x * 2 + rx.var), {ry, rx});
      },
      "pool_sum", axes);
  Tensor out = Compute(
      {1, 4, 5, 5}, [&](const std::vector<Var>& i) { return sum(i) / Const(kF32, 9); }, "pool_avg",
      axes);
  return CreatePrimFunc({in, out}, "avg_pool_3x3_stride2_pad1");
}

PrimFunc GlobalAvgPool() {  // (1, 8, 6, 6) -> (1, 8, 1, 1)
  Tensor in = Placeholder("data", {1, 8, 6, 6}, kF32);
  IterVar ry = ReduceAxis(6, "rv0"), rx = ReduceAxis(6, "rv1");
  const std::vector<std::string> axes = {"ax0", "ax1", "ax2", "ax3"};
  Tensor sum = Compute(
      {1, 8, 1, 1},
      [&](Var n, Var c, Var, Var) {
        return Sum(in(n, c, ry.var, rx.var), {ry, rx});
      },
      "adaptive_pool_sum", axes);
  Tensor out = Compute(
      {1, 8, 1, 1}, [&](const std::vector<Var>& i) { return sum(i) / Const(kF32, 36); },
      "adaptive_pool_avg", axes);
  return CreatePrimFunc({in, out}, "global_avg_pool");
}

}  // namespace

void AddConvPoolEntries(std::vector<ZooEntry>& entries) {
  entries.push_back(MakeEntry("conv2d_nchw", Conv2dNchw, RefConv2dNchw, {2}));
  entries.push_back(MakeEntry("conv2d_nhwc", Conv2dNhwc, RefConv2dNhwc, {2}));
  entries.push_back(MakeEntry("conv2d_stride2_pad1", Conv2dStride2Pad1, RefConv2dStride2Pad1, {2}));
  entries.push_back(MakeEntry("depthwise_conv", DepthwiseConv, RefDepthwiseConv, {2}));
  entries.push_back(MakeEntry("max_pool_2x2", MaxPool2x2, RefMaxPool2x2, {1}));
  entries.push_back(
      MakeEntry("avg_pool_3x3_stride2_pad1", AvgPool3x3Stride2Pad1, RefAvgPool3x3Stride2Pad1, {1}));
  entries.push_back(MakeEntry("global_avg_pool", GlobalAvgPool, RefGlobalAvgPool, {1}));
}

}  // namespace kiln::ir::zoo
