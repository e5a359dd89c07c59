// TVMScript functions and statements: the @T.prim_func signature (T.Buffer annotations,
// handles with T.match_buffer, scalar parameters, symbolic shape variables), loops, blocks
// with their iter vars, regions and init, lets, buffer declarations and stores, and the
// @I.ir_module container. See parser_expr.cc for expressions. Both dialects are read: TVM up
// to 0.23 (T.block, "tir.noalias") and 0.24+ (T.sblock, s_tir=True, "tirx.noalias", symbolic
// dims declared above the function as `n = TypeVar("n")` or named by a string in a shape).
#include "ir/text/parser.h"

#include <algorithm>
#include <cctype>
#include <optional>

#include "ir/arith/region.h"
#include "ir/text/parser_impl.h"
#include "ir/text/print_util.h"

namespace kiln::ir {

// ---- tokens -----------------------------------------------------------------------------

const Token& TirParser::Peek(size_t k) const {
  return tokens_[std::min(pos_ + k, tokens_.size() - 1)];
}

const Token& TirParser::Next() {
  const Token& t = Peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return t;
}

bool TirParser::AcceptOp(std::string_view op) {
  if (!Peek().IsOp(op)) return false;
  Next();
  return true;
}

const Token& TirParser::ExpectOp(std::string_view op) {
  if (!Peek().IsOp(op)) Expected("'" + std::string(op) + "'");
  return Next();
}

const Token& TirParser::ExpectName(std::string_view what) {
  if (Peek().kind != TokenKind::kName) Expected(std::string(what));
  return Next();
}

void TirParser::ExpectKeyword(std::string_view name) {
  if (!Peek().IsName(name)) Expected("'" + std::string(name) + "'");
  Next();
}

void TirParser::ExpectNewline() {
  if (Peek().kind != TokenKind::kNewline) Expected("end of line");
  Next();
}

void TirParser::Fail(const Token& at, const std::string& message) const {
  source_.Fail(at, message);
}

void TirParser::Expected(const std::string& what) const {
  Fail(Peek(), "expected " + what + ", got " + Peek().Describe());
}

const TirParser::Symbol* TirParser::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

Buffer TirParser::LookupBuffer(const Token& name) const {
  const Symbol* symbol = Lookup(name.text);
  if (!symbol) Fail(name, "undefined name '" + name.text + "'");
  if (!symbol->buffer.defined()) Fail(name, "'" + name.text + "' is not a buffer");
  return symbol->buffer;
}

// ---- function ---------------------------------------------------------------------------

namespace {

// Keys TVM 0.24 renamed are kept under Kiln's (older) key, unless the function has both.
void CanonicalizeAttrKeys(Annotations* attrs) {
  for (const RenamedAttrKey& key : RenamedAttrKeys()) {
    auto it = attrs->find(std::string(key.tvm024));
    if (it == attrs->end() || attrs->count(std::string(key.kiln))) continue;
    Expr value = it->second;
    attrs->erase(it);
    (*attrs)[std::string(key.kiln)] = value;
  }
}

}  // namespace

PrimFunc TirParser::ParseFunction() {
  ExpectOp("@");
  const Token& t = ExpectName("'T'");
  if (t.text != "T") Fail(t, "expected '@T.prim_func', got " + t.Describe());
  ExpectOp(".");
  const Token& deco = ExpectName("'prim_func'");
  if (deco.text != "prim_func") Fail(deco, "expected 'prim_func', got " + deco.Describe());
  bool is_private = false;
  if (Peek().IsOp("(")) {
    Args args = ParseArgs();
    if (!args.positional.empty()) Fail(args.positional[0].at, "unexpected argument");
    for (const auto& [key, value] : args.keywords) {
      bool flag_arg =
          key.text == "private" || key.text == "s_tir" || key.text == "check_well_formed";
      if (!flag_arg) Fail(key, "unknown argument '" + key.text + "' of T.prim_func");
      auto flag = AsExpr(value, "True or False");
      if (!flag.dtype().is_bool() || !AsConstInt(flag)) Fail(value.at, "expected True or False");
      // s_tir=True (TVM 0.24+) marks a function with blocks; every Kiln function is one.
      if (key.text == "private") is_private = *AsConstInt(flag) != 0;
    }
  }
  size_t decorator_end = pos_;
  ExpectNewline();
  ExpectKeyword("def");
  const Token& name = ExpectName("a function name");
  func_ = std::make_shared<PrimFuncNode>();
  func_->name = name.text;
  PushScope();
  DeclareSymbolicVars(decorator_end);
  ParseParams(&func_->params, &func_->buffer_map);
  if (AcceptOp("->")) ParseValue();
  ExpectOp(":");
  BlockFrame root;
  Stmt body = ParseBody(Scope::kFunction, &root, name);
  PopScope();

  // Buffers come in parameter order whatever the order of the match_buffer lines.
  auto& map = func_->buffer_map;
  auto index = [&](const Var& v) {
    return std::find_if(func_->params.begin(), func_->params.end(),
                        [&](const Var& p) { return p.same_as(v); }) -
           func_->params.begin();
  };
  std::stable_sort(map.begin(), map.end(),
                   [&](const auto& a, const auto& b) { return index(a.first) < index(b.first); });

  const auto* realize = body.as<BlockRealizeNode>();
  bool explicit_root =
      realize && realize->block_node()->name == "root" && root.alloc_buffers.empty();
  if (!explicit_root && (saw_block_ || !root.alloc_buffers.empty())) {
    auto block = std::make_shared<BlockNode>();
    block->name = "root";
    block->alloc_buffers = std::move(root.alloc_buffers);
    block->body = body;
    body = BlockRealize({}, BoolImm(true), Block(std::move(block)));
  }
  func_->body = body;
  CanonicalizeAttrKeys(&func_->attrs);
  if (!is_private && !func_->attrs.count("global_symbol")) {
    func_->attrs["global_symbol"] = StringImm(func_->name);
  }
  return PrimFunc(std::move(func_));
}

namespace {

// The dtype of a `NAME = T.<dtype>()` or `NAME = TypeVar("NAME")` declaration at tokens[k],
// or nullopt when the line is something else.
std::optional<DataType> DeclarationAt(const std::vector<Token>& tokens, size_t k) {
  auto at = [&](size_t i) -> const Token& { return tokens[std::min(k + i, tokens.size() - 1)]; };
  if (at(0).kind != TokenKind::kName || !at(1).IsOp("=")) return std::nullopt;
  if (at(2).IsName("TypeVar") && at(3).IsOp("(") && at(4).kind == TokenKind::kString &&
      at(5).IsOp(")") && at(6).kind == TokenKind::kNewline) {
    return DataType::Int(64);  // TVM declares its int64 shape variables so
  }
  if (at(2).IsName("T") && at(3).IsOp(".") && at(4).kind == TokenKind::kName && at(5).IsOp("(") &&
      at(6).IsOp(")") && at(7).kind == TokenKind::kNewline) {
    auto t = DataType::Parse(at(4).text);
    if (t && t->is_scalar() && (t->is_int() || t->is_uint())) return t;
  }
  return std::nullopt;
}

}  // namespace

void TirParser::DeclareSymbolicVars(size_t decorator_end) {
  auto declare = [&](const std::string& name, DataType dtype) {
    Var var(name, dtype);
    Bind(name, Symbol{var, {}});
    predeclared_.insert(var.get());
  };
  // Lines at indentation depth 0 before the function (above it, or above its module).
  int depth = 0;
  bool line_start = true;
  for (size_t k = 0; k < decorator_end && k < tokens_.size(); ++k) {
    const Token& t = tokens_[k];
    if (t.kind == TokenKind::kIndent) ++depth;
    if (t.kind == TokenKind::kDedent) --depth;
    if (depth == 0 && line_start) {
      if (auto dtype = DeclarationAt(tokens_, k)) declare(t.text, *dtype);
    }
    line_start = t.kind == TokenKind::kNewline || t.kind == TokenKind::kIndent ||
                 t.kind == TokenKind::kDedent;
  }
  // Declarations of integer scalars on the body's first level, which the signature may use.
  size_t k = decorator_end;
  while (k < tokens_.size() && tokens_[k].kind != TokenKind::kIndent &&
         tokens_[k].kind != TokenKind::kEnd) {
    ++k;
  }
  depth = 0;
  line_start = true;
  for (; k < tokens_.size() && tokens_[k].kind != TokenKind::kEnd; ++k) {
    const Token& t = tokens_[k];
    if (t.kind == TokenKind::kIndent) ++depth;
    if (t.kind == TokenKind::kDedent && --depth == 0) break;
    if (depth == 1 && line_start && t.kind == TokenKind::kName) {
      auto dtype = DeclarationAt(tokens_, k);
      if (dtype && !tokens_[k + 2].IsName("TypeVar")) declare(t.text, *dtype);
    }
    line_start = t.kind == TokenKind::kNewline || t.kind == TokenKind::kIndent ||
                 t.kind == TokenKind::kDedent;
  }
}

void TirParser::CheckHintAttr(const Args& args) const {
  const Value* dict = args.positional.size() == 1 && args.keywords.empty() &&
                              args.positional[0].kind == Value::kDict
                          ? &args.positional[0]
                          : nullptr;
  if (!dict) Fail(args.at, "T.attr takes one dict of pragma_* hints here");
  for (const Value& key : dict->keys) {
    std::string name = AsString(key, "an attribute key");
    if (name.rfind("pragma_", 0) != 0) {
      Fail(key.at, "T.attr key '" + name +
                       "' is not supported: Kiln reads only pragma_* hints (and drops them)");
    }
  }
}

Var TirParser::NamedShapeVar(const Token& at, const std::string& name) {
  if (const Symbol* symbol = Lookup(name)) {
    if (!symbol->var.defined()) Fail(at, "'" + name + "' in a shape names a buffer");
    return symbol->var;
  }
  bool valid = !name.empty() && !std::isdigit(static_cast<unsigned char>(name[0]));
  for (char c : name) valid &= std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  if (!valid) Fail(at, "expected a variable name in the shape, got \"" + name + "\"");
  // te's shape variables are int32 unless a declaration said otherwise.
  Var var(name, DataType::Int(32));
  scopes_.front()[name] = Symbol{var, {}};
  predeclared_.insert(var.get());
  return var;
}

void TirParser::ParseParams(std::vector<Var>* params,
                            std::vector<std::pair<Var, Buffer>>* buffer_map) {
  ExpectOp("(");
  while (!Peek().IsOp(")")) {
    const Token& name = ExpectName("a parameter name");
    // A parameter may shadow a symbolic variable declared above (a module's TypeVar).
    auto earlier = scopes_.back().find(name.text);
    if (earlier != scopes_.back().end() &&
        !(earlier->second.var.defined() && predeclared_.count(earlier->second.var.get()))) {
      Fail(name, "parameter '" + name.text + "' repeated");
    }
    ExpectOp(":");
    const Token& t = ExpectName("a parameter type");
    if (t.text != "T")
      Fail(t, "expected a parameter type such as T.Buffer or T.int32, got " + t.Describe());
    ExpectOp(".");
    const Token& type = ExpectName("a parameter type");
    if (type.text == "Buffer") {
      Args args;
      if (Peek().IsOp("[")) {
        // The older subscript form: T.Buffer[(128, 128), "float32"].
        args.at = Next();
        NestingGuard guard(*this, args.at);
        while (!Peek().IsOp("]")) {
          args.positional.push_back(ParseValue());
          if (!AcceptOp(",")) break;
        }
        ExpectOp("]");
      } else {
        if (!Peek().IsOp("(")) Expected("'(' after T.Buffer");
        args = ParseArgs();
      }
      Buffer buffer = MakeBuffer(name.text, args, 0);
      Var var(name.text, DataType::Handle());
      params->push_back(var);
      buffer_map->emplace_back(var, buffer);
      Bind(name.text, Symbol{{}, buffer});
    } else {
      DataType dtype = ParseDTypeName(type, type.text);
      Var var(name.text, dtype);
      params->push_back(var);
      Bind(name.text, Symbol{var, {}});
    }
    if (!AcceptOp(",")) break;
  }
  ExpectOp(")");
}

// ---- statement lists --------------------------------------------------------------------

Stmt TirParser::ParseBody(Scope scope, BlockFrame* frame, const Token& owner) {
  ExpectNewline();
  if (Peek().kind != TokenKind::kIndent) Expected("an indented block");
  NestingGuard guard(*this, Next());
  std::vector<Stmt> stmts = ParseStmtList(scope, frame);
  if (Peek().kind != TokenKind::kDedent) Expected("a statement");
  Next();
  if (stmts.empty()) {
    if (scope == Scope::kBlock) return Stmt();
    Fail(owner, "the body of '" + owner.text + "' has no statement");
  }
  return SeqStmt(std::move(stmts));
}

std::vector<Stmt> TirParser::ParseStmtList(Scope scope, BlockFrame* frame) {
  std::vector<Stmt> out;
  while (Peek().kind != TokenKind::kDedent && Peek().kind != TokenKind::kEnd) {
    if (Peek().kind == TokenKind::kIndent) Fail(Peek(), "unexpected indent");
    if (ParseStatement(scope, frame, &out)) break;
  }
  return out;
}

Stmt TirParser::ParseRest(const Token& at) {
  NestingGuard guard(*this, at);
  std::vector<Stmt> rest = ParseStmtList(Scope::kOther, nullptr);
  if (rest.empty()) Fail(at, "expected statements after the binding of '" + at.text + "'");
  return SeqStmt(std::move(rest));
}

TirParser::BlockFrame& TirParser::RequireBlock(Scope scope, BlockFrame* frame,
                                               const Token& at) const {
  if (scope != Scope::kBlock || !frame) {
    Fail(at, "T." + at.text + " must be directly inside a block");
  }
  return *frame;
}

bool TirParser::ParseStatement(Scope scope, BlockFrame* frame, std::vector<Stmt>* out) {
  const Token& t = Peek();
  if (t.kind != TokenKind::kName) Expected("a statement");
  if (t.text == "for") {
    out->push_back(ParseFor());
    return false;
  }
  if (t.text == "if") {
    out->push_back(ParseIf(Next()));
    return false;
  }
  if (t.text == "with") {
    Stmt s = ParseWith(scope, frame);
    if (s.defined()) out->push_back(s);
    return false;
  }
  if (t.text == "pass") {
    Next();
    ExpectNewline();
    return false;
  }
  if (t.text == "T" && Peek(1).IsOp(".")) {
    ParseTStatement(scope, frame, out);
    return false;
  }
  if (Peek(1).IsOp(":")) return ParseAnnotatedLet(out);
  if (Peek(1).IsOp("=") || Peek(1).IsOp(",")) return ParseAssignment(scope, frame, out);
  if (Peek(1).IsOp("[")) {
    out->push_back(ParseStore(Next()));
    return false;
  }
  Expected("a statement");
}

// ---- loops and conditions ---------------------------------------------------------------

Stmt TirParser::ParseFor() {
  Token for_tok = Next();
  std::vector<Token> targets{ExpectName("a loop variable")};
  while (AcceptOp(",")) targets.push_back(ExpectName("a loop variable"));
  ExpectKeyword("in");
  const Token& head = ExpectName("range(...) or a T loop kind");
  std::string fn = head.text;
  if (head.text == "T") {
    ExpectOp(".");
    fn = ExpectName("a loop kind").text;
  } else if (head.text != "range") {
    Fail(head,
         "expected range(...) or T.grid/T.serial/T.parallel/T.vectorized/T.unroll/"
         "T.thread_binding, got " +
             head.Describe());
  }
  static const std::pair<std::string_view, ForKind> kKinds[] = {
      {"range", ForKind::kSerial},      {"serial", ForKind::kSerial},
      {"parallel", ForKind::kParallel}, {"vectorized", ForKind::kVectorized},
      {"unroll", ForKind::kUnrolled},   {"thread_binding", ForKind::kThreadBinding},
      {"grid", ForKind::kSerial}};
  ForKind kind = ForKind::kSerial;
  bool known = false;
  for (const auto& [text, k] : kKinds) {
    if (fn == text && (head.text == "T") == (text != "range")) {
      kind = k;
      known = true;
    }
  }
  if (!known) Fail(head, "unknown loop kind '" + fn + "'");
  if (!Peek().IsOp("(")) Expected("'('");
  Args args = ParseArgs();
  struct LoopDef {
    Expr min, extent;
  };
  std::vector<LoopDef> defs;
  std::string thread;
  Annotations annotations;
  auto integer = [&](const Value& v) {
    if (v.kind != Value::kExpr || !v.expr.e.dtype().is_scalar() ||
        !(v.expr.e.dtype().is_int() || v.expr.e.dtype().is_uint())) {
      Fail(v.at, "loop bounds must be integers");
    }
    return v.expr;
  };
  if (fn == "grid") {
    if (args.positional.size() != targets.size() || !args.keywords.empty()) {
      Fail(head, "T.grid has " + std::to_string(args.positional.size()) + " extents but " +
                     std::to_string(targets.size()) + " loop variables");
    }
    for (const Value& v : args.positional) {
      PExpr extent = integer(v);
      defs.push_back({IntImm(extent.e.dtype(), 0), extent.e});
    }
  } else {
    if (targets.size() != 1) Fail(targets[1], fn + " defines one loop variable");
    if (args.positional.empty() || args.positional.size() > 2) {
      Fail(args.at, fn + " takes (extent) or (min, max), got " +
                        std::to_string(args.positional.size()) + " arguments");
    }
    PExpr lo = integer(args.positional[0]);
    if (args.positional.size() == 1) {
      defs.push_back({IntImm(lo.e.dtype(), 0), lo.e});
    } else {
      PExpr hi = integer(args.positional[1]);
      // A constant bound takes the dtype of the other bound, typed or not, so that the
      // printed range reads back the same.
      if (lo.e.as<IntImmNode>() && lo.e.dtype() != hi.e.dtype()) {
        lo.e = IntImm(hi.e.dtype(), *AsConstInt(lo.e));
      } else if (hi.e.as<IntImmNode>() && lo.e.dtype() != hi.e.dtype()) {
        hi.e = IntImm(lo.e.dtype(), *AsConstInt(hi.e));
      }
      defs.push_back({lo.e, ExtentOf(args.at, lo, hi)});
    }
    for (const auto& [key, value] : args.keywords) {
      if (key.text == "thread" && kind == ForKind::kThreadBinding) {
        thread = AsString(value, "a thread tag");
      } else if (key.text == "annotations" && fn != "range") {
        annotations = AsAnnotations(value);
      } else {
        Fail(key, "unexpected keyword argument '" + key.text + "' of " + fn);
      }
    }
    if (kind == ForKind::kThreadBinding && thread.empty()) {
      Fail(head, "T.thread_binding needs thread=\"...\"");
    }
  }
  ExpectOp(":");
  PushScope();
  std::vector<Var> vars;
  for (size_t i = 0; i < targets.size(); ++i) {
    vars.emplace_back(targets[i].text, defs[i].extent.dtype());
    Bind(targets[i].text, Symbol{vars.back(), {}});
    loops_[vars.back().get()] = LoopInfo{defs[i].min, defs[i].extent};
  }
  Stmt body = ParseBody(Scope::kOther, nullptr, for_tok);
  for (const Var& v : vars) loops_.erase(v.get());
  PopScope();
  for (size_t i = vars.size(); i-- > 0;) {
    body = For(vars[i], defs[i].min, defs[i].extent, kind, body, i == 0 ? thread : "",
               i == 0 ? annotations : Annotations{});
  }
  return body;
}

Stmt TirParser::ParseIf(const Token& keyword) {
  NestingGuard guard(*this, keyword);
  PExpr cond = ParsePExpr();
  ExpectOp(":");
  PushScope();
  Stmt then_case = ParseBody(Scope::kOther, nullptr, keyword);
  PopScope();
  Stmt else_case;
  if (Peek().IsName("elif")) {
    else_case = ParseIf(Next());
  } else if (Peek().IsName("else")) {
    Token else_tok = Next();
    ExpectOp(":");
    PushScope();
    else_case = ParseBody(Scope::kOther, nullptr, else_tok);
    PopScope();
  }
  return Build(keyword, [&] { return IfThenElse(cond.e, then_case, else_case); });
}

// ---- with: blocks, init, scoped lets and buffers ----------------------------------------

Stmt TirParser::ParseWith(Scope scope, BlockFrame* frame) {
  Token with_tok = Next();
  const Token& t = ExpectName("'T'");
  if (t.text != "T")
    Fail(t, "expected T.sblock, T.block, T.init, T.LetStmt or T.decl_buffer, got " + t.Describe());
  ExpectOp(".");
  Token fn = ExpectName("T.sblock, T.block or T.init");
  if (!Peek().IsOp("(")) Expected("'('");
  if (fn.text == "block" || fn.text == "sblock") return ParseBlock(fn, scope);
  if (fn.text == "sp_iter" || fn.text == "iter") return ParseSpIter(fn);
  if (fn.text == "init") {
    BlockFrame& block = RequireBlock(scope, frame, fn);
    Args args = ParseArgs();
    if (!args.positional.empty() || !args.keywords.empty())
      Fail(args.at, "T.init takes no arguments");
    if (block.init.defined()) Fail(fn, "the block already has a T.init");
    ExpectOp(":");
    PushScope();
    block.init = ParseBody(Scope::kOther, nullptr, fn);
    PopScope();
    return Stmt();
  }
  if (fn.text == "attr") {
    CheckHintAttr(ParseArgs());
    ExpectOp(":");
    PushScope();
    Stmt body = ParseBody(Scope::kOther, nullptr, with_tok);
    PopScope();
    return body;
  }
  if (fn.text == "LetStmt" || fn.text == "decl_buffer") {
    Args args = ParseArgs();
    ExpectKeyword("as");
    Token name = ExpectName("a name");
    ExpectOp(":");
    PushScope();
    Stmt result;
    if (fn.text == "LetStmt") {
      if (args.positional.size() != 1 || !args.keywords.empty())
        Fail(args.at, "T.LetStmt takes one value");
      Expr value = AsExpr(args.positional[0], "a value");
      Var var(name.text, value.dtype());
      Bind(name.text, Symbol{var, {}});
      Stmt body = ParseBody(Scope::kOther, nullptr, with_tok);
      result = Build(fn, [&] { return LetStmt(var, value, body); });
    } else {
      bool has_data = false;
      Buffer buffer = MakeBuffer(name.text, args, 0, &has_data);
      Bind(name.text, Symbol{{}, buffer});
      Stmt body = ParseBody(Scope::kOther, nullptr, with_tok);
      result = has_data ? DeclBufferStmt(buffer, body) : Allocate(buffer, body);
    }
    PopScope();
    return result;
  }
  Fail(fn, "unsupported 'with T." + fn.text + "'");
}

Stmt TirParser::ParseBlock(const Token& at, Scope scope) {
  NestingGuard guard(*this, at);
  Args args = ParseArgs();
  if (args.positional.size() != 1) Fail(args.at, "T." + at.text + " takes the block name");
  std::string name = AsString(args.positional[0], "a block name");
  for (const auto& [key, value] : args.keywords)
    Fail(key, "unsupported argument '" + key.text + "' of T." + at.text);
  ExpectOp(":");
  saw_block_ = true;
  BlockFrame frame;
  PushScope();
  Stmt body = ParseBody(Scope::kBlock, &frame, at);
  PopScope();
  if (!body.defined()) Fail(at, "block '" + name + "' has no body");
  auto node = std::make_shared<BlockNode>();
  node->name = name;
  node->iter_vars = std::move(frame.iter_vars);
  node->alloc_buffers = std::move(frame.alloc_buffers);
  node->init = frame.init;
  node->body = body;
  node->annotations = std::move(frame.annotations);
  bool is_root = name == "root" && scope == Scope::kFunction;
  if (frame.reads) node->reads = std::move(*frame.reads);
  if (frame.writes) node->writes = std::move(*frame.writes);
  if ((!frame.reads || !frame.writes) && !is_root) {
    arith::BlockAccessRegions regions =
        Build(at, [&] { return arith::DetectBlockAccessRegions(*node); });
    if (!frame.reads) node->reads = std::move(regions.reads);
    if (!frame.writes) node->writes = std::move(regions.writes);
  }
  Expr predicate = frame.predicate.defined() ? frame.predicate : BoolImm(true);
  std::vector<Expr> values = std::move(frame.iter_values);
  return Build(at, [&] { return BlockRealize(values, predicate, Block(node)); });
}

// ---- entry points -----------------------------------------------------------------------

PrimFunc ParsePrimFuncAt(const SourceText& source, const std::vector<Token>& tokens, size_t* pos) {
  TirParser parser(source, tokens, *pos);
  PrimFunc f = parser.ParseFunction();
  *pos = parser.pos();
  return f;
}

namespace {

void SkipNewlines(const std::vector<Token>& tokens, size_t* pos) {
  while (tokens[*pos].kind == TokenKind::kNewline) ++*pos;
}

// Skips `from ... import ...` and `import ...` lines, which pasted scripts often start with.
bool SkipImport(const std::vector<Token>& tokens, size_t* pos) {
  if (!tokens[*pos].IsName("from") && !tokens[*pos].IsName("import")) return false;
  while (tokens[*pos].kind != TokenKind::kNewline && tokens[*pos].kind != TokenKind::kEnd) ++*pos;
  return true;
}

// Skips a symbolic variable declaration above a function or module (`n = TypeVar("n")`,
// `n = T.int64()`); each function binds them itself (TirParser::DeclareSymbolicVars).
bool SkipDeclaration(const std::vector<Token>& tokens, size_t* pos) {
  if (!DeclarationAt(tokens, *pos)) return false;
  while (tokens[*pos].kind != TokenKind::kNewline && tokens[*pos].kind != TokenKind::kEnd) ++*pos;
  return true;
}

bool IsDecorator(const std::vector<Token>& tokens, size_t pos, std::string_view prefix,
                 std::string_view name) {
  return pos + 3 < tokens.size() && tokens[pos].IsOp("@") && tokens[pos + 1].IsName(prefix) &&
         tokens[pos + 2].IsOp(".") && tokens[pos + 3].IsName(name);
}

}  // namespace

std::vector<PrimFunc> ParsePrimFuncs(std::string_view text, std::string_view source_name) {
  SourceText source(text, source_name);
  std::vector<Token> tokens = Tokenize(source);
  std::vector<PrimFunc> funcs;
  size_t pos = 0;
  auto expected = [&](const Token& t, const std::string& what) {
    source.Fail(t, "expected " + what + ", got " + t.Describe());
  };
  while (true) {
    SkipNewlines(tokens, &pos);
    if (tokens[pos].kind == TokenKind::kEnd) break;
    if (SkipImport(tokens, &pos) || SkipDeclaration(tokens, &pos)) continue;
    if (IsDecorator(tokens, pos, "T", "prim_func")) {
      funcs.push_back(ParsePrimFuncAt(source, tokens, &pos));
      continue;
    }
    if (!IsDecorator(tokens, pos, "I", "ir_module")) {
      expected(tokens[pos], "'@T.prim_func' or '@I.ir_module'");
    }
    pos += 4;
    if (tokens[pos].IsOp("(")) {  // @I.ir_module(check_well_formed=...)
      while (!tokens[pos].IsOp(")") && tokens[pos].kind != TokenKind::kEnd) ++pos;
      if (tokens[pos].IsOp(")")) ++pos;
    }
    if (tokens[pos].kind != TokenKind::kNewline) expected(tokens[pos], "end of line");
    ++pos;
    if (!tokens[pos].IsName("class")) expected(tokens[pos], "'class'");
    ++pos;
    if (tokens[pos].kind != TokenKind::kName) expected(tokens[pos], "a module name");
    ++pos;
    if (!tokens[pos].IsOp(":")) expected(tokens[pos], "':'");
    ++pos;
    if (tokens[pos].kind != TokenKind::kNewline) expected(tokens[pos], "end of line");
    ++pos;
    if (tokens[pos].kind != TokenKind::kIndent) expected(tokens[pos], "an indented class body");
    ++pos;
    while (true) {
      SkipNewlines(tokens, &pos);
      if (tokens[pos].kind == TokenKind::kDedent) {
        ++pos;
        break;
      }
      if (!IsDecorator(tokens, pos, "T", "prim_func")) {
        expected(tokens[pos], "'@T.prim_func' (only TensorIR functions are read here)");
      }
      funcs.push_back(ParsePrimFuncAt(source, tokens, &pos));
    }
  }
  return funcs;
}

PrimFunc ParsePrimFunc(std::string_view text, std::string_view source_name) {
  std::vector<PrimFunc> funcs = ParsePrimFuncs(text, source_name);
  if (funcs.size() != 1) {
    throw Error(ErrorKind::kParse, std::string(source_name) + ":1:1: expected exactly one " +
                                       "T.prim_func, got " + std::to_string(funcs.size()));
  }
  return funcs[0];
}

}  // namespace kiln::ir
