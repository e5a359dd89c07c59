// conv2d and conv2d_transpose with their attribute variants (strides, asymmetric padding,
// dilation, groups, depthwise, out_dtype, symbolic spatial dims) against direct loops.
#include <gtest/gtest.h>

#include "ir/text/printer.h"
#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

struct ConvAttrs {
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> padding = {0, 0, 0, 0};  // top, left, bottom, right
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  std::vector<int64_t> output_padding = {0, 0};
};

Attrs ToAttrs(const ConvAttrs& c, bool transpose) {
  Attrs a;
  a.Set("strides", c.strides).Set("padding", c.padding).Set("dilation", c.dilation);
  a.Set("groups", c.groups);
  if (transpose) a.Set("output_padding", c.output_padding);
  return a;
}

// out[n, f, y, x] = sum over the group's channels and the window of data * weight.
HostTensor RefConv(const HostTensor& data, const HostTensor& w, const ConvAttrs& c,
                   const Shape& out_shape, DataType out_dtype = kF32) {
  HostTensor out(out_dtype, out_shape);
  int64_t in_per_group = w.shape()[1], out_per_group = w.shape()[0] / c.groups;
  ForEachIndex(out_shape, [&](const Index& o) {
    double sum = 0;
    int64_t g = o[1] / out_per_group;
    for (int64_t rc = 0; rc < in_per_group; ++rc) {
      for (int64_t ky = 0; ky < w.shape()[2]; ++ky) {
        for (int64_t kx = 0; kx < w.shape()[3]; ++kx) {
          int64_t y = o[2] * c.strides[0] + ky * c.dilation[0] - c.padding[0];
          int64_t x = o[3] * c.strides[1] + kx * c.dilation[1] - c.padding[1];
          if (y < 0 || x < 0 || y >= data.shape()[2] || x >= data.shape()[3]) continue;
          sum += At(data, {o[0], g * in_per_group + rc, y, x}) * At(w, {o[1], rc, ky, kx});
        }
      }
    }
    SetAt(out, o, sum);
  });
  return out;
}

// Scatters every input element through the kernel: out[i * s - p + k * d] += in[i] * w[k].
HostTensor RefConvTranspose(const HostTensor& data, const HostTensor& w, const ConvAttrs& c,
                            const Shape& out_shape) {
  std::vector<double> acc(Numel(out_shape), 0.0);
  int64_t in_per_group = data.shape()[1] / c.groups, out_per_group = w.shape()[1];
  ForEachIndex(data.shape(), [&](const Index& i) {
    int64_t g = i[1] / in_per_group;
    for (int64_t of = 0; of < out_per_group; ++of) {
      for (int64_t ky = 0; ky < w.shape()[2]; ++ky) {
        for (int64_t kx = 0; kx < w.shape()[3]; ++kx) {
          int64_t y = i[2] * c.strides[0] - c.padding[0] + ky * c.dilation[0];
          int64_t x = i[3] * c.strides[1] - c.padding[1] + kx * c.dilation[1];
          if (y < 0 || x < 0 || y >= out_shape[2] || x >= out_shape[3]) continue;
          Index o = {i[0], g * out_per_group + of, y, x};
          acc[FlatIndex(out_shape, o)] += At(data, i) * At(w, {i[1], of, ky, kx});
        }
      }
    }
  });
  HostTensor out(data.dtype(), out_shape);
  for (int64_t k = 0; k < out.numel(); ++k) out.SetDouble(k, acc[k]);
  return out;
}

void CheckConv(std::vector<PrimExpr> data_dims, const Shape& data_shape, const Shape& w_shape,
               const ConvAttrs& c, const Shape& out_shape, bool transpose = false) {
  std::vector<PrimExpr> w_dims;
  for (int64_t d : w_shape) w_dims.push_back(DimConst(d));
  const char* op = transpose ? "nn.conv2d_transpose" : "nn.conv2d";
  IRModule m =
      OpModule({TensorParam("data", std::move(data_dims)), TensorParam("w", std::move(w_dims))},
               [&](const std::vector<Var>& p) {
                 return Call(op, {p[0], p[1]}, ToAttrs(c, transpose));
               });
  IRModule legal = LegalizeChecked(m);
  HostTensor data = Random(kF32, data_shape, 3), w = Random(kF32, w_shape, 4);
  Value out = RunMain(legal, {data, w});
  ASSERT_EQ(out.tensor().shape(), out_shape);
  ExpectClose(transpose ? RefConvTranspose(data, w, c, out_shape) : RefConv(data, w, c, out_shape),
              out.tensor());
}

TEST(LegalizeConv, Plain) { CheckConv({1, 3, 6, 6}, {1, 3, 6, 6}, {4, 3, 3, 3}, {}, {1, 4, 4, 4}); }

TEST(LegalizeConv, StridePaddingDilation) {
  ConvAttrs c;
  c.strides = {2, 1};
  c.padding = {1, 2, 0, 1};
  c.dilation = {1, 2};
  // H: (7 + 1 - 1 - 1) / 2 + 1 = 4; W: (6 + 3 - 4 - 1) / 1 + 1 = 5.
  CheckConv({2, 2, 7, 6}, {2, 2, 7, 6}, {3, 2, 2, 3}, c, {2, 3, 4, 5});
}

TEST(LegalizeConv, GroupsAndDepthwise) {
  ConvAttrs grouped;
  grouped.groups = 2;
  grouped.padding = {1, 1, 1, 1};
  CheckConv({1, 4, 5, 5}, {1, 4, 5, 5}, {6, 2, 3, 3}, grouped, {1, 6, 5, 5});
  ConvAttrs depthwise;
  depthwise.groups = 4;
  depthwise.strides = {2, 2};
  CheckConv({1, 4, 6, 6}, {1, 4, 6, 6}, {4, 1, 3, 3}, depthwise, {1, 4, 2, 2});
}

TEST(LegalizeConv, SymbolicSpatialDims) {
  PrimVar n = SymbolicDim("n"), h = SymbolicDim("h"), w = SymbolicDim("w");
  ConvAttrs c;
  c.padding = {1, 1, 1, 1};
  c.strides = {2, 2};
  CheckConv({n, 2, h, w}, {2, 2, 7, 5}, {3, 2, 3, 3}, c, {2, 3, 4, 3});
}

TEST(LegalizeConv, PaddingStageOnlyWhenPadded) {
  auto kernel_text = [](const ConvAttrs& c) {
    IRModule m = OpModule({TensorParam("data", {1, 2, 5, 5}), TensorParam("w", {2, 2, 3, 3})},
                          [&](const std::vector<Var>& p) {
                            return Call("nn.conv2d", {p[0], p[1]}, ToAttrs(c, false));
                          });
    return PrintPrimFunc(*LegalizeChecked(m).LookupPrimFunc("conv2d"));
  };
  ConvAttrs padded;
  padded.padding = {1, 1, 1, 1};
  EXPECT_EQ(kernel_text({}).find("pad_temp"), std::string::npos);
  EXPECT_NE(kernel_text(padded).find("T.sblock(\"pad_temp\")"), std::string::npos);
}

TEST(LegalizeConv, OutDtype) {
  IRModule m = OpModule({TensorParam("data", {1, 2, 4, 4}, DataType::Int(8)),
                         TensorParam("w", {2, 2, 3, 3}, DataType::Int(8))},
                        [](const std::vector<Var>& p) {
                          return Call("nn.conv2d", {p[0], p[1]}, Attrs().Set("out_dtype", "int32"));
                        });
  IRModule legal = LegalizeChecked(m);
  HostTensor data = Random(DataType::Int(8), {1, 2, 4, 4}, 1, -8, 8);
  HostTensor w = Random(DataType::Int(8), {2, 2, 3, 3}, 2, -8, 8);
  Value out = RunMain(legal, {data, w});
  ExpectClose(RefConv(data, w, {}, {1, 2, 2, 2}, DataType::Int(32)), out.tensor());
}

TEST(LegalizeConvTranspose, Plain) {
  CheckConv({1, 2, 3, 3}, {1, 2, 3, 3}, {2, 3, 3, 3}, {}, {1, 3, 5, 5}, true);
}

TEST(LegalizeConvTranspose, StridePaddingOutputPaddingDilation) {
  ConvAttrs c;
  c.strides = {2, 3};
  c.padding = {1, 0, 1, 2};
  c.output_padding = {1, 2};
  c.dilation = {1, 2};
  // H: (3 - 1) * 2 - 2 + 1 * (3 - 1) + 1 + 1 = 6; W: (4 - 1) * 3 - 2 + 2 * (2 - 1) + 2 + 1 = 12.
  CheckConv({2, 2, 3, 4}, {2, 2, 3, 4}, {2, 2, 3, 2}, c, {2, 2, 6, 12}, true);
}

TEST(LegalizeConvTranspose, Groups) {
  ConvAttrs c;
  c.groups = 2;
  c.strides = {2, 2};
  CheckConv({1, 4, 3, 3}, {1, 4, 3, 3}, {4, 3, 2, 2}, c, {1, 6, 6, 6}, true);
}

TEST(LegalizeConvTranspose, SymbolicSpatialDims) {
  PrimVar h = SymbolicDim("h");
  ConvAttrs c;
  c.strides = {2, 2};
  c.padding = {1, 1, 1, 1};
  CheckConv({1, 2, h, 3}, {1, 2, 4, 3}, {2, 2, 3, 3}, c, {1, 2, 7, 5}, true);
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
