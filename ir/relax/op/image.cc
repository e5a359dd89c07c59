// Image ops: resize2d, resizing the two spatial axes of an NCHW tensor to a given (symbolic)
// size by nearest, linear or cubic interpolation. The attributes follow TVM's
// relax.image.resize2d and ONNX's Resize: the coordinate transformation mode maps an output
// pixel to input coordinates, rounding_method picks the nearest pixel. scale_h and scale_w,
// when nonzero, are the scales an ONNX model gave instead of sizes: the coordinate transform
// then takes the resized length as input * scale rather than the (floored) output size, so
// half_pixel divides by the scale and align_corners multiplies by
// (input - 1) / (input * scale - 1), as ONNX's reference does.
#include <algorithm>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

void RequireOneOf(const OpCall& call, const std::string& attr,
                  const std::vector<std::string>& allowed) {
  const std::string& v = call.attrs.GetString(attr);
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return;
  std::string list;
  for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
  Fail(call, attr + " \"" + v + "\" is not one of " + list);
}

StructInfo InferResize2d(const OpCall& call) {
  if (call.attrs.GetString("layout") != "NCHW") {
    throw Error(ErrorKind::kUnsupported, call.op + ": layout \"" + call.attrs.GetString("layout") +
                                             "\" is not supported (only \"NCHW\")");
  }
  RequireOneOf(call, "method", {"nearest_neighbor", "linear", "cubic"});
  RequireOneOf(
      call, "coordinate_transformation_mode",
      {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel", "tf_half_pixel_for_nn"});
  RequireOneOf(call, "rounding_method",
               {"round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"});
  for (const char* s : {"scale_h", "scale_w"}) {
    if (call.attrs.GetFloat(s) < 0) {
      Fail(call, std::string(s) + " must not be negative (0: output size / input size)");
    }
  }
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (!x->unknown_ndim() && x->ndim != 4) {
    Fail(call, "the data must be 4-D (NCHW), got " + call.args[0].struct_info().ToString());
  }
  const ShapeStructInfoNode* size = ShapeArg(call, 1);
  if (size->ndim != kUnknownNDim && size->ndim != 2) {
    Fail(call, "the size must have 2 values (height, width), got " +
                   call.args[1].struct_info().ToString());
  }
  DataType dtype = x->dtype;
  if (const AttrValue* out = call.attrs.Find("out_dtype")) dtype = std::get<DataType>(*out);
  if (!x->shape || !size->values) return TensorStructInfo(dtype, 4);
  for (const PrimExpr& d : *size->values) {
    if (auto v = AsConstInt(d); v && *v < 0) {
      Fail(call, "the size " + DimsToString(*size->values) + " has a negative dim");
    }
  }
  return TensorStructInfo({(*x->shape)[0], (*x->shape)[1], (*size->values)[0], (*size->values)[1]},
                          dtype);
}

AttrSpec Str(const char* name, const char* value) {
  return {name, AttrType::kString, AttrValue(std::string(value))};
}

}  // namespace

void RegisterImageOps(OpRegistry& r) {
  r.Register(OpInfo{"image.resize2d",
                    2,
                    2,
                    {Str("layout", "NCHW"),
                     Str("method", "linear"),
                     Str("coordinate_transformation_mode", "half_pixel"),
                     Str("rounding_method", "round"),
                     {"cubic_alpha", AttrType::kFloat, AttrValue(-0.5)},
                     {"cubic_exclude", AttrType::kInt, AttrValue(int64_t{0})},
                     {"scale_h", AttrType::kFloat, AttrValue(0.0)},
                     {"scale_w", AttrType::kFloat, AttrValue(0.0)},
                     {"out_dtype", AttrType::kDType, std::nullopt}},
                    InferResize2d});
  r.SetPattern({"image.resize2d"}, OpPattern::kInjective);
}

}  // namespace kiln::ir::relax
