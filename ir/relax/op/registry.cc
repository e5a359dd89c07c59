// The op registry and the checked construction of op calls.
#include "ir/relax/op/registry.h"

#include <algorithm>
#include <string>

#include "ir/relax/op/families.h"

namespace kiln::ir::relax {

OpRegistry& OpRegistry::Global() {
  static OpRegistry* registry = [] {
    auto* r = new OpRegistry();
    RegisterUnaryOps(*r);
    RegisterBinaryOps(*r);
    RegisterLinearAlgebraOps(*r);
    RegisterNNOps(*r);
    RegisterReduceOps(*r);
    RegisterManipulateOps(*r);
    RegisterCreateOps(*r);
    RegisterShapeOps(*r);
    RegisterCallOps(*r);
    RegisterTrigonometricOps(*r);
    RegisterImageOps(*r);
    return r;
  }();
  return *registry;
}

void OpRegistry::Register(OpInfo info) {
  KILN_CHECK(static_cast<bool>(info.infer), ErrorKind::kInternal,
             "op '" + info.name + "' has no inference function");
  std::string name = info.name;
  bool added = ops_.emplace(name, std::move(info)).second;
  KILN_CHECK(added, ErrorKind::kInternal, "op '" + name + "' is registered twice");
}

void OpRegistry::SetPattern(std::initializer_list<std::string_view> names, OpPattern pattern) {
  for (std::string_view name : names) {
    auto it = ops_.find(name);
    KILN_CHECK(it != ops_.end(), ErrorKind::kInternal,
               "op '" + std::string(name) + "' gets a pattern but is not registered");
    it->second.pattern = pattern;
  }
}

const char* OpPatternName(OpPattern pattern) {
  switch (pattern) {
    case OpPattern::kElemWise:
      return "elemwise";
    case OpPattern::kBroadcast:
      return "broadcast";
    case OpPattern::kInjective:
      return "injective";
    case OpPattern::kCommReduce:
      return "comm_reduce";
    case OpPattern::kOutEWiseFusable:
      return "out_ewise_fusable";
    case OpPattern::kOpaque:
      return "opaque";
  }
  return "?";
}

const OpInfo* OpRegistry::Find(std::string_view name) const {
  auto it = ops_.find(name);
  return it == ops_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, info] : ops_) names.push_back(name);
  return names;
}

namespace {

// Checks `attrs` against the op's schema and fills in defaults.
Attrs CheckAttrs(const OpInfo& info, Attrs attrs) {
  for (const auto& entry : attrs.values()) {
    // Not a structured binding: clang 14 (the fuzz build) cannot capture one in a lambda.
    const std::string& name = entry.first;
    const AttrValue& value = entry.second;
    auto spec = std::find_if(info.attrs.begin(), info.attrs.end(),
                             [&](const AttrSpec& s) { return s.name == name; });
    KILN_CHECK(spec != info.attrs.end(), ErrorKind::kType,
               info.name + ": unknown attribute '" + name + "'");
    AttrType given = TypeOf(value);
    if (given == spec->type) continue;
    if (given == AttrType::kInt && spec->type == AttrType::kFloat) {
      attrs.Set(name, static_cast<double>(std::get<int64_t>(value)));
      continue;
    }
    if (given == AttrType::kInt && spec->type == AttrType::kIntList && spec->int_or_list) continue;
    if (given == AttrType::kInt && spec->type == AttrType::kIntList) {
      attrs.Set(name, std::vector<int64_t>{std::get<int64_t>(value)});
      continue;
    }
    if (given == AttrType::kString && spec->type == AttrType::kDType) {
      auto t = DataType::Parse(std::get<std::string>(value));
      KILN_CHECK(
          t.has_value(), ErrorKind::kType,
          info.name + ": attribute '" + name + "' names no dtype: " + AttrValueToString(value));
      attrs.Set(name, *t);
      continue;
    }
    throw Error(ErrorKind::kType, info.name + ": attribute '" + name + "' must be " +
                                      AttrTypeName(spec->type) + ", got " + AttrTypeName(given) +
                                      " " + AttrValueToString(value));
  }
  for (const AttrSpec& spec : info.attrs) {
    if (attrs.Has(spec.name)) continue;
    KILN_CHECK(!spec.required, ErrorKind::kType,
               info.name + ": attribute '" + spec.name + "' is required");
    if (spec.default_value) attrs.Set(spec.name, *spec.default_value);
  }
  return attrs;
}

}  // namespace

Expr Call(const std::string& op, std::vector<Expr> args, Attrs attrs,
          std::vector<StructInfo> sinfo_args) {
  const OpInfo* info = OpRegistry::Global().Find(op);
  KILN_CHECK(info != nullptr, ErrorKind::kUnsupported, "unknown Relax op '" + op + "'");
  int n = static_cast<int>(args.size());
  if (n < info->min_args || (info->max_args >= 0 && n > info->max_args)) {
    std::string expected = std::to_string(info->min_args);
    if (info->max_args != info->min_args) {
      expected += info->max_args < 0 ? " or more" : " to " + std::to_string(info->max_args);
    }
    throw Error(ErrorKind::kType,
                op + ": takes " + expected + " arguments, got " + std::to_string(n));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    KILN_CHECK(args[i].defined(), ErrorKind::kInvalidIR,
               op + ": argument " + std::to_string(i) + " is undefined");
  }
  attrs = CheckAttrs(*info, std::move(attrs));
  StructInfo result = info->infer(OpCall{info->name, args, attrs, sinfo_args});
  auto node = std::make_shared<CallNode>(std::move(result));
  node->op = op;
  node->args = std::move(args);
  node->attrs = std::move(attrs);
  node->sinfo_args = std::move(sinfo_args);
  return Expr(std::move(node));
}

Expr CallTIR(const GlobalVar& func, std::vector<Expr> args, std::vector<StructInfo> out_sinfo,
             const Expr& tir_vars) {
  std::vector<Expr> call_args = {func, Tuple(std::move(args))};
  if (tir_vars.defined()) call_args.push_back(tir_vars);
  return Call("call_tir", std::move(call_args), Attrs(), std::move(out_sinfo));
}

Expr CallDPSPacked(const std::string& symbol, std::vector<Expr> args,
                   std::vector<StructInfo> out_sinfo) {
  return Call("call_dps_packed", {ExternFunc(symbol), Tuple(std::move(args))}, Attrs(),
              std::move(out_sinfo));
}

}  // namespace kiln::ir::relax
