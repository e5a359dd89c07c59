// R.* expressions of the Relax parser: the builtins (R.const, R.shape, R.prim_value, R.tuple,
// R.ExternFunc, R.dtype), calls in destination-passing style (R.call_tir, R.call_dps_packed;
// their outputs as out_ty=, which TVM 0.24+ prints, or out_sinfo=, as older TVM) and op calls,
// whose positional and keyword arguments are matched against the op's schema in the registry before
// relax::Call checks them and infers the result.
#include "ir/relax/op/registry.h"
#include "ir/relax/text/parser_impl.h"

namespace kiln::ir::relax::text {

RelaxParser::Value RelaxParser::ParseRDotted() {
  Next();  // .
  const Token& first = ExpectName("a name after 'R.'");
  static const std::set<std::string> kStructInfo = {"Tensor", "Tuple",  "Shape",
                                                    "Prim",   "Object", "Callable"};
  if (kStructInfo.count(first.text) != 0) return ParseSInfo(first, first.text);
  std::string name = first.text;
  while (Peek().IsOp(".") && Peek(1).kind == TokenKind::kName) {
    Next();
    name += "." + Next().text;
  }
  if (name == "const") return ParseConst(first);
  if (name == "match_cast") {
    Fail(first, "R.match_cast(...) must be the whole value of a binding: y = R.match_cast(x, ...)");
  }
  if (name == "output" || name == "dataflow" || name == "func_attr") {
    Fail(first, "R." + name + " is a statement, not a value");
  }
  if (name == "call_tir" || name == "call_dps_packed")
    return ParseCallTIR(first, name == "call_tir");
  if (!Peek().IsOp("(")) Expected("'(' after R." + name);
  if (name == "shape" || name == "prim_value" || name == "tuple" || name == "ExternFunc" ||
      name == "dtype") {
    Args args = ParseArgs();
    if (!args.keywords.empty()) Fail(args.keywords[0].first, "R." + name + " takes no keywords");
    if (name == "tuple") {
      std::vector<Expr> fields;
      int depth = 1;
      for (const Value& a : args.positional) {
        fields.push_back(AsExpr(a, "a field of R.tuple"));
        depth = std::max(depth, a.depth + 1);
      }
      return ExprValue(first, Build(first, [&] { return Tuple(fields); }), depth);
    }
    if (args.positional.size() != 1) Fail(first, "R." + name + " takes one argument");
    const Value& a = args.positional[0];
    if (name == "shape") {
      if (a.kind != Value::kList && a.kind != Value::kTuple) {
        Fail(a.at, "R.shape takes a list of dims: R.shape([n, 4])");
      }
      std::vector<PrimExpr> dims;
      for (const Value& d : a.items) dims.push_back(AsDim(d));
      return ExprValue(first, Build(first, [&] { return ShapeExpr(dims); }), 1);
    }
    if (name == "prim_value") {
      PrimExpr value;
      if (a.kind == Value::kFloat) {
        value = FloatImm(DataType::Float(32), a.float_value);
      } else if (a.kind == Value::kBool) {
        value = BoolImm(a.bool_value);
      } else if (a.kind == Value::kDim &&
                 (!a.dim.dtype().is_integral() || a.dim.dtype().is_bool())) {
        value = a.dim;
      } else {
        value = AsDim(a);
      }
      return ExprValue(first, Build(first, [&] { return PrimValue(value); }), 1);
    }
    if (name == "ExternFunc") {
      std::string symbol = AsString(a, "the symbol of R.ExternFunc");
      return ExprValue(first, Build(first, [&] { return ExternFunc(symbol); }), 1);
    }
    Value v;
    v.kind = Value::kDType;
    v.at = first;
    v.dtype = AsDType(a, "R.dtype");
    return v;
  }
  return ParseOpCall(first, name);
}

RelaxParser::Value RelaxParser::ParseOpCall(const Token& at, const std::string& op) {
  const OpInfo* info = OpRegistry::Global().Find(op);
  if (info == nullptr) Fail(at, "unknown Relax op 'R." + op + "'", ErrorKind::kUnsupported);
  Args args = ParseArgs();
  size_t num_exprs = args.positional.size();
  if (info->max_args >= 0) num_exprs = std::min(num_exprs, static_cast<size_t>(info->max_args));
  // Past the op's required arguments, a literal list or tuple of plain values starts the
  // attributes: R.strided_slice(x, (1,), (0,), (2,)) as TVM prints it, next to the argument form
  // R.strided_slice(x, R.shape([0]), R.shape([n]), axes=[1]).
  for (size_t i = static_cast<size_t>(std::max(info->min_args, 0)); i < num_exprs; ++i) {
    const Value& v = args.positional[i];
    bool literal = v.kind == Value::kList || v.kind == Value::kTuple;
    for (const Value& item : v.items) literal &= item.kind != Value::kExpr;
    if (literal) {
      num_exprs = i;
      break;
    }
  }
  std::vector<Expr> exprs;
  int depth = 1;
  for (size_t i = 0; i < num_exprs; ++i) {
    exprs.push_back(AsExpr(args.positional[i], "argument " + std::to_string(i) + " of R." + op));
    depth = std::max(depth, args.positional[i].depth + 1);
  }
  Attrs attrs;
  // Positional values after the op's arguments are its attributes, in schema order.
  for (size_t i = num_exprs; i < args.positional.size(); ++i) {
    size_t k = i - num_exprs;
    if (k >= info->attrs.size()) {
      Fail(args.positional[i].at,
           "R." + op + " takes at most " + std::to_string(num_exprs) + " arguments and " +
               std::to_string(info->attrs.size()) + " attributes",
           ErrorKind::kType);
    }
    const std::string& name = info->attrs[k].name;
    if (args.positional[i].kind != Value::kNone) {
      attrs.Set(name, AsAttr(args.positional[i], name));
    }
  }
  std::vector<StructInfo> sinfo_args;
  for (const auto& [key, value] : args.keywords) {
    if (key.text == "out_sinfo" || key.text == "out_ty") {
      if (value.kind == Value::kList || value.kind == Value::kTuple) {
        for (const Value& s : value.items) sinfo_args.push_back(AsSInfo(s));
      } else {
        sinfo_args.push_back(AsSInfo(value));
      }
      continue;
    }
    bool known = false;
    std::string names;
    for (const AttrSpec& spec : info->attrs) {
      known |= spec.name == key.text;
      names += (names.empty() ? "" : ", ") + spec.name;
    }
    if (!known) {
      Fail(key,
           "R." + op + " has no attribute '" + key.text + "'" +
               (names.empty() ? std::string(" (it takes none)") : " (it takes " + names + ")"),
           ErrorKind::kType);
    }
    if (attrs.Has(key.text)) Fail(key, "attribute '" + key.text + "' given twice");
    if (value.kind != Value::kNone) attrs.Set(key.text, AsAttr(value, key.text));
  }
  Expr call = Build(at, [&] { return Call(op, exprs, attrs, sinfo_args); });
  return ExprValue(at, call, depth);
}

RelaxParser::Value RelaxParser::ParseCallTIR(const Token& at, bool tir) {
  std::string op = tir ? "R.call_tir" : "R.call_dps_packed";
  if (!Peek().IsOp("(")) Expected("'(' after " + op);
  Args args = ParseArgs();
  if (args.positional.size() < 2) {
    Fail(at, op + "(func, (args...), out_sinfo=...) needs a function and its arguments");
  }
  const Value& f = args.positional[0];
  Expr callee;
  if (tir) {
    const auto* g = f.kind == Value::kExpr ? f.expr.as<GlobalVarNode>() : nullptr;
    if (g == nullptr) Fail(f.at, "R.call_tir calls a PrimFunc of the module: cls.NAME");
    auto it = globals_.find(g->name);
    if (it == globals_.end() || !it->second.is_prim) {
      Fail(f.at, "R.call_tir needs a PrimFunc, but '" + g->name +
                     "' is a Relax function: call it as cls." + g->name + "(...)");
    }
    callee = f.expr;
  } else if (f.kind == Value::kString) {
    callee = Build(f.at, [&] { return ExternFunc(f.str); });
  } else if (f.kind == Value::kExpr && f.expr.as<ExternFuncNode>() != nullptr) {
    callee = f.expr;
  } else {
    Fail(f.at, "R.call_dps_packed calls a library function by name: \"cblas.sgemm\"");
  }
  std::vector<Expr> call_args = {callee, AsTupleExpr(args.positional[1], "the arguments of " + op)};
  // TVM 0.24+ prints out_ty=, older TVM out_sinfo=.
  const Value* out_sinfo = args.Keyword("out_sinfo");
  const Value* out_ty = args.Keyword("out_ty");
  if (out_sinfo != nullptr && out_ty != nullptr) {
    Fail(at, op + " takes one of out_ty= (TVM 0.24+) and out_sinfo= (older TVM), not both");
  }
  const Value* out = args.positional.size() > 2 ? &args.positional[2]
                     : out_ty != nullptr        ? out_ty
                                                : out_sinfo;
  const Value* tir_vars =
      args.positional.size() > 3 ? &args.positional[3] : args.Keyword("tir_vars");
  if (args.positional.size() > (tir ? 4u : 3u))
    Fail(args.positional.back().at, "too many arguments");
  for (const auto& [key, value] : args.keywords) {
    if (key.text != "out_sinfo" && key.text != "out_ty" && !(tir && key.text == "tir_vars")) {
      Fail(key, op + " has no argument '" + key.text + "'");
    }
  }
  if (out == nullptr) {
    Fail(at, op + " needs out_ty=... (out_sinfo= before TVM 0.24): the struct info of its outputs");
  }
  std::vector<StructInfo> sinfos;
  if (out->kind == Value::kList || out->kind == Value::kTuple) {
    for (const Value& s : out->items) sinfos.push_back(AsSInfo(s));
  } else {
    sinfos.push_back(AsSInfo(*out));
  }
  if (tir_vars != nullptr && tir_vars->kind != Value::kNone) {
    call_args.push_back(AsExpr(*tir_vars, "tir_vars"));
  }
  int depth = std::max(args.positional[1].depth, 1) + 1;
  Expr call = Build(
      at, [&] { return Call(tir ? "call_tir" : "call_dps_packed", call_args, Attrs(), sinfos); });
  return ExprValue(at, call, depth);
}

}  // namespace kiln::ir::relax::text
