// Values and expressions of the Relax parser. An argument is read as a Value first (a Relax
// expression, a literal, a symbolic dim, a tuple, a struct info, ...) and converted where the
// context says what it must be: an op's argument, an attribute, a dim. Symbolic dim arithmetic
// (n * 2 + 1, n // 2) follows Python's precedence.
#include <algorithm>
#include <cstdlib>

#include "ir/relax/text/literal.h"
#include "ir/relax/text/parser_impl.h"
#include "ir/text/print_util.h"

namespace kiln::ir::relax::text {

namespace {

// Operator precedence of dim arithmetic, 0 for a token that is no such operator.
int Precedence(const Token& t) {
  if (t.kind != TokenKind::kOp) return 0;
  if (t.text == "+" || t.text == "-") return 1;
  if (t.text == "*" || t.text == "//" || t.text == "%") return 2;
  return 0;
}

const char* KindName(int kind) {
  static const char* const kNames[] = {"a Relax expression",
                                       "a scalar expression",
                                       "an integer",
                                       "a float",
                                       "a string",
                                       "a bool",
                                       "None",
                                       "a tuple",
                                       "a list",
                                       "a dict",
                                       "a struct info",
                                       "a dtype"};
  return kNames[kind];
}

}  // namespace

const RelaxParser::Value* RelaxParser::Args::Keyword(std::string_view name) const {
  for (const auto& [key, value] : keywords) {
    if (key.text == name) return &value;
  }
  return nullptr;
}

RelaxParser::Value RelaxParser::ExprValue(const Token& at, Expr e, int depth) const {
  if (depth > kMaxExprDepth) {
    Fail(at, "expression nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
  }
  Value v;
  v.kind = Value::kExpr;
  v.at = at;
  v.expr = std::move(e);
  v.depth = depth;
  return v;
}

RelaxParser::Value RelaxParser::DimValue(const Token& at, PrimExpr e, int depth) const {
  if (depth > kMaxDimDepth) {
    Fail(at, "dim expression nested deeper than " + std::to_string(kMaxDimDepth) + " levels");
  }
  Value v;
  v.kind = Value::kDim;
  v.at = at;
  v.dim = std::move(e);
  v.dim_depth = depth;
  return v;
}

RelaxParser::Args RelaxParser::ParseArgs() {
  Args args;
  args.at = ExpectOp("(");
  NestingGuard guard(*this, args.at);
  while (!Peek().IsOp(")")) {
    if (Peek().kind == TokenKind::kName && Peek(1).IsOp("=")) {
      const Token& key = Next();
      Next();
      if (args.Keyword(key.text) != nullptr) {
        Fail(key, "keyword argument '" + key.text + "' repeated");
      }
      Value value = ParseValue();
      args.keywords.emplace_back(key, std::move(value));
    } else {
      if (!args.keywords.empty()) Fail(Peek(), "positional argument after keyword arguments");
      args.positional.push_back(ParseValue());
    }
    if (!AcceptOp(",")) break;
  }
  ExpectOp(")");
  return args;
}

RelaxParser::Value RelaxParser::ParseValue() {
  NestingGuard guard(*this, Peek());
  Value v = ParsePrimary();
  if ((v.kind == Value::kInt || v.kind == Value::kDim) && Precedence(Peek()) > 0) {
    v = ContinueDim(std::move(v), 1);
  }
  if (Peek().IsOp("/") || Peek().IsOp("**")) {
    Fail(Peek(), "'" + Peek().text + "' is not supported here (integer dims divide with '//')");
  }
  return v;
}

Expr RelaxParser::ParseRelaxExpr(const std::string& what) { return AsExpr(ParseValue(), what); }

RelaxParser::Value RelaxParser::ParsePrimary() {
  const Token& t = Peek();
  Value v;
  v.at = t;
  switch (t.kind) {
    case TokenKind::kInt: {
      Next();
      std::optional<uint64_t> value = ParseIntLiteral(t.text);
      if (!value) Fail(t, "integer literal " + t.text + " is malformed or above 2^64");
      v.kind = Value::kInt;
      v.int_value = static_cast<int64_t>(*value);
      v.big_unsigned = *value > static_cast<uint64_t>(INT64_MAX);
      return v;
    }
    case TokenKind::kFloat:
      Next();
      v.kind = Value::kFloat;
      v.float_value = std::strtod(t.text.c_str(), nullptr);
      return v;
    case TokenKind::kString:
      Next();
      v.kind = Value::kString;
      v.str = t.text;
      return v;
    case TokenKind::kName:
      return ParseName();
    case TokenKind::kOp:
      if (t.IsOp("(")) return ParseParenthesized();
      if (t.IsOp("[")) {
        Next();
        return ParseList("]");
      }
      if (t.IsOp("{")) return ParseDict();
      if (t.IsOp("-")) {
        Next();
        NestingGuard guard(*this, t);
        Value inner = ParsePrimary();
        if (inner.kind == Value::kInt) {
          if (inner.big_unsigned && inner.int_value != INT64_MIN) {
            Fail(t, "integer literal below -2^63");
          }
          inner.int_value = inner.big_unsigned ? INT64_MIN : -inner.int_value;
          inner.big_unsigned = false;
        } else if (inner.kind == Value::kFloat) {
          inner.float_value = -inner.float_value;
        } else if (inner.kind == Value::kDim) {
          PrimExpr d = AsDim(inner);
          inner = DimValue(t, Build(t, [&] { return Sub(DimConst(0), d); }), inner.dim_depth + 1);
        } else {
          Fail(t, "'-' needs a number or a dim, got " + std::string(KindName(inner.kind)));
        }
        inner.at = t;
        return inner;
      }
      break;
    default:
      break;
  }
  Expected("a value");
}

RelaxParser::Value RelaxParser::ParseName() {
  const Token& t = Next();
  Value v;
  v.at = t;
  if (t.text == "True" || t.text == "False") {
    v.kind = Value::kBool;
    v.bool_value = t.text == "True";
    return v;
  }
  if (t.text == "None") return v;
  if (t.text == "R" && Peek().IsOp(".")) {
    Value r = ParseRDotted();
    return r.kind == Value::kExpr ? ParsePostfix(std::move(r)) : r;
  }
  if (t.text == "T" && Peek().IsOp(".")) return ParseTDotted();
  if (t.text == "float" && Peek().IsOp("(")) {
    Next();
    const Token& s = Peek();
    std::optional<double> special;
    if (s.kind == TokenKind::kString) special = SpecialFloat(s.text);
    if (!special) Expected("\"nan\", \"inf\" or \"-inf\" in float(...)");
    Next();
    ExpectOp(")");
    v.kind = Value::kFloat;
    v.float_value = *special;
    return v;
  }
  if (t.text == "metadata" && Peek().IsOp("[")) return ParsePostfix(ParseMetadataRef(t));
  const Symbol* symbol = Lookup(t.text);
  bool is_class = t.text == "cls" || t.text == class_name_ || class_aliases_.count(t.text) != 0;
  if (is_class && Peek().IsOp(".") && (symbol == nullptr || !symbol->var.defined())) {
    Next();
    const Token& name = ExpectName("a function name after '" + t.text + ".'");
    return ParsePostfix(ExprValue(name, GlobalRef(name), 1));
  }
  if (symbol != nullptr && symbol->var.defined()) return ParsePostfix(ExprValue(t, symbol->var, 1));
  if (symbol != nullptr) return DimValue(t, symbol->dim, 0);
  // A symbolic variable declared above the module: this function's own, from its first use.
  auto declared = module_dims_.find(t.text);
  if (declared != module_dims_.end() && (define_dims_ || globals_.count(t.text) == 0)) {
    return DimValue(t, DefineDim(t, t.text, declared->second), 0);
  }
  if (define_dims_) return DimValue(t, DefineDim(t, t.text, DataType::Int(64)), 0);
  if (globals_.count(t.text) != 0) return ParsePostfix(ExprValue(t, GlobalRef(t), 1));
  auto hidden = hidden_dataflow_.find(t.text);
  if (hidden != hidden_dataflow_.end()) {
    Fail(t, "'" + t.text + "' is a dataflow variable of the block at line " +
                std::to_string(hidden->second) +
                " and is not visible after it; list it in that block's R.output(...)");
  }
  Fail(t, "undefined name '" + t.text + "'");
}

RelaxParser::Value RelaxParser::ParsePostfix(Value v) {
  while (true) {
    if (Peek().IsOp("[")) {
      const Token& open = Next();
      Value index = ParseValue();
      ExpectOp("]");
      if (index.kind != Value::kInt || index.int_value < 0 || index.int_value > INT32_MAX) {
        Fail(index.at, "a tuple index must be a non-negative integer literal");
      }
      int i = static_cast<int>(index.int_value);
      Expr tuple = v.expr;
      v = ExprValue(v.at, Build(open, [&] { return TupleGetItem(tuple, i); }), v.depth + 1);
    } else if (Peek().IsOp("(")) {
      if (const auto* g = v.expr.as<GlobalVarNode>()) {
        auto it = globals_.find(g->name);
        if (it != globals_.end() && it->second.is_prim) {
          Fail(v.at, "'" + g->name + "' is a PrimFunc: call it with R.call_tir(cls." + g->name +
                         ", (args...), out_sinfo=...)");
        }
      }
      Args args = ParseArgs();
      if (!args.keywords.empty()) {
        Fail(args.keywords[0].first, "a call of a Relax function takes no keyword arguments");
      }
      std::vector<Expr> exprs;
      int depth = v.depth;
      for (const Value& a : args.positional) {
        exprs.push_back(AsExpr(a, "an argument"));
        depth = std::max(depth, a.depth);
      }
      Expr callee = v.expr;
      v = ExprValue(v.at, Build(v.at, [&] { return CallFunction(callee, exprs); }), depth + 1);
    } else {
      return v;
    }
  }
}

RelaxParser::Value RelaxParser::ParseParenthesized() {
  const Token& open = Next();
  NestingGuard guard(*this, open);
  std::vector<Value> items;
  bool trailing_comma = false;
  while (!Peek().IsOp(")")) {
    items.push_back(ParseValue());
    trailing_comma = AcceptOp(",");
    if (!trailing_comma) break;
  }
  ExpectOp(")");
  if (items.size() == 1 && !trailing_comma) {
    Value inner = std::move(items[0]);
    return inner.kind == Value::kExpr ? ParsePostfix(std::move(inner)) : inner;
  }
  Value v;
  v.kind = Value::kTuple;
  v.at = open;
  v.items = std::move(items);
  // An item of a tuple literal, `(x, y)[1]`: the tuple is a Relax expression here.
  if (Peek().IsOp("[")) {
    int depth = 1;
    for (const Value& item : v.items) depth = std::max(depth, item.depth + 1);
    return ParsePostfix(ExprValue(open, AsTupleExpr(v, "a tuple to index"), depth));
  }
  return v;
}

// After the opening bracket.
RelaxParser::Value RelaxParser::ParseList(const std::string& close) {
  Value v;
  v.kind = Value::kList;
  v.at = Peek();
  NestingGuard guard(*this, v.at);
  while (!Peek().IsOp(close)) {
    v.items.push_back(ParseValue());
    if (!AcceptOp(",")) break;
  }
  ExpectOp(close);
  return v;
}

RelaxParser::Value RelaxParser::ParseDict() {
  Value v;
  v.kind = Value::kDict;
  v.at = Next();
  NestingGuard guard(*this, v.at);
  while (!Peek().IsOp("}")) {
    v.keys.push_back(ParseValue());
    ExpectOp(":");
    v.items.push_back(ParseValue());
    if (!AcceptOp(",")) break;
  }
  ExpectOp("}");
  return v;
}

RelaxParser::Value RelaxParser::ContinueDim(Value lhs, int min_precedence) {
  while (true) {
    const Token& op = Peek();
    int precedence = Precedence(op);
    if (precedence == 0 || precedence < min_precedence) return lhs;
    Next();
    Value rhs = ParsePrimary();
    while (Precedence(Peek()) > precedence) rhs = ContinueDim(std::move(rhs), precedence + 1);
    for (const Value* operand : {&lhs, &rhs}) {
      if (operand->kind != Value::kInt && operand->kind != Value::kDim) {
        Fail(operand->at, "'" + op.text + "' needs integer dims, got " + KindName(operand->kind));
      }
    }
    // Literals are not folded: a dim reads back as the expression it was printed from.
    PrimExpr a = AsDim(lhs), b = AsDim(rhs);
    PrimExpr r = Build(op, [&] {
      if (op.text == "+") return Add(a, b);
      if (op.text == "-") return Sub(a, b);
      if (op.text == "*") return Mul(a, b);
      if (op.text == "//") return FloorDiv(a, b);
      return FloorMod(a, b);
    });
    lhs = DimValue(lhs.at, r, std::max(lhs.dim_depth, rhs.dim_depth) + 1);
  }
}

RelaxParser::Value RelaxParser::ParseTDotted() {
  Next();  // .
  const Token& fn = ExpectName("a name after 'T.'");
  static const std::set<std::string> kBinary = {"max",      "min",      "floordiv",
                                                "floormod", "truncdiv", "truncmod"};
  if (!Peek().IsOp("(")) Expected("'(' after T." + fn.text);
  if (kBinary.count(fn.text) != 0) {
    Args args = ParseArgs();
    if (args.positional.size() != 2 || !args.keywords.empty()) {
      Fail(fn, "T." + fn.text + " takes 2 arguments");
    }
    PrimExpr a = AsDim(args.positional[0]), b = AsDim(args.positional[1]);
    PrimExpr r = Build(fn, [&] {
      if (fn.text == "max") return Max(a, b);
      if (fn.text == "min") return Min(a, b);
      if (fn.text == "floordiv") return FloorDiv(a, b);
      if (fn.text == "floormod") return FloorMod(a, b);
      if (fn.text == "truncdiv") return Div(a, b);
      return Mod(a, b);
    });
    return DimValue(fn, r,
                    std::max(args.positional[0].dim_depth, args.positional[1].dim_depth) + 1);
  }
  if (fn.text == "Cast") {
    Args args = ParseArgs();
    if (args.positional.size() != 2 || !args.keywords.empty()) {
      Fail(fn, "T.Cast takes a dtype and a value");
    }
    DataType dtype = AsDType(args.positional[0], "the dtype of T.Cast");
    PrimExpr value = AsDim(args.positional[1]);
    return DimValue(fn, Build(fn, [&] { return Cast(dtype, value); }),
                    args.positional[1].dim_depth + 1);
  }
  auto dtype = DataType::Parse(fn.text);
  if (!dtype || !dtype->is_scalar() || dtype->is_handle() || dtype->is_void()) {
    Fail(fn, "unknown T." + fn.text +
                 " in a Relax expression (T.max, T.min, T.floordiv, T.floormod, T.truncdiv, "
                 "T.truncmod, T.Cast or T.<dtype>(value))");
  }
  Args args = ParseArgs();
  if (args.positional.empty()) {
    Fail(fn, "T." + fn.text + "() declares a shape variable: write it as `n = T." + fn.text +
                 "()` on a line of its own");
  }
  if (args.positional.size() != 1 || !args.keywords.empty()) {
    Fail(fn, "T." + fn.text + "(value) takes one value");
  }
  const Value& a = args.positional[0];
  PrimExpr r = Build(fn, [&]() -> PrimExpr {
    switch (a.kind) {
      case Value::kInt:
        if (a.big_unsigned) throw Error(ErrorKind::kType, "integer literal too large");
        return dtype->is_float() ? FloatImm(*dtype, static_cast<double>(a.int_value))
                                 : IntImm(*dtype, a.int_value);
      case Value::kFloat:
        if (!dtype->is_float()) {
          throw Error(ErrorKind::kType,
                      "T." + fn.text + " of the float " + FloatText(a.float_value));
        }
        return FloatImm(*dtype, a.float_value);
      case Value::kBool:
        return dtype->is_bool() ? BoolImm(a.bool_value) : IntImm(*dtype, a.bool_value ? 1 : 0);
      case Value::kDim:
        return a.dim.dtype() == *dtype ? a.dim : Cast(*dtype, a.dim);
      default:
        throw Error(ErrorKind::kType,
                    "T." + fn.text + " needs a number, got " + std::string(KindName(a.kind)));
    }
  });
  return DimValue(fn, r, a.dim_depth + 1);
}

// ---- conversions ------------------------------------------------------------------------

Expr RelaxParser::AsExpr(const Value& v, const std::string& what) {
  switch (v.kind) {
    case Value::kExpr:
      return v.expr;
    case Value::kTuple:
    case Value::kList: {
      bool dims = !v.items.empty();
      for (const Value& item : v.items) {
        dims &= item.kind == Value::kInt || item.kind == Value::kDim;
      }
      if (dims) {
        std::vector<PrimExpr> values;
        for (const Value& item : v.items) values.push_back(AsDim(item));
        return Build(v.at, [&] { return ShapeExpr(values); });
      }
      return AsTupleExpr(v, what);
    }
    case Value::kInt:
    case Value::kDim:
    case Value::kFloat:
    case Value::kBool:
      Fail(v.at, "expected " + what + ", got " + KindName(v.kind) +
                     " (a Relax value is written R.const(...), R.prim_value(...) or R.shape(...))");
    default:
      Fail(v.at, "expected " + what + ", got " + KindName(v.kind));
  }
}

Expr RelaxParser::AsTupleExpr(const Value& v, const std::string& what) {
  if (v.kind == Value::kExpr) return v.expr;
  if (v.kind != Value::kTuple && v.kind != Value::kList) {
    Fail(v.at, "expected a tuple as " + what + ", got " + KindName(v.kind));
  }
  std::vector<Expr> fields;
  for (const Value& item : v.items) fields.push_back(AsExpr(item, "a tuple field"));
  return Build(v.at, [&] { return Tuple(fields); });
}

PrimExpr RelaxParser::AsDim(const Value& v) {
  switch (v.kind) {
    case Value::kInt:
      if (v.big_unsigned) Fail(v.at, "integer literal too large for a dim");
      return DimConst(v.int_value);
    case Value::kDim:
      // ToDim formats its error message eagerly: skip it for what is already a dim.
      if (v.dim.dtype() == DataType::Int(64)) return v.dim;
      return Build(v.at, [&] { return ToDim(v.dim); });
    case Value::kString:
      return ParseDimString(v);
    default:
      Fail(v.at,
           std::string("expected a dim (an integer or a shape variable), got ") + KindName(v.kind));
  }
}

StructInfo RelaxParser::AsSInfo(const Value& v) const {
  if (v.kind != Value::kSInfo) {
    Fail(v.at, std::string("expected a struct info annotation such as R.Tensor((n, 4), "
                           "\"float32\"), got ") +
                   KindName(v.kind));
  }
  return v.sinfo;
}

AttrValue RelaxParser::AsAttr(const Value& v, const std::string& name) const {
  switch (v.kind) {
    case Value::kInt:
      if (v.big_unsigned) Fail(v.at, "attribute '" + name + "': integer too large");
      return AttrValue(v.int_value);
    case Value::kFloat:
      return AttrValue(v.float_value);
    case Value::kString:
      return AttrValue(v.str);
    case Value::kBool:
      return AttrValue(v.bool_value);
    case Value::kDType:
      return AttrValue(v.dtype);
    case Value::kTuple:
    case Value::kList: {
      std::vector<int64_t> ints;
      for (const Value& item : v.items) {
        if (item.kind != Value::kInt || item.big_unsigned) {
          Fail(item.at,
               "attribute '" + name + "' takes a list of integers, got " + KindName(item.kind));
        }
        ints.push_back(item.int_value);
      }
      return AttrValue(std::move(ints));
    }
    case Value::kDim:
      if (v.dim.dtype().is_int()) {
        if (auto c = AsConstInt(Build(v.at, [&] { return SimplifyDim(v.dim); }))) {
          return AttrValue(*c);
        }
      }
      Fail(v.at, "attribute '" + name + "' must be a constant, got a symbolic expression");
    default:
      Fail(v.at, "attribute '" + name + "' cannot be " + KindName(v.kind));
  }
}

std::string RelaxParser::AsString(const Value& v, const std::string& what) const {
  if (v.kind != Value::kString) {
    Fail(v.at, "expected a string as " + what + ", got " + KindName(v.kind));
  }
  return v.str;
}

DataType RelaxParser::AsDType(const Value& v, const std::string& what) const {
  if (v.kind == Value::kDType) return v.dtype;
  std::string name = AsString(v, what);
  auto dtype = DataType::Parse(name);
  if (!dtype) Fail(v.at, "unknown dtype " + ir::QuoteString(name));
  return *dtype;
}

}  // namespace kiln::ir::relax::text
