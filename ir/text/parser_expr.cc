// TVMScript expressions: Python operator precedence over TensorIR builders, T.<name> calls
// (typed immediates, casts, selects, min/max, intrinsics, Ramp/Broadcast/Let), buffer loads,
// call arguments (tuples, lists, dicts, keywords), buffer declarations and regions.
#include <charconv>
#include <cmath>
#include <limits>

#include "ir/arith/expr_compare.h"
#include "ir/op.h"
#include "ir/text/call_rules.h"
#include "ir/text/parser_impl.h"

namespace kiln::ir {

NestingGuard::NestingGuard(TirParser& parser, const Token& at) : parser_(parser) {
  if (++parser_.nesting_ > kMaxNesting) {
    --parser_.nesting_;
    parser_.Fail(at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
  }
}

const TirParser::Value* TirParser::Args::Keyword(std::string_view name) const {
  for (const auto& [key, value] : keywords) {
    if (key.text == name) return &value;
  }
  return nullptr;
}

int TirParser::BumpDepth(const Token& at, int depth) const {
  if (depth > kMaxExprDepth) {
    Fail(at, "expression nested deeper than " + std::to_string(kMaxExprDepth) + " levels");
  }
  return depth;
}

TirParser::PExpr TirParser::Make(const Token& at, std::initializer_list<const PExpr*> children,
                                 Expr e) const {
  int depth = 0;
  for (const PExpr* c : children) depth = std::max(depth, c->depth);
  return PExpr{std::move(e), false, BumpDepth(at, depth + 1)};
}

Expr TirParser::ParseExpr() { return ParsePExpr().e; }

TirParser::PExpr TirParser::ParsePExpr() {
  NestingGuard guard(*this, Peek());
  return ParseOr();
}

TirParser::PExpr TirParser::Bin(const Token& op, NodeKind kind, const PExpr& a, const PExpr& b) {
  Expr e = Build(op, [&] {
    switch (kind) {
      case NodeKind::kAdd:
        return Add(a.e, b.e);
      case NodeKind::kSub:
        return Sub(a.e, b.e);
      case NodeKind::kMul:
        return Mul(a.e, b.e);
      case NodeKind::kDiv:
        return Div(a.e, b.e);
      case NodeKind::kMod:
        return Mod(a.e, b.e);
      case NodeKind::kFloorDiv:
        return FloorDiv(a.e, b.e);
      case NodeKind::kFloorMod:
        return FloorMod(a.e, b.e);
      case NodeKind::kMin:
        return Min(a.e, b.e);
      case NodeKind::kMax:
        return Max(a.e, b.e);
      case NodeKind::kEQ:
        return EQ(a.e, b.e);
      case NodeKind::kNE:
        return NE(a.e, b.e);
      case NodeKind::kLT:
        return LT(a.e, b.e);
      case NodeKind::kLE:
        return LE(a.e, b.e);
      case NodeKind::kGT:
        return GT(a.e, b.e);
      case NodeKind::kGE:
        return GE(a.e, b.e);
      case NodeKind::kAnd:
        return And(a.e, b.e);
      case NodeKind::kOr:
        return Or(a.e, b.e);
      default:
        throw Error(ErrorKind::kInternal, "not a binary operator");
    }
  });
  return Make(op, {&a, &b}, std::move(e));
}

TirParser::PExpr TirParser::ParseOr() {
  PExpr lhs = ParseAnd();
  while (Peek().IsName("or")) {
    Token op = Next();
    PExpr rhs = ParseAnd();
    lhs = Bin(op, NodeKind::kOr, lhs, rhs);
  }
  return lhs;
}

TirParser::PExpr TirParser::ParseAnd() {
  PExpr lhs = ParseNot();
  while (Peek().IsName("and")) {
    Token op = Next();
    PExpr rhs = ParseNot();
    lhs = Bin(op, NodeKind::kAnd, lhs, rhs);
  }
  return lhs;
}

TirParser::PExpr TirParser::ParseNot() {
  if (!Peek().IsName("not")) return ParseCompare();
  Token op = Next();
  NestingGuard guard(*this, op);
  PExpr a = ParseNot();
  return Make(op, {&a}, Build(op, [&] { return Not(a.e); }));
}

TirParser::PExpr TirParser::ParseCompare() {
  static const std::pair<std::string_view, NodeKind> kOps[] = {
      {"==", NodeKind::kEQ}, {"!=", NodeKind::kNE}, {"<", NodeKind::kLT},
      {"<=", NodeKind::kLE}, {">", NodeKind::kGT},  {">=", NodeKind::kGE}};
  PExpr lhs = ParseAdd();
  for (const auto& [text, kind] : kOps) {
    if (!Peek().IsOp(text)) continue;
    Token op = Next();
    PExpr rhs = ParseAdd();
    lhs = Bin(op, kind, lhs, rhs);
    for (const auto& [text2, kind2] : kOps) {
      if (Peek().IsOp(text2)) Fail(Peek(), "chained comparisons are not supported; use 'and'");
    }
    break;
  }
  return lhs;
}

TirParser::PExpr TirParser::ParseAdd() {
  PExpr lhs = ParseMul();
  while (Peek().IsOp("+") || Peek().IsOp("-")) {
    Token op = Next();
    PExpr rhs = ParseMul();
    lhs = Bin(op, op.text == "+" ? NodeKind::kAdd : NodeKind::kSub, lhs, rhs);
  }
  return lhs;
}

TirParser::PExpr TirParser::ParseMul() {
  PExpr lhs = ParseUnary();
  while (Peek().IsOp("*") || Peek().IsOp("/") || Peek().IsOp("//") || Peek().IsOp("%")) {
    Token op = Next();
    PExpr rhs = ParseUnary();
    NodeKind kind = op.text == "*"    ? NodeKind::kMul
                    : op.text == "/"  ? NodeKind::kDiv
                    : op.text == "//" ? NodeKind::kFloorDiv
                                      : NodeKind::kFloorMod;
    lhs = Bin(op, kind, lhs, rhs);
  }
  return lhs;
}

TirParser::PExpr TirParser::ParseIntLiteral(const Token& tok, bool negate) {
  uint64_t magnitude = 0;
  std::string_view text = tok.text;
  int base = 10;
  if (text.size() > 2 && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), magnitude, base);
  constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());
  if (ec != std::errc() || ptr != text.data() + text.size() ||
      magnitude > kMax + (negate ? 1 : 0)) {
    Fail(tok, "integer literal " + tok.text + " is out of range");
  }
  int64_t value = negate ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  bool fits32 =
      value >= std::numeric_limits<int32_t>::min() && value <= std::numeric_limits<int32_t>::max();
  return PExpr{IntImm(fits32 ? DataType::Int(32) : DataType::Int(64), value), true, 1};
}

TirParser::PExpr TirParser::ParseUnary() {
  if (Peek().IsOp("+")) {
    NestingGuard guard(*this, Next());
    return ParseUnary();
  }
  if (!Peek().IsOp("-")) return ParsePrimary();
  Token op = Next();
  NestingGuard guard(*this, op);
  if (Peek().kind == TokenKind::kInt) return ParseIntLiteral(Next(), true);
  PExpr a = ParseUnary();
  if (const auto* i = a.e.as<IntImmNode>()) {
    return PExpr{IntImm(a.e.dtype(), static_cast<int64_t>(0 - static_cast<uint64_t>(i->value))),
                 a.literal, a.depth};
  }
  if (const auto* f = a.e.as<FloatImmNode>()) {
    return PExpr{FloatImm(a.e.dtype(), -f->value), a.literal, a.depth};
  }
  return Make(op, {&a}, Build(op, [&] { return -a.e; }));
}

TirParser::PExpr TirParser::ParsePrimary() {
  const Token& tok = Peek();
  switch (tok.kind) {
    case TokenKind::kInt:
      return ParseIntLiteral(Next(), false);
    case TokenKind::kFloat: {
      Token t = Next();
      double v = std::strtod(t.text.c_str(), nullptr);
      return PExpr{FloatImm(DataType::Float(32), v), true, 1};
    }
    case TokenKind::kString:
      return PExpr{StringImm(Next().text), true, 1};
    case TokenKind::kOp: {
      if (!tok.IsOp("(")) Expected("an expression");
      Token open = Next();
      NestingGuard guard(*this, open);
      PExpr inner = ParseOr();
      ExpectOp(")");
      inner.literal = false;
      return inner;
    }
    case TokenKind::kName:
      break;
    default:
      Expected("an expression");
  }
  Token name = Next();
  if (name.text == "True" || name.text == "False") {
    return PExpr{BoolImm(name.text == "True"), true, 1};
  }
  if (name.text == "T" && Peek().IsOp(".")) {
    Next();
    return ParseTExpr(ExpectName("a name after 'T.'"));
  }
  static const char* const kKeywords[] = {"and",  "or",  "not", "in",   "for",    "if",    "else",
                                          "with", "def", "as",  "None", "lambda", "return"};
  for (const char* k : kKeywords) {
    if (name.text == k) Fail(name, "expected an expression, got " + name.Describe());
  }
  const Symbol* symbol = Lookup(name.text);
  if (!symbol) Fail(name, "undefined name '" + name.text + "'");
  if (symbol->buffer.defined()) {
    Buffer buffer = symbol->buffer;
    if (Peek().IsOp("[")) return ParseLoad(buffer, name);
    if (Peek().IsOp(".")) {
      Next();
      const Token& attr = ExpectName("a buffer attribute");
      if (attr.text != "data") Fail(attr, "unsupported buffer attribute '" + attr.text + "'");
      return PExpr{buffer->data, false, 1};
    }
    Fail(name, "buffer '" + name.text + "' used as a value; index it as " + name.text + "[...]");
  }
  if (Peek().IsOp("(")) Fail(Peek(), "'" + name.text + "' is not callable");
  return PExpr{symbol->var, false, 1};
}

std::vector<TirParser::PExpr> TirParser::ParseIndices(const Buffer& buffer, const Token& name) {
  Token open = ExpectOp("[");
  NestingGuard guard(*this, open);
  std::vector<PExpr> indices;
  if (Peek().IsOp("(") && Peek(1).IsOp(")")) {
    Next();
    Next();
  } else {
    do {
      if (Peek().IsOp("]")) break;
      indices.push_back(ParseOr());
      if (Peek().IsOp(":")) Fail(Peek(), "slices are only allowed in T.reads and T.writes");
    } while (AcceptOp(","));
  }
  ExpectOp("]");
  if (indices.size() != buffer.ndim()) {
    Fail(open, "buffer '" + name.text + "' has " + std::to_string(buffer.ndim()) +
                   " dimensions, got " + std::to_string(indices.size()) + " indices");
  }
  return indices;
}

TirParser::PExpr TirParser::ParseLoad(const Buffer& buffer, const Token& name) {
  std::vector<PExpr> indices = ParseIndices(buffer, name);
  std::vector<Expr> exprs;
  int depth = 0;
  for (const PExpr& i : indices) {
    exprs.push_back(i.e);
    depth = std::max(depth, i.depth);
  }
  Expr e = Build(name, [&] { return BufferLoad(buffer, exprs); });
  return PExpr{e, false, BumpDepth(name, depth + 1)};
}

// ---- T.<name>(...) ----------------------------------------------------------------------

namespace {

bool IsImmediate(const Expr& e) { return e.as<IntImmNode>() || e.as<FloatImmNode>(); }

}  // namespace

TirParser::PExpr TirParser::ParseTExpr(const Token& name) {
  const std::string& fn = name.text;
  if (fn == "Let") return ParseLet(name);
  if (!Peek().IsOp("(")) Fail(name, "T." + fn + " is not a value here");
  Args args = ParseArgs();
  int depth = 0;
  for (const Value& v : args.positional) depth = std::max(depth, v.expr.depth);
  depth = BumpDepth(name, depth + 1);
  auto arity = [&](size_t n) {
    if (args.positional.size() != n || !args.keywords.empty()) {
      Fail(name, "T." + fn + " takes " + std::to_string(n) + " argument" + (n == 1 ? "" : "s") +
                     ", got " + std::to_string(args.positional.size() + args.keywords.size()));
    }
  };
  auto arg = [&](size_t i) { return AsExpr(args.positional[i], "an expression"); };
  auto done = [&](Expr e) { return PExpr{std::move(e), false, depth}; };

  // Typed immediates and casts: T.float32(1.5), T.int64(3), T.float32("inf"), T.int64(i).
  if (auto dtype = DataType::Parse(fn); dtype && !dtype->is_void()) {
    if (args.positional.empty() && args.keywords.empty()) {
      Fail(name, "T." + fn + "() declares a variable; bind it: n = T." + fn + "()");
    }
    arity(1);
    const Value& v = args.positional[0];
    if (v.kind == Value::kExpr && v.expr.e.as<StringImmNode>() && dtype->is_float()) {
      std::string s = v.expr.e.as<StringImmNode>()->value;
      double x = s == "inf"    ? INFINITY
                 : s == "-inf" ? -INFINITY
                 : s == "nan"  ? std::numeric_limits<double>::quiet_NaN()
                 : s == "-nan" ? -std::numeric_limits<double>::quiet_NaN()
                               : 0.0;
      if (x == 0.0) Fail(v.at, "expected \"inf\", \"-inf\" or \"nan\"");
      return done(Build(name, [&] { return FloatImm(*dtype, x); }));
    }
    Expr e = arg(0);
    if (const auto* i = e.as<IntImmNode>(); i && dtype->is_scalar() && !dtype->is_handle()) {
      if (dtype->is_float()) return done(FloatImm(*dtype, static_cast<double>(i->value)));
      return done(IntImm(*dtype, i->value));
    }
    if (const auto* f = e.as<FloatImmNode>(); f && dtype->is_float() && dtype->is_scalar()) {
      return done(FloatImm(*dtype, f->value));
    }
    return done(Build(name, [&] { return Cast(*dtype, e); }));
  }
  if (fn == "Cast" || fn == "cast") {
    arity(2);
    bool dtype_first = fn == "Cast";
    DataType t = AsDType(args.positional[dtype_first ? 0 : 1]);
    Expr value = arg(dtype_first ? 1 : 0);
    return done(Build(name, [&] { return Cast(t, value); }));
  }
  if (fn == "Select" || fn == kIfThenElse) {
    arity(3);
    Expr a = arg(1);
    Expr b = arg(2);
    // An untyped literal branch takes the other branch's dtype: T.if_then_else(c, x[i], 0).
    bool a_literal = args.positional[1].expr.literal && IsImmediate(a);
    bool b_literal = args.positional[2].expr.literal && IsImmediate(b);
    auto retype = [&](const Expr& lit, DataType t) {
      double v = lit.as<IntImmNode>() ? static_cast<double>(lit.as<IntImmNode>()->value)
                                      : lit.as<FloatImmNode>()->value;
      if (lit.as<FloatImmNode>() && !t.is_float()) return lit;
      return t.is_scalar() && !t.is_handle() ? Build(name, [&] { return MakeConst(t, v); }) : lit;
    };
    if (a_literal && !b_literal) a = retype(a, b.dtype());
    if (b_literal && !a_literal) b = retype(b, a.dtype());
    if (fn == "Select") return done(Build(name, [&] { return Select(arg(0), a, b); }));
    return done(Build(name, [&] { return IfThenElseCall(arg(0), a, b); }));
  }
  static const std::pair<std::string_view, NodeKind> kBinary[] = {
      {"truncdiv", NodeKind::kDiv},      {"truncmod", NodeKind::kMod},
      {"floordiv", NodeKind::kFloorDiv}, {"floormod", NodeKind::kFloorMod},
      {"min", NodeKind::kMin},           {"max", NodeKind::kMax},
      {"And", NodeKind::kAnd},           {"Or", NodeKind::kOr}};
  for (const auto& [text, kind] : kBinary) {
    if (fn != text) continue;
    arity(2);
    PExpr r = Bin(name, kind, args.positional[0].expr, args.positional[1].expr);
    r.depth = depth;
    return r;
  }
  if (fn == "Not") {
    arity(1);
    return done(Build(name, [&] { return Not(arg(0)); }));
  }
  if (fn == "Ramp" || fn == "ramp") {
    arity(3);
    int64_t lanes = AsInt(args.positional[2], "the number of lanes");
    if (lanes < 2 || lanes > 65536) Fail(args.positional[2].at, "lanes must be in [2, 65536]");
    return done(Build(name, [&] { return Ramp(arg(0), arg(1), static_cast<int>(lanes)); }));
  }
  if (fn == "Broadcast" || fn == "broadcast") {
    arity(2);
    int64_t lanes = AsInt(args.positional[1], "the number of lanes");
    if (lanes < 2 || lanes > 65536) Fail(args.positional[1].at, "lanes must be in [2, 65536]");
    return done(Build(name, [&] { return Broadcast(arg(0), static_cast<int>(lanes)); }));
  }
  if (fn == "min_value" || fn == "max_value" || fn == "infinity") {
    arity(1);
    DataType t = AsDType(args.positional[0]);
    if (!t.is_scalar() || t.is_handle()) Fail(args.positional[0].at, "expected a scalar dtype");
    bool is_min = fn == "min_value";
    if (t.is_float()) {
      double v = fn == "infinity"                                       ? INFINITY
                 : t.bits() == 16 && t.code() == DataType::Code::kFloat ? 65504.0
                 : t.bits() == 16                                       ? 3.3895313892515355e+38
                 : t.bits() == 32 ? static_cast<double>(std::numeric_limits<float>::max())
                                  : std::numeric_limits<double>::max();
      return done(FloatImm(t, is_min ? -v : v));
    }
    if (fn == "infinity") Fail(args.positional[0].at, "T.infinity needs a float dtype");
    if (t.is_bool()) return done(BoolImm(!is_min));
    int64_t v;
    if (t.is_uint()) {
      v = is_min           ? 0
          : t.bits() == 64 ? -1  // all ones: the largest uint64
                           : static_cast<int64_t>((uint64_t{1} << t.bits()) - 1);
    } else {
      int64_t max = t.bits() == 64 ? std::numeric_limits<int64_t>::max()
                                   : static_cast<int64_t>((uint64_t{1} << (t.bits() - 1)) - 1);
      v = is_min ? -max - 1 : max;
    }
    return done(IntImm(t, v));
  }
  if (fn == "call_intrin" || fn == "call_pure_extern" || fn == "call_extern") {
    if (args.positional.size() < 2 || !args.keywords.empty()) {
      Fail(name, "T." + fn + " takes a dtype, an op name and the arguments");
    }
    DataType t = AsDType(args.positional[0]);
    std::string op = AsString(args.positional[1], "an op name");
    if (op.rfind("tir.", 0) == 0) op = op.substr(4);
    if (op.rfind("tirx.", 0) == 0) op = op.substr(5);
    std::vector<Expr> call_args;
    for (size_t i = 2; i < args.positional.size(); ++i) call_args.push_back(arg(i));
    return done(Call(t, op, call_args));
  }
  if (LookupIntrinsic(fn)) {
    std::vector<Expr> call_args;
    for (size_t i = 0; i < args.positional.size(); ++i) call_args.push_back(arg(i));
    // Older scripts (SparseTIR's) name the result dtype: T.exp(x, dtype="float32").
    const Value* dtype_kw = args.Keyword("dtype");
    if (args.keywords.size() > (dtype_kw ? 1u : 0u)) {
      for (const auto& [key, value] : args.keywords) {
        if (key.text != "dtype") Fail(key, "unexpected keyword argument");
      }
    }
    // An untyped literal takes the dtype of the other arguments, as binary operators do.
    for (size_t i = 0; i < call_args.size(); ++i) {
      if (!args.positional[i].expr.literal || !IsImmediate(call_args[i])) continue;
      for (size_t j = 0; j < call_args.size(); ++j) {
        if (j == i || args.positional[j].expr.literal) continue;
        DataType t = call_args[j].dtype();
        if (t.is_float() || !call_args[i].dtype().is_float()) {
          double v = call_args[i].as<IntImmNode>()
                         ? static_cast<double>(call_args[i].as<IntImmNode>()->value)
                         : call_args[i].as<FloatImmNode>()->value;
          call_args[i] = Build(name, [&] { return MakeConst(t, v); });
        }
        break;
      }
    }
    std::string error;
    auto t = IntrinsicResultType(fn, call_args, &error);
    if (!t) Fail(name, error);
    if (dtype_kw && AsDType(*dtype_kw) != *t) {
      Fail(dtype_kw->at,
           "T." + fn + " here gives " + t->ToString() + ", not " + AsDType(*dtype_kw).ToString());
    }
    return done(Call(*t, fn, call_args));
  }
  Fail(name, "unknown intrinsic T." + fn);
}

// T.Let(body, where={var: value}): the value is read first, then the body with var bound.
TirParser::PExpr TirParser::ParseLet(const Token& at) {
  Token open = ExpectOp("(");
  NestingGuard guard(*this, open);
  size_t body_start = pos_;
  int depth = 0;
  size_t k = pos_;
  for (; k < tokens_.size() && tokens_[k].kind != TokenKind::kEnd; ++k) {
    const Token& t = tokens_[k];
    if (t.IsOp("(") || t.IsOp("[") || t.IsOp("{")) ++depth;
    if (t.IsOp(")") || t.IsOp("]") || t.IsOp("}")) {
      if (depth == 0) break;
      --depth;
    }
    if (depth == 0 && t.IsOp(",")) break;
  }
  if (k >= tokens_.size() || !tokens_[k].IsOp(","))
    Fail(at, "T.Let expects (body, where={var: value})");
  pos_ = k + 1;
  const Token& where = ExpectName("'where'");
  if (where.text != "where") Fail(where, "expected 'where', got " + where.Describe());
  ExpectOp("=");
  ExpectOp("{");
  Token var_name = ExpectName("a variable name");
  ExpectOp(":");
  PExpr value = ParseOr();
  ExpectOp("}");
  AcceptOp(",");
  ExpectOp(")");
  size_t end = pos_;
  Var var(var_name.text, value.e.dtype());
  PushScope();
  Bind(var_name.text, Symbol{var, {}});
  pos_ = body_start;
  PExpr body = ParseOr();
  if (!Peek().IsOp(",")) Expected("','");
  PopScope();
  pos_ = end;
  return Make(at, {&value, &body}, Build(at, [&] { return Let(var, value.e, body.e); }));
}

// ---- index maps -------------------------------------------------------------------------

IndexLambda TirParser::ParseIndexLambda(DataType dtype) {
  ExpectKeyword("lambda");
  IndexLambda result;
  PushScope();
  if (!Peek().IsOp(":")) {
    do {
      const Token& name = ExpectName("a parameter name");
      for (const Var& p : result.params) {
        if (p.name() == name.text) Fail(name, "parameter '" + name.text + "' is repeated");
      }
      Var v(name.text, dtype);
      Bind(name.text, Symbol{v, Buffer()});
      result.params.push_back(v);
    } while (AcceptOp(","));
  }
  ExpectOp(":");
  Value value = ParseValue();
  const std::vector<Value> single{value};
  const std::vector<Value>& items =
      value.kind == Value::kTuple || value.kind == Value::kList ? value.items : single;
  for (const Value& item : items) {
    Expr e = AsExpr(item, "an index expression");
    if (!e.dtype().is_int() || e.dtype().lanes() != 1) {
      Fail(item.at,
           "expected an integer index expression, got one of type " + e.dtype().ToString());
    }
    // A bare literal takes the parameters' dtype, as it would next to one of them.
    if (item.expr.literal && e.dtype() != dtype) e = IntImm(dtype, *AsConstInt(e));
    result.results.push_back(e);
  }
  PopScope();
  while (Peek().kind == TokenKind::kNewline) Next();
  if (Peek().kind != TokenKind::kEnd) Expected("the end of the index map");
  return result;
}

IndexLambda ParseIndexLambda(std::string_view text, DataType dtype, std::string_view source_name) {
  SourceText source(text, source_name);
  std::vector<Token> tokens = Tokenize(source);
  if (tokens.empty() || tokens[0].kind == TokenKind::kEnd) {
    source.Fail(1, 1, "expected 'lambda', got an empty index map");
  }
  if (!dtype.is_int() || dtype.lanes() != 1) {
    throw Error(ErrorKind::kInvalidIR,
                "index map parameters must be scalar integers, not " + dtype.ToString());
  }
  TirParser parser(source, tokens, 0);
  return parser.ParseIndexLambda(dtype);
}

}  // namespace kiln::ir
