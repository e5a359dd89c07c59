// Resize (opset 11+) and Upsample (opsets 7 and 9) of 4-D NCHW tensors, as image.resize2d.
// The output size comes from `sizes` (which may be symbolic, computed from Shape) or from
// `scales` (floor(input * scale), symbolic only for integer scales); with scales the op gets
// them as scale_h/scale_w, since ONNX's coordinate transform divides by the scale itself.
#include <cmath>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

// floor(dim * scale), symbolic only when the scale is a whole number.
PrimExpr ScaledDim(NodeContext& ctx, const PrimExpr& dim, double scale) {
  if (!(scale > 0) || scale > 1e6) ctx.Invalid("scale " + std::to_string(scale) + " is not valid");
  if (auto d = AsConstInt(dim)) {
    return relax::DimConst(static_cast<int64_t>(std::floor(static_cast<double>(*d) * scale)));
  }
  if (scale != std::floor(scale)) {
    ctx.Unsupported("a fractional scale (" + std::to_string(scale) + ") of the symbolic dim " +
                    relax::DimToString(dim));
  }
  return relax::SimplifyDim(dim * relax::DimConst(static_cast<int64_t>(scale)));
}

struct ResizeTarget {
  std::vector<PrimExpr> size;  // (height, width)
  double scale_h = 0, scale_w = 0;
};

// The output size from four scales (N and C must be 1).
ResizeTarget FromScales(NodeContext& ctx, const HostTensor& scales,
                        const std::vector<PrimExpr>& shape) {
  if (scales.numel() != 4) {
    ctx.Invalid("scales has " + std::to_string(scales.numel()) + " values for a 4-D input");
  }
  if (scales.GetDouble(0) != 1 || scales.GetDouble(1) != 1) {
    ctx.Unsupported("scaling the batch or channel axis");
  }
  ResizeTarget t;
  t.scale_h = scales.GetDouble(2);
  t.scale_w = scales.GetDouble(3);
  t.size = {ScaledDim(ctx, shape[2], t.scale_h), ScaledDim(ctx, shape[3], t.scale_w)};
  return t;
}

Expr Resize2d(NodeContext& ctx, const ResizeTarget& target, const std::string& method,
              const std::string& coordinates, const std::string& rounding, double cubic_alpha,
              int64_t cubic_exclude) {
  relax::Attrs attrs;
  attrs.Set("method", method)
      .Set("coordinate_transformation_mode", coordinates)
      .Set("rounding_method", rounding)
      .Set("cubic_alpha", cubic_alpha)
      .Set("cubic_exclude", cubic_exclude)
      .Set("scale_h", target.scale_h)
      .Set("scale_w", target.scale_w);
  return ctx.Call("image.resize2d", {ctx.Input(0), relax::ShapeExpr(target.size)}, attrs);
}

std::string Method(NodeContext& ctx, const std::string& mode) {
  if (mode == "nearest") return "nearest_neighbor";
  if (mode == "linear" || mode == "bilinear") return "linear";
  if (mode == "cubic") return "cubic";
  ctx.Invalid("mode '" + mode + "' is not nearest, linear or cubic");
}

Outputs Resize(NodeContext& ctx) {
  if (ctx.InputRank(0) != 4) ctx.Unsupported("inputs that are not 4-D (NCHW)");
  std::string method = Method(ctx, ctx.String("mode", "nearest"));
  std::string coordinates = ctx.String("coordinate_transformation_mode", "half_pixel");
  if (coordinates == "tf_crop_and_resize")
    ctx.Unsupported(
        "coordinate_transformation_mode "
        "tf_crop_and_resize");
  std::string rounding = ctx.String("nearest_mode", "round_prefer_floor");
  double cubic_alpha = ctx.Float("cubic_coeff_a", -0.75);
  int64_t exclude = ctx.Int("exclude_outside", 0);
  ctx.Float("extrapolation_value", 0);  // used by tf_crop_and_resize only
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  ResizeTarget target;
  std::optional<SymTensor> sizes = ctx.HasInput(3) ? ctx.Known(3) : std::nullopt;
  if (ctx.HasInput(3) && !sizes) ctx.RequireKnown(3, "sizes");
  if (sizes && sizes->numel() > 0) {
    if (sizes->numel() != 4) ctx.Invalid("sizes needs 4 values for a 4-D input");
    for (int i = 0; i < 2; ++i) {
      if (!relax::ProveDimEqual(sizes->elems[i], shape[i])) {
        ctx.Unsupported("resizing the batch or channel axis");
      }
    }
    target.size = {sizes->elems[2], sizes->elems[3]};
  } else {
    std::optional<HostTensor> scales = ctx.HasInput(2) ? ctx.Constant(2) : std::nullopt;
    if (!scales) {
      if (ctx.HasInput(2)) ctx.RequireKnown(2, "scales");
      ctx.Invalid("needs scales or sizes");
    }
    target = FromScales(ctx, *scales, shape);
  }
  return {Resize2d(ctx, target, method, coordinates, rounding, cubic_alpha, exclude)};
}

Outputs Upsample(NodeContext& ctx) {
  if (ctx.InputRank(0) != 4) ctx.Unsupported("inputs that are not 4-D (NCHW)");
  std::string method = Method(ctx, ctx.String("mode", "nearest"));
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  std::optional<HostTensor> scales;
  if (ctx.opset() < 9) {
    std::vector<float> s = ctx.Floats("scales");
    HostTensor t(DataType::Float(32), {static_cast<int64_t>(s.size())});
    for (size_t i = 0; i < s.size(); ++i) t.SetDouble(static_cast<int64_t>(i), s[i]);
    scales = t;
  } else {
    scales = ctx.Constant(1);
    if (!scales) ctx.RequireKnown(1, "scales");
  }
  // Upsample maps output pixels with x / scale and takes the floor for nearest.
  return {Resize2d(ctx, FromScales(ctx, *scales, shape), method, "asymmetric", "floor", -0.75, 0)};
}

}  // namespace

void RegisterResizeConverters(ConverterTable& t) {
  t.Add("Resize", 11, Resize);
  t.Add("Upsample", 7, Upsample, 9);
}

}  // namespace kiln::ir::frontend::onnx
