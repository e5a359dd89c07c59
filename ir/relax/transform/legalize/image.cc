// image.resize2d over NCHW as TVM's topi.image.resize2d writes it: one "resize" stage that maps
// each output pixel to input coordinates (in float32) by the coordinate transformation mode,
// then reads the nearest pixel (by the rounding method), interpolates the 2x2 neighbours
// (linear) or the 4x4 ones with cubic spline weights (cubic, optionally excluding neighbours
// outside the image and renormalizing). Neighbours are clamped into the image, as topi's
// get_2d_pixel does; the result is cast to the output dtype.
#include "ir/compute/math.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;

constexpr DataType kF32 = DataType::Float(32);

struct ResizeAttrs {
  std::string method, mode, rounding;
  double alpha = -0.5;
  bool exclude = false;
  double scale_h = 0, scale_w = 0;
};

ir::Expr F32(double v) { return Const(kF32, v); }
ir::Expr Floor(const ir::Expr& e) { return compute::Intrinsic("floor", {e}); }
ir::Expr Ceil(const ir::Expr& e) { return compute::Intrinsic("ceil", {e}); }

// The input coordinate of output coordinate `o` along a dim of `in` pixels resized to `out`;
// `scale` (when nonzero) is the resize factor given instead of out / in.
ir::Expr InputCoordinate(const ResizeAttrs& a, const ir::Expr& o, const ir::Expr& in,
                         const ir::Expr& out, double scale) {
  ir::Expr x = ir::Cast(kF32, o);
  ir::Expr ratio = scale != 0 ? F32(1.0 / scale) : ir::Cast(kF32, in) / ir::Cast(kF32, out);
  if (a.mode == "half_pixel") return (x + F32(0.5)) * ratio - F32(0.5);
  if (a.mode == "pytorch_half_pixel") {
    return ir::Select(out > I64(1), (x + F32(0.5)) * ratio - F32(0.5), F32(0));
  }
  if (a.mode == "tf_half_pixel_for_nn") return (x + F32(0.5)) * ratio;
  if (a.mode == "align_corners") {
    // The resized length is in * scale when a scale is given (ONNX's definition, not the
    // rounded output size). One output pixel would divide by zero: it reads the first pixel.
    if (scale != 0) {
      ir::Expr resized_minus_one = ir::Cast(kF32, in) * F32(scale) - F32(1);
      return ir::Select(resized_minus_one > F32(0),
                        ir::Cast(kF32, in - I64(1)) / resized_minus_one * x, F32(0));
    }
    ir::Expr corner = ir::Cast(kF32, in - I64(1)) / ir::Cast(kF32, ir::Max(out - I64(1), I64(1)));
    return corner * x;
  }
  return ratio * x;  // asymmetric
}

// The nearest input index of coordinate `c` by the rounding method (epsilons as topi's, so a
// coordinate that is a whole number up to float error floors and ceils to itself).
ir::Expr NearestIndex(const std::string& rounding, const ir::Expr& c) {
  ir::Expr r;
  if (rounding == "round") {
    r = compute::Intrinsic("round", {c});
  } else if (rounding == "round_prefer_floor") {
    r = Ceil(c - F32(0.5));
  } else if (rounding == "round_prefer_ceil") {
    r = Floor(c + F32(0.5));
  } else if (rounding == "floor") {
    r = Floor(c + F32(1e-5));
  } else {
    r = Ceil(c - F32(1e-5));
  }
  return ir::Cast(DataType::Int(64), r);
}

std::vector<ir::Expr> CubicWeights(const ir::Expr& t, double alpha) {
  ir::Expr t2 = t * t, t3 = t2 * t;
  ir::Expr a = F32(alpha);
  return {a * (t3 - F32(2) * t2 + t), (a + F32(2)) * t3 - (F32(3) + a) * t2 + F32(1),
          -(a + F32(2)) * t3 + (F32(3) + F32(2) * a) * t2 - a * t, -a * t3 + a * t2};
}

Expr Resize2d(LegalizeContext& ctx) {
  Tensor data = ctx.Input(0);
  ResizeAttrs a;
  a.method = ctx.attrs().GetString("method");
  a.mode = ctx.attrs().GetString("coordinate_transformation_mode");
  a.rounding = ctx.attrs().GetString("rounding_method");
  a.alpha = ctx.attrs().GetFloat("cubic_alpha");
  a.exclude = ctx.attrs().GetInt("cubic_exclude") != 0;
  a.scale_h = ctx.attrs().GetFloat("scale_h");
  a.scale_w = ctx.attrs().GetFloat("scale_w");
  std::vector<ir::Expr> shape = ctx.OutShape();
  DataType out_dtype = ctx.OutDType();
  const ir::Expr& h = data.shape()[2];
  const ir::Expr& w = data.shape()[3];
  Tensor out = compute::Compute(
      shape,
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x) {
        ir::Expr in_y = InputCoordinate(a, y, h, shape[2], a.scale_h);
        ir::Expr in_x = InputCoordinate(a, x, w, shape[3], a.scale_w);
        auto pixel = [&](const ir::Expr& iy, const ir::Expr& ix) {
          return CastTo(kF32, data(n, c, ClampIndex(iy, h), ClampIndex(ix, w)));
        };
        if (a.method == "nearest_neighbor") {
          ir::Expr iy = NearestIndex(a.rounding, in_y), ix = NearestIndex(a.rounding, in_x);
          return CastTo(out_dtype, data(n, c, ClampIndex(iy, h), ClampIndex(ix, w)));
        }
        ir::Expr y0 = ir::Cast(DataType::Int(64), Floor(in_y));
        ir::Expr x0 = ir::Cast(DataType::Int(64), Floor(in_x));
        ir::Expr ty = in_y - Floor(in_y), tx = in_x - Floor(in_x);
        if (a.method == "linear") {
          auto lerp = [](const ir::Expr& p, const ir::Expr& q, const ir::Expr& t) {
            return p * (F32(1) - t) + q * t;
          };
          ir::Expr top = lerp(pixel(y0, x0), pixel(y0, x0 + I64(1)), tx);
          ir::Expr bottom = lerp(pixel(y0 + I64(1), x0), pixel(y0 + I64(1), x0 + I64(1)), tx);
          return CastTo(out_dtype, lerp(top, bottom, ty));
        }
        std::vector<ir::Expr> wy = CubicWeights(ty, a.alpha), wx = CubicWeights(tx, a.alpha);
        if (a.exclude) {
          // Neighbours outside the image weigh nothing; the rest are renormalized.
          auto exclude = [](std::vector<ir::Expr>& weights, const ir::Expr& base,
                            const ir::Expr& extent) {
            ir::Expr total;
            for (int i = 0; i < 4; ++i) {
              ir::Expr pos = base + I64(i - 1);
              weights[i] = ir::Select(pos < I64(0) || pos >= extent, F32(0), weights[i]);
              total = total.defined() ? total + weights[i] : weights[i];
            }
            for (ir::Expr& wt : weights) wt = wt / total;
          };
          exclude(wy, y0, h);
          exclude(wx, x0, w);
        }
        ir::Expr value;
        for (int j = 0; j < 4; ++j) {
          ir::Expr row;
          for (int i = 0; i < 4; ++i) {
            ir::Expr term = pixel(y0 + I64(j - 1), x0 + I64(i - 1)) * wx[i];
            row = row.defined() ? row + term : term;
          }
          value = value.defined() ? value + row * wy[j] : row * wy[j];
        }
        return CastTo(out_dtype, value);
      },
      "resize", {"i0", "i1", "i2", "i3"});
  return ctx.CallKernel("resize2d", {out});
}

}  // namespace

void AddImageRules(RuleTable& r) { r["image.resize2d"] = Resize2d; }

}  // namespace kiln::ir::relax::legalize
