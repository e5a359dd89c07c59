// TVMScript simple statements: T.func_attr / T.reads / T.writes / T.where / T.block_attr
// (T.sblock_attr) / T.evaluate, assignments (iter vars, match_buffer, alloc_buffer
// (T.sblock_alloc_buffer), decl_buffer, shape variable declarations, lets, `v: T.let[T.int64]`)
// and buffer stores.
#include <algorithm>

#include "ir/text/parser_impl.h"

namespace kiln::ir {

namespace {

bool IsImmediate(const Expr& e) { return e.as<IntImmNode>() || e.as<FloatImmNode>(); }

// An untyped literal takes the dtype its place asks for (a store to a float buffer, a let
// annotated T.int64).
Expr Retype(const Expr& e, bool literal, DataType dtype) {
  if (!literal || !IsImmediate(e) || e.dtype() == dtype || !dtype.is_scalar()) return e;
  if (e.as<FloatImmNode>() && !dtype.is_float()) return e;
  if (dtype.is_handle()) return e;
  double v = e.as<IntImmNode>() ? static_cast<double>(e.as<IntImmNode>()->value)
                                : e.as<FloatImmNode>()->value;
  if (const auto* i = e.as<IntImmNode>(); i && !dtype.is_float()) return IntImm(dtype, i->value);
  return MakeConst(dtype, v);
}

}  // namespace

void TirParser::ParseTStatement(Scope scope, BlockFrame* frame, std::vector<Stmt>* out) {
  size_t start = pos_;
  Next();  // T
  Next();  // .
  Token fn = ExpectName("a name after 'T.'");
  if (fn.text == "reads" || fn.text == "writes") {
    BlockFrame& block = RequireBlock(scope, frame, fn);
    auto& slot = fn.text == "reads" ? block.reads : block.writes;
    if (slot) Fail(fn, "T." + fn.text + " given twice");
    slot = ParseRegions(fn);
  } else if (fn.text == "func_attr") {
    if (scope != Scope::kFunction) Fail(fn, "T.func_attr must be in the function body");
    if (attrs_given_) Fail(fn, "T.func_attr given twice");
    Args args = ParseArgs();
    if (args.positional.size() != 1 || !args.keywords.empty())
      Fail(args.at, "T.func_attr takes one dict");
    func_->attrs = AsAnnotations(args.positional[0]);
    attrs_given_ = true;
  } else if (fn.text == "where") {
    BlockFrame& block = RequireBlock(scope, frame, fn);
    if (block.predicate.defined()) Fail(fn, "T.where given twice");
    Args args = ParseArgs();
    if (args.positional.size() != 1 || !args.keywords.empty())
      Fail(args.at, "T.where takes one condition");
    Expr cond = AsExpr(args.positional[0], "a condition");
    if (!cond.dtype().is_bool() || !cond.dtype().is_scalar()) {
      Fail(args.positional[0].at, "T.where needs a bool condition, got " + cond.dtype().ToString());
    }
    block.predicate = cond;
  } else if (fn.text == "block_attr" || fn.text == "sblock_attr") {
    BlockFrame& block = RequireBlock(scope, frame, fn);
    Args args = ParseArgs();
    if (args.positional.size() != 1 || !args.keywords.empty())
      Fail(args.at, "T." + fn.text + " takes one dict");
    for (auto& [key, value] : AsAnnotations(args.positional[0])) block.annotations[key] = value;
  } else if (fn.text == "attr") {
    CheckHintAttr(ParseArgs());
  } else if (fn.text == "evaluate") {
    Args args = ParseArgs();
    if (args.positional.size() != 1 || !args.keywords.empty())
      Fail(args.at, "T.evaluate takes one expression");
    out->push_back(Evaluate(AsExpr(args.positional[0], "an expression")));
  } else if (fn.text == "match_buffer" || fn.text == "alloc_buffer" || fn.text == "decl_buffer" ||
             fn.text == "sblock_alloc_buffer" || fn.text == "axis") {
    Fail(fn, "T." + fn.text + " must be assigned to a name");
  } else {
    // An expression statement, such as a bare intrinsic call.
    pos_ = start;
    out->push_back(Evaluate(ParseExpr()));
  }
  ExpectNewline();
}

bool TirParser::ParseAnnotatedLet(std::vector<Stmt>* out) {
  Token name = Next();
  ExpectOp(":");
  const Token& t = ExpectName("a type such as T.int32");
  if (t.text != "T") Fail(t, "expected a type such as T.int32, got " + t.Describe());
  ExpectOp(".");
  Token type = ExpectName("a dtype");
  // TVM 0.24+ writes `v: T.let[T.int64] = ...`.
  bool let_form = type.text == "let" && Peek().IsOp("[");
  if (let_form) {
    Next();
    const Token& inner = ExpectName("a type such as T.int64");
    if (inner.text != "T") Fail(inner, "expected a type such as T.int64, got " + inner.Describe());
    ExpectOp(".");
    type = ExpectName("a dtype");
  }
  DataType dtype = ParseDTypeName(type, type.text);
  if (let_form) ExpectOp("]");
  ExpectOp("=");
  PExpr value = ParsePExpr();
  ExpectNewline();
  Expr v = Retype(value.e, value.literal, dtype);
  if (v.dtype() != dtype) {
    Fail(name, "'" + name.text + "' is " + dtype.ToString() + " but its value is " +
                   v.dtype().ToString());
  }
  Var var(name.text, dtype);
  PushScope();
  Bind(name.text, Symbol{var, {}});
  Stmt body = ParseRest(name);
  PopScope();
  out->push_back(LetStmt(var, v, body));
  return true;
}

bool TirParser::ParseAssignment(Scope scope, BlockFrame* frame, std::vector<Stmt>* out) {
  std::vector<Token> targets{Next()};
  while (AcceptOp(",")) targets.push_back(ExpectName("a name"));
  Token eq = ExpectOp("=");
  bool t_call = Peek().IsName("T") && Peek(1).IsOp(".") && Peek(2).kind == TokenKind::kName;
  std::string fn = t_call ? Peek(2).text : "";
  if (fn == "sblock_alloc_buffer") fn = "alloc_buffer";
  if (fn == "dense_fixed" || fn == "dense_variable" || fn == "sparse_fixed" ||
      fn == "sparse_variable" || fn == "match_sparse_buffer" || fn == "alloc_sparse_buffer") {
    if (targets.size() != 1) Fail(targets[1], "T." + fn + " defines one name");
    ParseSparseDecl(scope, targets[0]);
    return false;
  }
  if (fn == "axis") {
    ParseAxis(targets, &RequireBlock(scope, frame, Peek(2)));
    ExpectNewline();
    return false;
  }
  if (targets.size() != 1) Fail(targets[1], "only T.axis.remap assigns several names");
  const Token& name = targets[0];
  if (fn == "match_buffer" || fn == "alloc_buffer" || fn == "decl_buffer") {
    Next();
    Next();
    Token call = Next();
    if (!Peek().IsOp("(")) Expected("'('");
    Args args = ParseArgs();
    ExpectNewline();
    if (fn == "match_buffer") {
      if (scope != Scope::kFunction) Fail(call, "T.match_buffer must be in the function body");
      if (args.positional.empty()) Fail(args.at, "T.match_buffer needs a handle parameter");
      Expr param = AsExpr(args.positional[0], "a handle parameter");
      auto is_param = [&](const Var& p) { return p.same_as(param); };
      if (!param.as<VarNode>() || !param.dtype().is_handle() ||
          std::none_of(func_->params.begin(), func_->params.end(), is_param)) {
        Fail(args.positional[0].at, "T.match_buffer needs a T.handle parameter of the function");
      }
      Var var(param.ptr());
      for (const auto& [p, b] : func_->buffer_map) {
        if (p.same_as(var)) Fail(args.positional[0].at, "parameter already has a buffer");
      }
      Buffer buffer = MakeBuffer(name.text, args, 1);
      func_->buffer_map.emplace_back(var, buffer);
      Bind(name.text, Symbol{{}, buffer});
      return false;
    }
    if (fn == "alloc_buffer") {
      if (scope == Scope::kOther || !frame) {
        Fail(call, "T." + call.text + " must be directly inside a block or the function body");
      }
      Buffer buffer = MakeBuffer(name.text, args, 0);
      frame->alloc_buffers.push_back(buffer);
      Bind(name.text, Symbol{{}, buffer});
      return false;
    }
    bool has_data = false;
    Buffer buffer = MakeBuffer(name.text, args, 0, &has_data);
    PushScope();
    Bind(name.text, Symbol{{}, buffer});
    Stmt body = ParseRest(name);
    PopScope();
    out->push_back(has_data ? DeclBufferStmt(buffer, body) : Allocate(buffer, body));
    return true;
  }
  // Declarations of variables: n = T.int32(), p = T.handle(), n = T.var("int32").
  if (t_call && Peek(3).IsOp("(") && (Peek(4).IsOp(")") || fn == "var")) {
    Next();
    Next();
    Token type = Next();
    DataType dtype;
    if (fn == "var") {
      Args args = ParseArgs();
      if (args.positional.size() != 1) Fail(args.at, "T.var takes a dtype");
      dtype = AsDType(args.positional[0]);
    } else {
      Next();
      Next();
      dtype = ParseDTypeName(type, fn);
    }
    ExpectNewline();
    // A variable the signature already used (bound by DeclareSymbolicVars) keeps its node.
    const Symbol* known = Lookup(name.text);
    if (known && known->var.defined() && predeclared_.count(known->var.get()) &&
        known->var.dtype() == dtype) {
      return false;
    }
    Bind(name.text, Symbol{Var(name.text, dtype), {}});
    return false;
  }
  // x = value: a let whose dtype is the value's.
  PExpr value = ParsePExpr();
  ExpectNewline();
  if (value.e.dtype().is_void()) Fail(eq, "cannot bind a value without a type");
  Var var(name.text, value.e.dtype());
  PushScope();
  Bind(name.text, Symbol{var, {}});
  Stmt body = ParseRest(name);
  PopScope();
  out->push_back(LetStmt(var, value.e, body));
  return true;
}

void TirParser::ParseAxis(const std::vector<Token>& targets, BlockFrame* frame) {
  Next();  // T
  Next();  // .
  Next();  // axis
  ExpectOp(".");
  Token kind_tok = ExpectName("an axis kind");
  const std::string& kind = kind_tok.text;
  if (!Peek().IsOp("(")) Expected("'('");
  Args args = ParseArgs();
  if (kind == "remap") {
    if (args.positional.size() != 2 || !args.keywords.empty()) {
      Fail(args.at, "T.axis.remap takes (kinds, [loop variables])");
    }
    std::string kinds = AsString(args.positional[0], "axis kinds such as \"SSR\"");
    const Value& list = args.positional[1];
    if (list.kind != Value::kList && list.kind != Value::kTuple)
      Fail(list.at, "expected a list of loop variables");
    if (kinds.size() != targets.size() || list.items.size() != targets.size()) {
      Fail(kind_tok, "T.axis.remap binds " + std::to_string(targets.size()) + " names but has " +
                         std::to_string(kinds.size()) + " kinds and " +
                         std::to_string(list.items.size()) + " loop variables");
    }
    for (size_t i = 0; i < targets.size(); ++i) {
      if (kinds[i] != 'S' && kinds[i] != 'R')
        Fail(args.positional[0].at, "axis kinds are 'S' or 'R'");
      Expr value = AsExpr(list.items[i], "a loop variable");
      auto it = value.as<VarNode>() ? loops_.find(value.as<VarNode>()) : loops_.end();
      if (it == loops_.end())
        Fail(list.items[i].at, "T.axis.remap needs loop variables of enclosing loops");
      Var var(targets[i].text, value.dtype());
      frame->iter_vars.push_back(IterVar{var, Range{it->second.min, it->second.extent},
                                         kinds[i] == 'S' ? IterKind::kSpatial : IterKind::kReduce});
      frame->iter_values.push_back(value);
      Bind(targets[i].text, Symbol{var, {}});
    }
    return;
  }
  IterKind iter_kind;
  if (kind == "spatial" || kind == "S") {
    iter_kind = IterKind::kSpatial;
  } else if (kind == "reduce" || kind == "R") {
    iter_kind = IterKind::kReduce;
  } else if (kind == "opaque") {
    iter_kind = IterKind::kOpaque;
  } else {
    Fail(kind_tok, "unknown axis kind '" + kind + "'");
  }
  if (targets.size() != 1) Fail(targets[1], "T.axis." + kind + " defines one variable");
  if (args.positional.size() != 2 || !args.keywords.empty()) {
    Fail(kind_tok, "T.axis." + kind + " takes 2 arguments (domain, binding), got " +
                       std::to_string(args.positional.size() + args.keywords.size()));
  }
  PExpr value = args.positional[1].expr;
  if (args.positional[1].kind != Value::kExpr || !value.e.dtype().is_scalar() ||
      !(value.e.dtype().is_int() || value.e.dtype().is_uint())) {
    Fail(args.positional[1].at, "the binding of an axis must be an integer expression");
  }
  DataType dtype = value.e.dtype();
  const Value& dom = args.positional[0];
  Range range;
  if (dom.kind == Value::kTuple && dom.items.size() == 2 && dom.items[0].kind == Value::kExpr &&
      dom.items[1].kind == Value::kExpr) {
    // Integer constants in a domain take the binding's dtype, typed or not, so that the
    // printed domain reads back the same.
    PExpr lo = dom.items[0].expr;
    PExpr hi = dom.items[1].expr;
    lo.e = Retype(lo.e, lo.e.as<IntImmNode>() != nullptr, dtype);
    hi.e = Retype(hi.e, hi.e.as<IntImmNode>() != nullptr, dtype);
    range = Range{lo.e, ExtentOf(dom.at, lo, hi)};
  } else if (dom.kind == Value::kExpr) {
    Expr extent = Retype(dom.expr.e, dom.expr.e.as<IntImmNode>() != nullptr, dtype);
    if (!extent.dtype().is_int() && !extent.dtype().is_uint())
      Fail(dom.at, "an axis domain must be an integer");
    range = Range{IntImm(extent.dtype(), 0), extent};
  } else {
    Fail(dom.at, "expected an extent or a (min, max) domain");
  }
  Var var(targets[0].text, dtype);
  frame->iter_vars.push_back(IterVar{var, range, iter_kind});
  frame->iter_values.push_back(value.e);
  Bind(targets[0].text, Symbol{var, {}});
}

Stmt TirParser::ParseStore(const Token& name) {
  Buffer buffer = LookupBuffer(name);
  std::vector<PExpr> indices = ParseIndices(buffer, name);
  Token eq = Peek();
  if (!eq.IsOp("=")) Expected("'='");
  Next();
  PExpr value = ParsePExpr();
  ExpectNewline();
  Expr v = Retype(value.e, value.literal, buffer->dtype);
  std::vector<Expr> exprs;
  for (const PExpr& i : indices) exprs.push_back(i.e);
  return Build(eq, [&] { return BufferStore(buffer, v, exprs); });
}

}  // namespace kiln::ir
