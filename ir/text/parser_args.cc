// TVMScript call arguments (values: expressions, tuples, lists, dicts, None; keywords), the
// conversions the statements need from them, and buffer declarations and regions.
#include "ir/arith/expr_compare.h"
#include "ir/text/parser_impl.h"

namespace kiln::ir {

// ---- call arguments ---------------------------------------------------------------------

TirParser::Value TirParser::ParseValue() {
  const Token& tok = Peek();
  NestingGuard guard(*this, tok);
  Value v;
  v.at = tok;
  if (tok.IsName("None")) {
    Next();
    v.kind = Value::kNone;
    return v;
  }
  if (tok.IsOp("[") || tok.IsOp("{")) {
    bool is_list = tok.IsOp("[");
    Next();
    v.kind = is_list ? Value::kList : Value::kDict;
    std::string close = is_list ? "]" : "}";
    while (!Peek().IsOp(close)) {
      Value item = ParseValue();
      if (is_list) {
        v.items.push_back(std::move(item));
      } else {
        ExpectOp(":");
        v.keys.push_back(std::move(item));
        v.values.push_back(ParseValue());
      }
      if (!AcceptOp(",")) break;
    }
    ExpectOp(close);
    return v;
  }
  if (tok.IsOp("(")) {
    // A tuple when a comma sits at the top level of the parentheses (or they are empty).
    int depth = 0;
    bool tuple = false;
    for (size_t k = pos_; k < tokens_.size(); ++k) {
      const Token& t = tokens_[k];
      if (t.IsOp("(") || t.IsOp("[") || t.IsOp("{")) ++depth;
      if (t.IsOp(")") || t.IsOp("]") || t.IsOp("}")) {
        if (--depth == 0) {
          tuple |= k == pos_ + 1;
          break;
        }
      }
      if (depth == 1 && t.IsOp(",")) {
        tuple = true;
        break;
      }
      if (t.kind == TokenKind::kEnd) break;
    }
    if (tuple) {
      Next();
      v.kind = Value::kTuple;
      while (!Peek().IsOp(")")) {
        v.items.push_back(ParseValue());
        if (!AcceptOp(",")) break;
      }
      ExpectOp(")");
      return v;
    }
  }
  // A SparseTIR axis, or a buffer named as a whole (an axis's indptr), as an argument.
  if (tok.kind == TokenKind::kName &&
      (Peek(1).IsOp(",") || Peek(1).IsOp(")") || Peek(1).IsOp("]"))) {
    if (const Axis* axis = LookupAxis(tok.text)) {
      Next();
      v.kind = Value::kAxis;
      v.axis = *axis;
      return v;
    }
    if (const Symbol* symbol = Lookup(tok.text); symbol && symbol->buffer.defined()) {
      Next();
      v.kind = Value::kBuffer;
      v.buffer = symbol->buffer;
      return v;
    }
  }
  v.kind = Value::kExpr;
  v.expr = ParseOr();
  return v;
}

TirParser::Args TirParser::ParseArgs() {
  Args args;
  args.at = ExpectOp("(");
  NestingGuard guard(*this, args.at);
  while (!Peek().IsOp(")")) {
    if (Peek().kind == TokenKind::kName && Peek(1).IsOp("=")) {
      Token key = Next();
      Next();
      if (args.Keyword(key.text)) Fail(key, "keyword argument '" + key.text + "' repeated");
      args.keywords.emplace_back(key, ParseValue());
    } else {
      if (!args.keywords.empty()) Fail(Peek(), "positional argument after keyword argument");
      args.positional.push_back(ParseValue());
    }
    if (!AcceptOp(",")) break;
  }
  ExpectOp(")");
  return args;
}

Expr TirParser::AsExpr(const Value& v, const std::string& what) const {
  if (v.kind != Value::kExpr) Fail(v.at, "expected " + what);
  return v.expr.e;
}

int64_t TirParser::AsInt(const Value& v, const std::string& what) const {
  if (v.kind == Value::kExpr) {
    if (auto i = AsConstInt(v.expr.e); i && !v.expr.e.dtype().is_bool()) return *i;
  }
  Fail(v.at, "expected " + what + " (an integer constant)");
}

std::string TirParser::AsString(const Value& v, const std::string& what) const {
  if (v.kind == Value::kExpr) {
    if (const auto* s = v.expr.e.as<StringImmNode>()) return s->value;
  }
  Fail(v.at, "expected " + what + " (a string)");
}

DataType TirParser::ParseDTypeName(const Token& at, const std::string& name) const {
  auto t = DataType::Parse(name);
  if (!t || t->is_void() || t->lanes() > 65536) Fail(at, "unknown dtype '" + name + "'");
  return *t;
}

DataType TirParser::AsDType(const Value& v) const {
  return ParseDTypeName(v.at, AsString(v, "a dtype"));
}

Annotations TirParser::AsAnnotations(const Value& v) const {
  if (v.kind != Value::kDict) Fail(v.at, "expected a dict of annotations");
  Annotations out;
  for (size_t i = 0; i < v.keys.size(); ++i) {
    std::string k = AsString(v.keys[i], "an annotation key");
    if (out.count(k)) Fail(v.keys[i].at, "annotation key '" + k + "' repeated");
    out[k] = AsExpr(v.values[i], "an annotation value");
  }
  return out;
}

std::vector<Expr> TirParser::AsExprList(const Value& v, const std::string& what) const {
  if (v.kind == Value::kExpr) return {v.expr.e};
  if (v.kind != Value::kTuple && v.kind != Value::kList) Fail(v.at, "expected " + what);
  std::vector<Expr> out;
  for (const Value& item : v.items) out.push_back(AsExpr(item, "an expression in " + what));
  return out;
}

Expr TirParser::ExtentOf(const Token& at, const PExpr& min, const PExpr& max) {
  if (const auto* add = max.e.as<AddNode>(); add && arith::ExprDeepEqual(add->a, min.e)) {
    return add->b;
  }
  if (IsConstInt(min.e, 0) && min.e.dtype() == max.e.dtype()) return max.e;
  auto lo = AsConstInt(min.e);
  auto hi = AsConstInt(max.e);
  if (lo && hi && max.e.as<IntImmNode>() && !max.e.dtype().is_bool()) {
    return IntImm(max.e.dtype(),
                  static_cast<int64_t>(static_cast<uint64_t>(*hi) - static_cast<uint64_t>(*lo)));
  }
  return Build(at, [&] { return Sub(max.e, min.e); });
}

// ---- buffers ----------------------------------------------------------------------------

Buffer TirParser::MakeBuffer(const std::string& name, const Args& args, size_t first,
                             bool* has_data) {
  auto node = std::make_shared<BufferNode>();
  node->name = name;
  node->dtype = DataType::Float(32);
  node->elem_offset = IntImm(DataType::Int(32), 0);
  if (args.positional.size() <= first) Fail(args.at, "expected the buffer shape");
  if (args.positional.size() > first + 2) {
    Fail(args.positional[first + 2].at, "too many positional arguments for a buffer");
  }
  // A string entry names a shape variable, as TVM prints te's: T.Buffer(("n", 64), ...).
  auto shape_list = [&](const Value& v) {
    std::vector<Expr> shape = AsExprList(v, "a shape");
    for (size_t i = 0; i < shape.size(); ++i) {
      if (const auto* s = shape[i].as<StringImmNode>()) {
        const Token& at = v.kind == Value::kExpr ? v.at : v.items[i].at;
        shape[i] = NamedShapeVar(at, s->value);
      }
    }
    return shape;
  };
  node->shape = shape_list(args.positional[first]);
  Token shape_at = args.positional[first].at;
  Token strides_at;
  if (args.positional.size() > first + 1) node->dtype = AsDType(args.positional[first + 1]);
  for (const auto& [key, value] : args.keywords) {
    if (key.text == "dtype") {
      node->dtype = AsDType(value);
    } else if (key.text == "shape") {
      node->shape = shape_list(value);
      shape_at = value.at;
    } else if (key.text == "strides") {
      node->strides = AsExprList(value, "strides");
      strides_at = value.at;
    } else if (key.text == "elem_offset") {
      node->elem_offset = value.kind == Value::kNone ? Expr() : AsExpr(value, "an offset");
    } else if (key.text == "scope") {
      node->scope = AsString(value, "a storage scope");
    } else if (key.text == "align") {
      node->align = AsInt(value, "an alignment");
      if (node->align < 0) Fail(value.at, "alignment must not be negative");
    } else if (key.text == "data") {
      Expr data = AsExpr(value, "a data variable");
      if (!data.as<VarNode>() || !data.dtype().is_handle())
        Fail(value.at, "expected a handle variable");
      node->data = Var(data.ptr());
      if (has_data) *has_data = true;
    } else if (key.text == "offset_factor") {
      AsInt(value, "an offset factor");
    } else if (key.text == "buffer_type") {
      AsString(value, "a buffer type");
    } else {
      Fail(key, "unknown buffer argument '" + key.text + "'");
    }
  }
  // Checked after the keywords, which may replace the shape and dtype.
  if (node->dtype.is_handle()) Fail(args.at, "buffers cannot hold handles");
  auto integers = [&](const std::vector<Expr>& exprs, const Token& at, const char* what) {
    for (const Expr& e : exprs) {
      if (!e.dtype().is_scalar() || (!e.dtype().is_int() && !e.dtype().is_uint())) {
        Fail(at, std::string("buffer ") + what + " must be integers");
      }
    }
  };
  integers(node->shape, shape_at, "shape entries");
  integers(node->strides, strides_at, "strides");
  if (!node->strides.empty() && node->strides.size() != node->shape.size()) {
    Fail(strides_at, "one stride per dimension expected");
  }
  if (node->elem_offset.defined()) {
    integers({node->elem_offset}, args.at, "element offsets");
  }
  if (!node->data.defined()) node->data = Var(name, DataType::Handle());
  return Buffer(std::move(node));
}

BufferRegion TirParser::ParseRegion() {
  Token name = ExpectName("a buffer region");
  Buffer buffer = LookupBuffer(name);
  Token open = ExpectOp("[");
  BufferRegion region{buffer, {}};
  if (Peek().IsOp("(") && Peek(1).IsOp(")")) {
    Next();
    Next();
  } else {
    do {
      if (Peek().IsOp("]")) break;
      PExpr lo = ParseOr();
      if (AcceptOp(":")) {
        PExpr hi = ParseOr();
        region.region.push_back(Range{lo.e, ExtentOf(open, lo, hi)});
      } else {
        region.region.push_back(Range{lo.e, Build(open, [&] { return IntImm(lo.e.dtype(), 1); })});
      }
    } while (AcceptOp(","));
  }
  ExpectOp("]");
  if (region.region.size() != buffer.ndim()) {
    Fail(open, "buffer '" + name.text + "' has " + std::to_string(buffer.ndim()) +
                   " dimensions, got " + std::to_string(region.region.size()) + " indices");
  }
  return region;
}

std::vector<BufferRegion> TirParser::ParseRegions(const Token& fn) {
  Token open = ExpectOp("(");
  NestingGuard guard(*this, fn);
  bool list = AcceptOp("[");
  std::vector<BufferRegion> regions;
  while (!Peek().IsOp(list ? "]" : ")")) {
    regions.push_back(ParseRegion());
    if (!AcceptOp(",")) break;
  }
  if (list) ExpectOp("]");
  ExpectOp(")");
  return regions;
}

}  // namespace kiln::ir
