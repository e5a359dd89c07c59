// Resize (versions 11 to 19: axes, keep_aspect_ratio_policy, antialias when upscaling,
// half_pixel_symmetric where it equals half_pixel) and Upsample (versions 7 and 9) of 4-D NCHW
// tensors, as image.resize2d.
// The output size comes from `sizes` (which may be symbolic, computed from Shape) or from
// `scales` (floor(input * scale), symbolic only for integer scales); with scales the op gets
// them as scale_h/scale_w, since ONNX's coordinate transform divides by the scale itself.
#include <algorithm>
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

// Version 18's axes: the scales or sizes given for `axes` spread over all four axes (1, or
// the input's dim, for the others).
std::vector<double> FullScales(NodeContext& ctx, const HostTensor& given,
                               const std::vector<int>& axes) {
  if (given.numel() != static_cast<int64_t>(axes.size())) {
    ctx.Invalid("scales has " + std::to_string(given.numel()) + " values for " +
                std::to_string(axes.size()) + " axes");
  }
  std::vector<double> full(4, 1.0);
  for (size_t i = 0; i < axes.size(); ++i) full[axes[i]] = given.GetDouble(static_cast<int64_t>(i));
  return full;
}

Outputs Resize(NodeContext& ctx) {
  if (ctx.InputRank(0) != 4) ctx.Unsupported("inputs that are not 4-D (NCHW)");
  std::string mode = ctx.String("mode", "nearest");
  std::string method = Method(ctx, mode);
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
  // Version 18: axes, keep_aspect_ratio_policy and antialias; 19: half_pixel_symmetric.
  std::vector<int> axes = {0, 1, 2, 3};
  std::string policy = "stretch";
  bool antialias = false;
  if (ctx.version() >= 18) {
    if (auto given = ctx.OptInts("axes")) {
      axes.clear();
      for (int64_t a : *given) axes.push_back(NormalizeAxis(ctx, a, 4, "axes entry"));
    }
    policy = ctx.String("keep_aspect_ratio_policy", "stretch");
    if (policy != "stretch" && policy != "not_larger" && policy != "not_smaller") {
      ctx.Invalid("keep_aspect_ratio_policy '" + policy +
                  "' is not stretch, not_larger or not_smaller");
    }
    antialias = ctx.Int("antialias", 0) != 0;
  }
  bool symmetric = coordinates == "half_pixel_symmetric" && ctx.version() >= 19;
  ResizeTarget target;
  std::optional<SymTensor> sizes = ctx.HasInput(3) ? ctx.Known(3) : std::nullopt;
  if (ctx.HasInput(3) && !sizes) ctx.RequireKnown(3, "sizes");
  if (sizes && sizes->numel() > 0) {
    if (sizes->numel() != static_cast<int64_t>(axes.size())) {
      ctx.Invalid("sizes has " + std::to_string(sizes->numel()) + " values for " +
                  std::to_string(axes.size()) + " axes");
    }
    std::vector<PrimExpr> full = shape;
    for (size_t i = 0; i < axes.size(); ++i) full[axes[i]] = sizes->elems[i];
    if (policy != "stretch") {
      // One scale for the given axes, the smallest (not_larger) or largest (not_smaller) of
      // size / dim; the sizes become round(dim * scale).
      std::optional<double> scale;
      for (size_t i = 0; i < axes.size(); ++i) {
        auto want = AsConstInt(sizes->elems[i]), have = AsConstInt(shape[axes[i]]);
        if (!want || !have || *have == 0)
          ctx.Unsupported("keep_aspect_ratio_policy on symbolic dims");
        double s = static_cast<double>(*want) / static_cast<double>(*have);
        scale = !scale ? s : policy == "not_larger" ? std::min(*scale, s) : std::max(*scale, s);
      }
      for (int a : axes) {
        full[a] = relax::DimConst(
            static_cast<int64_t>(std::round(static_cast<double>(*AsConstInt(shape[a])) * *scale)));
      }
      if (scale) target.scale_h = target.scale_w = *scale;
      for (int a : {0, 1}) {
        if (std::count(axes.begin(), axes.end(), a) == 0) continue;
        if (*scale != 1) ctx.Unsupported("resizing the batch or channel axis");
      }
      if (std::count(axes.begin(), axes.end(), 2) == 0) target.scale_h = 0;
      if (std::count(axes.begin(), axes.end(), 3) == 0) target.scale_w = 0;
    }
    for (int i = 0; i < 2; ++i) {
      if (!relax::ProveDimEqual(full[i], shape[i])) {
        ctx.Unsupported("resizing the batch or channel axis");
      }
    }
    target.size = {full[2], full[3]};
  } else {
    std::optional<HostTensor> scales = ctx.HasInput(2) ? ctx.Constant(2) : std::nullopt;
    if (!scales) {
      if (ctx.HasInput(2)) ctx.RequireKnown(2, "scales");
      ctx.Invalid("needs scales or sizes");
    }
    std::vector<double> full = FullScales(ctx, *scales, axes);
    HostTensor all(DataType::Float(32), {4});
    for (int i = 0; i < 4; ++i) all.SetDouble(i, full[i]);
    target = FromScales(ctx, all, shape);
    if (symmetric) {
      // half_pixel_symmetric differs from half_pixel only where dim * scale is fractional.
      for (int i = 2; i < 4; ++i) {
        auto d = AsConstInt(shape[i]);
        double scaled = d ? static_cast<double>(*d) * full[i] : 0.5;
        if (scaled != std::floor(scaled)) {
          ctx.Unsupported(
              "coordinate_transformation_mode half_pixel_symmetric with a scale "
              "that gives a fractional size");
        }
      }
    }
  }
  if (symmetric) coordinates = "half_pixel";
  if (antialias && mode != "nearest") {
    for (int i = 0; i < 2; ++i) {
      double scale = i == 0 ? target.scale_h : target.scale_w;
      auto in = AsConstInt(shape[2 + i]), out = AsConstInt(target.size[i]);
      if (scale == 0 && in && out && *in > 0) {
        scale = static_cast<double>(*out) / static_cast<double>(*in);
      }
      // Antialiasing widens the filter only when downscaling.
      if (!(scale >= 1)) ctx.Unsupported("antialias=1 when downscaling");
    }
  }
  return {Resize2d(ctx, target, method, coordinates, rounding, cubic_alpha, exclude)};
}

Outputs Upsample(NodeContext& ctx) {
  if (ctx.InputRank(0) != 4) ctx.Unsupported("inputs that are not 4-D (NCHW)");
  std::string method = Method(ctx, ctx.String("mode", "nearest"));
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  std::optional<HostTensor> scales;
  if (ctx.version() < 9) {
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
  t.Add("Resize", 11, Resize, 19);
  t.Add("Upsample", 7, Upsample, 9);
}

}  // namespace kiln::ir::frontend::onnx
