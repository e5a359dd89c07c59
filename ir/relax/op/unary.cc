// Elementwise unary ops: the result has the argument's shape; most keep its dtype.
#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

enum class DTypeRule { kAny, kFloat, kFloatToBool, kBool };

StructInfo InferUnary(const OpCall& call, DTypeRule rule) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  switch (rule) {
    case DTypeRule::kAny:
      return call.args[0].struct_info();
    case DTypeRule::kFloat:
      RequireFloat(call, t, 0);
      return call.args[0].struct_info();
    case DTypeRule::kFloatToBool:
      RequireFloat(call, t, 0);
      return MakeTensor(t->shape, t->ndim, DataType::Bool());
    case DTypeRule::kBool:
      if (!t->unknown_dtype() && !t->dtype.is_bool()) {
        Fail(call, "argument 0 must be a bool tensor, got " + t->dtype.ToString());
      }
      return call.args[0].struct_info();
  }
  return StructInfo();
}

void Unary(OpRegistry& r, const std::string& name, DTypeRule rule,
           std::vector<AttrSpec> attrs = {}) {
  r.Register(OpInfo{name, 1, 1, std::move(attrs),
                    [rule](const OpCall& call) { return InferUnary(call, rule); }});
}

StructInfo InferAstype(const OpCall& call) {
  const TensorStructInfoNode* t = TensorArg(call, 0);
  return MakeTensor(t->shape, t->ndim, call.attrs.GetDType("dtype"));
}

StructInfo InferClip(const OpCall& call) {
  TensorArg(call, 0);
  double lo = call.attrs.GetFloat("min"), hi = call.attrs.GetFloat("max");
  if (lo > hi) {
    Fail(call, "min " + AttrValueToString(lo) + " is greater than max " + AttrValueToString(hi));
  }
  return call.args[0].struct_info();
}

}  // namespace

void RegisterUnaryOps(OpRegistry& r) {
  for (const char* name : {"abs", "negative", "sign", "square", "floor", "ceil", "round"}) {
    Unary(r, name, DTypeRule::kAny);
  }
  for (const char* name : {"sqrt", "rsqrt", "exp", "log", "tanh", "sigmoid", "erf", "sin", "cos",
                           "nn.gelu", "nn.gelu_tanh", "nn.silu"}) {
    Unary(r, name, DTypeRule::kFloat);
  }
  Unary(r, "nn.relu", DTypeRule::kAny);
  for (const char* name : {"isnan", "isinf", "isfinite"}) Unary(r, name, DTypeRule::kFloatToBool);
  Unary(r, "logical_not", DTypeRule::kBool);
  Unary(r, "nn.leakyrelu", DTypeRule::kFloat, {{"alpha", AttrType::kFloat, AttrValue(0.01)}});
  r.Register(OpInfo{"clip",
                    1,
                    1,
                    {{"min", AttrType::kFloat, std::nullopt, true},
                     {"max", AttrType::kFloat, std::nullopt, true}},
                    InferClip});
  r.Register(
      OpInfo{"astype", 1, 1, {{"dtype", AttrType::kDType, std::nullopt, true}}, InferAstype});
  r.SetPattern({"abs",   "negative", "sign",        "square",       "floor",   "ceil",    "round",
                "sqrt",  "rsqrt",    "exp",         "log",          "tanh",    "sigmoid", "erf",
                "sin",   "cos",      "nn.gelu",     "nn.gelu_tanh", "nn.silu", "nn.relu", "isnan",
                "isinf", "isfinite", "logical_not", "nn.leakyrelu", "clip",    "astype"},
               OpPattern::kElemWise);
}

}  // namespace kiln::ir::relax
