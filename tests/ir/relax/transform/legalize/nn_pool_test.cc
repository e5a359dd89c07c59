// Pooling: max and avg with padding, strides, dilation, ceil_mode and count_include_pad
// (PyTorch's and topi's divisor), adaptive average pooling with uneven windows, global
// average pooling, with static and symbolic spatial dims, against direct window loops.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

struct PoolAttrs {
  std::vector<int64_t> size = {2, 2};
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> padding = {0, 0, 0, 0};
  std::vector<int64_t> dilation = {1, 1};
  bool ceil_mode = false;
  bool count_include_pad = false;
};

// Window positions of output `o` along spatial dim `i` (unclipped).
std::vector<int64_t> Positions(const PoolAttrs& p, int i, int64_t o) {
  std::vector<int64_t> pos;
  for (int64_t k = 0; k < p.size[i]; ++k) {
    pos.push_back(o * p.strides[i] - p.padding[i] + k * p.dilation[i]);
  }
  return pos;
}

HostTensor RefPool(const HostTensor& x, const PoolAttrs& p, bool max, const Shape& out_shape) {
  HostTensor out(kF32, out_shape);
  int64_t h = x.shape()[2], w = x.shape()[3];
  ForEachIndex(out_shape, [&](const Index& o) {
    double best = -std::numeric_limits<float>::max(), sum = 0;
    int64_t inside = 0, in_padded = 0;
    for (int64_t y : Positions(p, 0, o[2])) {
      for (int64_t xx : Positions(p, 1, o[3])) {
        if (y < h + p.padding[2] && xx < w + p.padding[3]) ++in_padded;
        if (y < 0 || xx < 0 || y >= h || xx >= w) continue;
        double v = At(x, {o[0], o[1], y, xx});
        best = std::max(best, v);
        sum += v;
        ++inside;
      }
    }
    double count = p.count_include_pad ? in_padded : std::max<int64_t>(inside, 1);
    SetAt(out, o, max ? best : sum / count);
  });
  return out;
}

Attrs ToAttrs(const PoolAttrs& p, bool avg) {
  Attrs a;
  a.Set("pool_size", p.size).Set("strides", p.strides).Set("padding", p.padding);
  a.Set("dilation", p.dilation).Set("ceil_mode", p.ceil_mode);
  if (avg) a.Set("count_include_pad", p.count_include_pad);
  return a;
}

void CheckPool(bool max, std::vector<PrimExpr> dims, const Shape& x_shape, const PoolAttrs& p,
               const Shape& out_shape) {
  SCOPED_TRACE(max ? "max_pool2d" : "avg_pool2d");
  IRModule m = OpModule({TensorParam("x", std::move(dims))}, [&](const std::vector<Var>& v) {
    return Call(max ? "nn.max_pool2d" : "nn.avg_pool2d", {v[0]}, ToAttrs(p, !max));
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, x_shape, 9);
  Value out = RunMain(legal, {x});
  ASSERT_EQ(out.tensor().shape(), out_shape);
  ExpectClose(RefPool(x, p, max, out_shape), out.tensor());
}

TEST(LegalizePool, MaxWithPaddingAndStride) {
  PoolAttrs p;
  p.size = {3, 3};
  p.strides = {2, 2};
  p.padding = {1, 1, 1, 1};
  CheckPool(true, {1, 2, 7, 6}, {1, 2, 7, 6}, p, {1, 2, 4, 3});
}

TEST(LegalizePool, MaxCeilModeAndDilation) {
  PoolAttrs p;
  p.size = {2, 2};
  p.strides = {2, 2};
  p.ceil_mode = true;
  CheckPool(true, {1, 2, 5, 7}, {1, 2, 5, 7}, p, {1, 2, 3, 4});
  PoolAttrs d;
  d.size = {2, 3};
  d.dilation = {2, 1};
  d.padding = {0, 1, 0, 0};
  CheckPool(true, {1, 1, 6, 5}, {1, 1, 6, 5}, d, {1, 1, 4, 4});
}

TEST(LegalizePool, AvgCountsPaddingOrNot) {
  PoolAttrs p;
  p.size = {3, 3};
  p.strides = {2, 2};
  p.padding = {1, 1, 1, 1};
  for (bool include : {false, true}) {
    p.count_include_pad = include;
    CheckPool(false, {1, 2, 6, 5}, {1, 2, 6, 5}, p, {1, 2, 3, 3});
  }
}

TEST(LegalizePool, AvgCeilModeClipsTheDivisor) {
  PoolAttrs p;
  p.size = {3, 3};
  p.strides = {2, 2};
  p.padding = {1, 0, 1, 0};
  p.ceil_mode = true;
  for (bool include : {false, true}) {
    p.count_include_pad = include;
    // H: ceil((6 + 2 - 3) / 2) + 1 = 4; W: ceil((6 - 3) / 2) + 1 = 3.
    CheckPool(false, {1, 1, 6, 6}, {1, 1, 6, 6}, p, {1, 1, 4, 3});
  }
}

TEST(LegalizePool, SymbolicSpatialDims) {
  PrimVar h = SymbolicDim("h"), w = SymbolicDim("w");
  PoolAttrs p;
  p.size = {2, 2};
  p.strides = {2, 2};
  p.padding = {1, 1, 0, 0};
  CheckPool(true, {2, 3, h, w}, {2, 3, 5, 4}, p, {2, 3, 3, 2});
  p.ceil_mode = true;
  CheckPool(false, {2, 3, h, w}, {2, 3, 5, 4}, p, {2, 3, 3, 3});
}

HostTensor RefAdaptive(const HostTensor& x, const Shape& out_shape) {
  HostTensor out(kF32, out_shape);
  int64_t h = x.shape()[2], w = x.shape()[3], oh = out_shape[2], ow = out_shape[3];
  ForEachIndex(out_shape, [&](const Index& o) {
    int64_t y0 = o[2] * h / oh, y1 = ((o[2] + 1) * h + oh - 1) / oh;
    int64_t x0 = o[3] * w / ow, x1 = ((o[3] + 1) * w + ow - 1) / ow;
    double sum = 0;
    for (int64_t y = y0; y < y1; ++y) {
      for (int64_t xx = x0; xx < x1; ++xx) sum += At(x, {o[0], o[1], y, xx});
    }
    SetAt(out, o, sum / static_cast<double>((y1 - y0) * (x1 - x0)));
  });
  return out;
}

void CheckAdaptive(std::vector<PrimExpr> dims, const Shape& x_shape, const Attrs& attrs,
                   const Shape& out_shape, const std::string& op = "nn.adaptive_avg_pool2d") {
  IRModule m = OpModule({TensorParam("x", std::move(dims))},
                        [&](const std::vector<Var>& v) { return Call(op, {v[0]}, attrs); });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, x_shape, 4);
  Value out = RunMain(legal, {x});
  ASSERT_EQ(out.tensor().shape(), out_shape);
  ExpectClose(RefAdaptive(x, out_shape), out.tensor());
}

TEST(LegalizePool, AdaptiveUnevenWindows) {
  CheckAdaptive({1, 2, 7, 5}, {1, 2, 7, 5}, Attrs().Set("output_size", {3, 2}), {1, 2, 3, 2});
  CheckAdaptive({1, 2, 4, 4}, {1, 2, 4, 4}, Attrs().Set("output_size", {2, 2}), {1, 2, 2, 2});
  // No output size: the input's own size, every window one element.
  CheckAdaptive({1, 2, 3, 3}, {1, 2, 3, 3}, Attrs(), {1, 2, 3, 3});
}

TEST(LegalizePool, AdaptiveSymbolic) {
  PrimVar h = SymbolicDim("h"), w = SymbolicDim("w");
  CheckAdaptive({1, 2, h, w}, {1, 2, 9, 5}, Attrs().Set("output_size", {4, 3}), {1, 2, 4, 3});
}

TEST(LegalizePool, Global) {
  PrimVar h = SymbolicDim("h");
  CheckAdaptive({2, 3, h, 5}, {2, 3, 6, 5}, Attrs(), {2, 3, 1, 1}, "nn.global_avg_pool2d");
  CheckAdaptive({1, 2, 4, 4}, {1, 2, 4, 4}, Attrs().Set("output_size", {1, 1}), {1, 2, 1, 1});
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
