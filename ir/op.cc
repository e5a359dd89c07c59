// The intrinsic list.
#include "ir/op.h"

namespace kiln::ir {

const std::vector<IntrinsicInfo>& Intrinsics() {
  static const std::vector<IntrinsicInfo> list = {
      {"exp", 1, true},      {"exp2", 1, true},       {"exp10", 1, true},   {"log", 1, true},
      {"log2", 1, true},     {"log10", 1, true},      {"log1p", 1, true},   {"sqrt", 1, true},
      {"rsqrt", 1, true},    {"tanh", 1, true},       {"sigmoid", 1, true}, {"erf", 1, true},
      {"sin", 1, true},      {"cos", 1, true},        {"tan", 1, true},     {"asin", 1, true},
      {"acos", 1, true},     {"atan", 1, true},       {"sinh", 1, true},    {"cosh", 1, true},
      {"asinh", 1, true},    {"acosh", 1, true},      {"atanh", 1, true},   {"floor", 1, true},
      {"ceil", 1, true},     {"round", 1, true},      {"trunc", 1, true},   {"nearbyint", 1, true},
      {"fabs", 1, false},    {"abs", 1, false},       {"isnan", 1, true},   {"isinf", 1, true},
      {"isfinite", 1, true}, {"pow", 2, true},        {"fmod", 2, true},    {"atan2", 2, true},
      {"copysign", 2, true}, {kIfThenElse, 3, false},
  };
  return list;
}

Expr IfThenElseCall(Expr condition, Expr true_value, Expr false_value) {
  KILN_CHECK(condition.defined() && true_value.defined() && false_value.defined(),
             ErrorKind::kInvalidIR, "if_then_else: undefined operand");
  KILN_CHECK(
      condition.dtype().is_bool() && condition.dtype().is_scalar(), ErrorKind::kType,
      "if_then_else: the condition must be a scalar bool, got " + condition.dtype().ToString());
  KILN_CHECK(true_value.dtype() == false_value.dtype(), ErrorKind::kType,
             "if_then_else: the branches differ in dtype: " + true_value.dtype().ToString() +
                 " and " + false_value.dtype().ToString());
  DataType t = true_value.dtype();
  return Call(t, std::string(kIfThenElse),
              {std::move(condition), std::move(true_value), std::move(false_value)});
}

std::optional<IntrinsicInfo> LookupIntrinsic(std::string_view name) {
  for (const IntrinsicInfo& info : Intrinsics()) {
    if (info.name == name) return info;
  }
  return std::nullopt;
}

}  // namespace kiln::ir
