// Relax expression builders: each computes the struct info of what it builds.
#include "ir/relax/expr.h"

#include <unordered_map>

#include "ir/relax/struct_info_util.h"

namespace kiln::ir::relax {

const char* ExprKindName(ExprKind kind) {
  switch (kind) {
    case ExprKind::kVar:
      return "Var";
    case ExprKind::kDataflowVar:
      return "DataflowVar";
    case ExprKind::kConstant:
      return "Constant";
    case ExprKind::kTuple:
      return "Tuple";
    case ExprKind::kTupleGetItem:
      return "TupleGetItem";
    case ExprKind::kShapeExpr:
      return "ShapeExpr";
    case ExprKind::kPrimValue:
      return "PrimValue";
    case ExprKind::kCall:
      return "Call";
    case ExprKind::kGlobalVar:
      return "GlobalVar";
    case ExprKind::kExternFunc:
      return "ExternFunc";
    case ExprKind::kSeqExpr:
      return "SeqExpr";
    case ExprKind::kFunction:
      return "Function";
  }
  return "?";
}

namespace {

void CheckDefined(const Expr& e, const std::string& what) {
  KILN_CHECK(e.defined(), ErrorKind::kInvalidIR, what + ": undefined expression");
}

}  // namespace

Var::Var(std::string name, StructInfo struct_info)
    : Expr(std::make_shared<const VarNode>(
          ExprKind::kVar, std::move(name),
          struct_info.defined() ? std::move(struct_info) : ObjectStructInfo())) {}

Var::Var(std::shared_ptr<const ExprNode> ptr) : Expr(std::move(ptr)) {
  KILN_CHECK(ptr_ == nullptr || VarNode::Matches(ptr_->kind), ErrorKind::kInternal,
             "relax::Var handle made from a non-Var expression");
}

Var DataflowVar(std::string name, StructInfo struct_info) {
  return Var(std::make_shared<const VarNode>(
      ExprKind::kDataflowVar, std::move(name),
      struct_info.defined() ? std::move(struct_info) : ObjectStructInfo()));
}

GlobalVar::GlobalVar(std::string name, StructInfo struct_info)
    : Expr(std::make_shared<const GlobalVarNode>(std::move(name), std::move(struct_info))) {}

Function::Function(std::shared_ptr<const ExprNode> ptr) : Expr(std::move(ptr)) {
  KILN_CHECK(ptr_ == nullptr || ptr_->kind == ExprKind::kFunction, ErrorKind::kInternal,
             "relax::Function handle made from another expression");
}

Binding VarBinding(Var var, Expr value) {
  KILN_CHECK(var.defined() && value.defined(), ErrorKind::kInvalidIR,
             "binding: undefined variable or value");
  return Binding{std::move(var), std::move(value), StructInfo()};
}

Binding MatchCast(Var var, Expr value, StructInfo pattern, std::string note) {
  KILN_CHECK(var.defined() && value.defined() && pattern.defined(), ErrorKind::kInvalidIR,
             "match_cast: undefined variable, value or pattern");
  KILN_CHECK(CanMatch(pattern, value.struct_info()), ErrorKind::kType,
             "match_cast of " + var.name() + ": a value of " + value.struct_info().ToString() +
                 " can never match " + pattern.ToString());
  return Binding{std::move(var), std::move(value), std::move(pattern), std::move(note)};
}

Expr Constant(HostTensor data) {
  KILN_CHECK(data.defined(), ErrorKind::kInvalidIR, "R.const: undefined tensor");
  std::vector<PrimExpr> shape;
  for (int64_t d : data.shape()) shape.push_back(DimConst(d));
  StructInfo s = TensorStructInfo(std::move(shape), data.dtype());
  return Expr(std::make_shared<const ConstantNode>(std::move(data), std::move(s)));
}

Expr Tuple(std::vector<Expr> fields) {
  std::vector<StructInfo> infos;
  for (const Expr& f : fields) {
    CheckDefined(f, "R.tuple");
    infos.push_back(f.struct_info());
  }
  StructInfo s = TupleStructInfo(std::move(infos));
  return Expr(std::make_shared<const TupleNode>(std::move(fields), std::move(s)));
}

Expr TupleGetItem(Expr tuple, int index) {
  CheckDefined(tuple, "TupleGetItem");
  const auto* t = tuple.struct_info().as<TupleStructInfoNode>();
  KILN_CHECK(t != nullptr, ErrorKind::kType,
             "TupleGetItem: expected a tuple, got " + tuple.struct_info().ToString());
  KILN_CHECK(index >= 0 && static_cast<size_t>(index) < t->fields.size(), ErrorKind::kType,
             "TupleGetItem: index " + std::to_string(index) + " is out of range for a tuple of " +
                 std::to_string(t->fields.size()));
  StructInfo s = t->fields[index];
  return Expr(std::make_shared<const TupleGetItemNode>(std::move(tuple), index, std::move(s)));
}

Expr ShapeExpr(std::vector<PrimExpr> values) {
  for (PrimExpr& v : values) v = ToDim(v);
  StructInfo s = ShapeStructInfo(values);
  return Expr(std::make_shared<const ShapeExprNode>(std::move(values), std::move(s)));
}

Expr PrimValue(PrimExpr value) {
  KILN_CHECK(value.defined() && value.dtype().is_scalar(), ErrorKind::kType,
             "R.prim_value: needs a scalar expression");
  StructInfo s = value.dtype().is_integral() && !value.dtype().is_bool()
                     ? PrimStructInfo(value)
                     : PrimStructInfo(value.dtype());
  if (value.dtype().is_integral() && !value.dtype().is_bool()) value = ToDim(value);
  return Expr(std::make_shared<const PrimValueNode>(std::move(value), std::move(s)));
}

Expr ExternFunc(std::string symbol) {
  KILN_CHECK(!symbol.empty(), ErrorKind::kInvalidIR, "ExternFunc: empty symbol");
  return Expr(std::make_shared<const ExternFuncNode>(std::move(symbol)));
}

Expr SeqExpr(std::vector<BindingBlock> blocks, Expr body) {
  CheckDefined(body, "SeqExpr");
  StructInfo s = body.struct_info();
  return Expr(
      std::make_shared<const SeqExprNode>(std::move(blocks), std::move(body), std::move(s)));
}

Function MakeFunction(std::vector<Var> params, Expr body, StructInfo ret, Attrs attrs) {
  CheckDefined(body, "function");
  std::string name = "function";
  if (const AttrValue* g = attrs.Find("global_symbol")) {
    if (const auto* symbol = std::get_if<std::string>(g)) name = "function " + *symbol;
  }
  if (ret.defined()) {
    KILN_CHECK(CanMatch(ret, body.struct_info()), ErrorKind::kType,
               name + ": body is " + body.struct_info().ToString() +
                   ", which cannot be the declared return " + ret.ToString());
  } else {
    ret = body.struct_info();
  }
  std::vector<StructInfo> param_infos;
  for (const Var& p : params) {
    KILN_CHECK(p.defined() && !p.is_dataflow(), ErrorKind::kInvalidIR,
               name + ": a parameter must be a (non-dataflow) Var");
    param_infos.push_back(p.struct_info());
  }
  auto node = std::make_shared<FunctionNode>(FuncStructInfo(std::move(param_infos), ret));
  node->params = std::move(params);
  node->body = std::move(body);
  node->ret_struct_info = std::move(ret);
  node->attrs = std::move(attrs);
  return Function(std::move(node));
}

Expr CallFunction(Expr callee, std::vector<Expr> args) {
  CheckDefined(callee, "call");
  std::string name = callee.as<GlobalVarNode>() ? callee.as<GlobalVarNode>()->name
                     : callee.as<VarNode>()     ? callee.as<VarNode>()->name
                                                : ExprKindName(callee.kind());
  const auto* f = callee.struct_info().as<FuncStructInfoNode>();
  KILN_CHECK(
      f != nullptr, ErrorKind::kType,
      "call of " + name + ": not a Relax function (" + callee.struct_info().ToString() + ")");
  KILN_CHECK(f->params.size() == args.size(), ErrorKind::kType,
             "call of " + name + ": takes " + std::to_string(f->params.size()) +
                 " arguments, got " + std::to_string(args.size()));
  DimBindings bindings;
  for (size_t i = 0; i < args.size(); ++i) {
    CheckDefined(args[i], "call of " + name);
    KILN_CHECK(CanMatch(f->params[i], args[i].struct_info()), ErrorKind::kType,
               "call of " + name + ": argument " + std::to_string(i) + " is " +
                   args[i].struct_info().ToString() + ", the parameter is " +
                   f->params[i].ToString());
    BindSymbolicDims(f->params[i], args[i].struct_info(), bindings);
  }
  auto node = std::make_shared<CallNode>(SubstituteDims(f->ret, bindings));
  node->callee = std::move(callee);
  node->args = std::move(args);
  return Expr(std::move(node));
}

}  // namespace kiln::ir::relax
