// image.resize2d: nearest (each rounding method), linear and cubic (with and without
// excluding outside neighbours) under each coordinate transformation mode, up- and
// down-sampling, given scales, symbolic sizes and integer data, against ONNX Resize's
// definition computed in double.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

constexpr DataType kF32 = DataType::Float(32);

struct ResizeCase {
  std::string method = "linear";
  std::string mode = "half_pixel";
  std::string rounding = "round";
  double alpha = -0.5;
  bool exclude = false;
  double scale_h = 0, scale_w = 0;
};

double InCoord(const ResizeCase& c, int64_t o, int64_t in, int64_t out, double scale) {
  double ratio = scale != 0 ? 1.0 / scale : static_cast<double>(in) / out;
  if (c.mode == "half_pixel") return (o + 0.5) * ratio - 0.5;
  if (c.mode == "pytorch_half_pixel") return out > 1 ? (o + 0.5) * ratio - 0.5 : 0;
  if (c.mode == "tf_half_pixel_for_nn") return (o + 0.5) * ratio;
  if (c.mode == "align_corners") return out > 1 ? o * (in - 1.0) / (out - 1.0) : 0;
  return o * ratio;
}

int64_t Nearest(const std::string& rounding, double v) {
  if (rounding == "round") return std::llround(v);
  if (rounding == "round_prefer_floor") return static_cast<int64_t>(std::ceil(v - 0.5));
  if (rounding == "round_prefer_ceil") return static_cast<int64_t>(std::floor(v + 0.5));
  if (rounding == "floor") return static_cast<int64_t>(std::floor(v + 1e-5));
  return static_cast<int64_t>(std::ceil(v - 1e-5));
}

std::vector<double> Cubic(double t, double a) {
  // Keys' kernel at distances 1 + t, t, 1 - t, 2 - t.
  auto k = [a](double d) {
    d = std::fabs(d);
    if (d <= 1) return (a + 2) * d * d * d - (a + 3) * d * d + 1;
    if (d < 2) return a * d * d * d - 5 * a * d * d + 8 * a * d - 4 * a;
    return 0.0;
  };
  return {k(1 + t), k(t), k(1 - t), k(2 - t)};
}

HostTensor RefResize(const HostTensor& x, const ResizeCase& c, const Shape& out_shape,
                     DataType out_dtype) {
  HostTensor out(out_dtype, out_shape);
  int64_t h = x.shape()[2], w = x.shape()[3];
  auto clamp = [](int64_t v, int64_t n) { return std::clamp<int64_t>(v, 0, n - 1); };
  ForEachIndex(out_shape, [&](const Index& o) {
    double iy = InCoord(c, o[2], h, out_shape[2], c.scale_h);
    double ix = InCoord(c, o[3], w, out_shape[3], c.scale_w);
    auto px = [&](int64_t yy, int64_t xx) {
      return At(x, {o[0], o[1], clamp(yy, h), clamp(xx, w)});
    };
    double v;
    if (c.method == "nearest_neighbor") {
      v = px(Nearest(c.rounding, iy), Nearest(c.rounding, ix));
    } else {
      int64_t y0 = static_cast<int64_t>(std::floor(iy)), x0 = static_cast<int64_t>(std::floor(ix));
      double ty = iy - y0, tx = ix - x0;
      if (c.method == "linear") {
        double top = px(y0, x0) * (1 - tx) + px(y0, x0 + 1) * tx;
        double bottom = px(y0 + 1, x0) * (1 - tx) + px(y0 + 1, x0 + 1) * tx;
        v = top * (1 - ty) + bottom * ty;
      } else {
        std::vector<double> wy = Cubic(ty, c.alpha), wx = Cubic(tx, c.alpha);
        if (c.exclude) {
          double sy = 0, sx = 0;
          for (int i = 0; i < 4; ++i) {
            if (y0 - 1 + i < 0 || y0 - 1 + i >= h) wy[i] = 0;
            if (x0 - 1 + i < 0 || x0 - 1 + i >= w) wx[i] = 0;
            sy += wy[i];
            sx += wx[i];
          }
          for (int i = 0; i < 4; ++i) wy[i] /= sy, wx[i] /= sx;
        }
        v = 0;
        for (int j = 0; j < 4; ++j) {
          for (int i = 0; i < 4; ++i) v += px(y0 - 1 + j, x0 - 1 + i) * wy[j] * wx[i];
        }
      }
    }
    SetAt(out, o, out_dtype.is_float() ? v : std::trunc(v));
  });
  return out;
}

void CheckResize(const ResizeCase& c, const Shape& in_shape, int64_t oh, int64_t ow,
                 DataType dtype = kF32) {
  SCOPED_TRACE(c.method + " " + c.mode + " " + c.rounding);
  std::vector<PrimExpr> dims;
  for (int64_t d : in_shape) dims.push_back(DimConst(d));
  IRModule m = OpModule({TensorParam("x", dims, dtype)}, [&](const std::vector<Var>& p) {
    return Call("image.resize2d", {p[0], ShapeExpr({DimConst(oh), DimConst(ow)})},
                Attrs()
                    .Set("method", c.method)
                    .Set("coordinate_transformation_mode", c.mode)
                    .Set("rounding_method", c.rounding)
                    .Set("cubic_alpha", c.alpha)
                    .Set("cubic_exclude", c.exclude ? 1 : 0)
                    .Set("scale_h", c.scale_h)
                    .Set("scale_w", c.scale_w));
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(dtype, in_shape, 31, dtype.is_float() ? -1 : 0, dtype.is_float() ? 1 : 200);
  Value out = RunMain(legal, {x});
  Shape out_shape = {in_shape[0], in_shape[1], oh, ow};
  ExpectClose(RefResize(x, c, out_shape, dtype), out.tensor(), dtype.is_float() ? 1e-4 : 0,
              dtype.is_float() ? 1e-5 : 0);
}

TEST(LegalizeImage, NearestRoundingMethods) {
  for (const char* rounding :
       {"round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"}) {
    ResizeCase c;
    c.method = "nearest_neighbor";
    c.rounding = rounding;
    c.mode = "asymmetric";
    CheckResize(c, {1, 2, 3, 4}, 6, 6);
    c.mode = "half_pixel";
    CheckResize(c, {1, 2, 5, 4}, 3, 7);
  }
}

TEST(LegalizeImage, LinearModes) {
  for (const char* mode : {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel",
                           "tf_half_pixel_for_nn"}) {
    ResizeCase c;
    c.mode = mode;
    CheckResize(c, {1, 2, 3, 4}, 5, 7);
    CheckResize(c, {2, 1, 6, 5}, 4, 1);
  }
}

TEST(LegalizeImage, CubicWithAndWithoutExclusion) {
  for (bool exclude : {false, true}) {
    ResizeCase c;
    c.method = "cubic";
    c.alpha = -0.75;
    c.exclude = exclude;
    CheckResize(c, {1, 2, 4, 5}, 7, 3);
  }
}

TEST(LegalizeImage, GivenScales) {
  ResizeCase c;
  c.scale_h = 2.5;
  c.scale_w = 1.5;
  CheckResize(c, {1, 1, 2, 4}, 5, 6);
}

TEST(LegalizeImage, NearestOnIntegers) {
  ResizeCase c;
  c.method = "nearest_neighbor";
  c.mode = "asymmetric";
  c.rounding = "floor";
  CheckResize(c, {1, 3, 2, 2}, 4, 4, DataType::UInt(8));
}

TEST(LegalizeImage, SymbolicSize) {
  PrimVar n = SymbolicDim("n");
  IRModule m = OpModule({TensorParam("x", {1, 2, n, 3})}, [n](const std::vector<Var>& p) {
    return Call("image.resize2d", {p[0], ShapeExpr({n * 2, DimConst(6)})});
  });
  IRModule legal = LegalizeChecked(m);
  HostTensor x = Random(kF32, {1, 2, 3, 3}, 5);
  Value out = RunMain(legal, {x});
  ExpectClose(RefResize(x, ResizeCase{}, {1, 2, 6, 6}, kF32), out.tensor());
}

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
