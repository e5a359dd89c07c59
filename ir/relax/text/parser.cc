// The Relax parser's module level: the @I.ir_module class, function signatures, the two
// passes over the class (every header first, so that a function may reference one defined
// later, then every body), and the entry points.
#include "ir/relax/text/parser.h"

#include <cctype>
#include <set>
#include <string_view>

#include "ir/relax/text/parser_impl.h"
#include "ir/relax/well_formed.h"
#include "ir/text/parser.h"

namespace kiln::ir::relax {

namespace text {

// ---- tokens -----------------------------------------------------------------------------

const Token& RelaxParser::Peek(size_t k) const {
  return (*tokens_)[std::min(pos_ + k, tokens_->size() - 1)];
}

const Token& RelaxParser::Next() {
  const Token& t = Peek();
  if (pos_ + 1 < tokens_->size()) ++pos_;
  return t;
}

bool RelaxParser::AcceptOp(std::string_view op) {
  if (!Peek().IsOp(op)) return false;
  Next();
  return true;
}

const Token& RelaxParser::ExpectOp(std::string_view op) {
  if (!Peek().IsOp(op)) Expected("'" + std::string(op) + "'");
  return Next();
}

const Token& RelaxParser::ExpectName(const std::string& what) {
  if (Peek().kind != TokenKind::kName) Expected(what);
  return Next();
}

const Token& RelaxParser::ExpectDefinedName(const std::string& what) {
  static const std::set<std::string_view> kKeywords = {
      "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
      "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
      "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
      "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};
  if (Peek().kind == TokenKind::kName && kKeywords.count(Peek().text)) {
    Fail(Peek(), "expected " + what + ", got the Python keyword '" + Peek().text + "'");
  }
  return ExpectName(what);
}

void RelaxParser::ExpectNewline() {
  if (Peek().kind != TokenKind::kNewline) Expected("end of line");
  Next();
}

void RelaxParser::Fail(const Token& at, const std::string& message, ErrorKind kind) const {
  throw Error(kind, source_.Format(at.line, at.column, message));
}

void RelaxParser::Expected(const std::string& what) const {
  Fail(Peek(), "expected " + what + ", got " + Peek().Describe());
}

NestingGuard::NestingGuard(RelaxParser& parser, const Token& at) : parser_(parser) {
  if (++parser_.nesting_ > kMaxNesting) {
    --parser_.nesting_;
    parser_.Fail(at, "nesting deeper than " + std::to_string(kMaxNesting) + " levels");
  }
}

// ---- names ------------------------------------------------------------------------------

const RelaxParser::Symbol* RelaxParser::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return &found->second;
  }
  return nullptr;
}

void RelaxParser::BindVar(const Token& at, const Var& var) {
  const Symbol* old = Lookup(var.name());
  if (old != nullptr && old->dim.defined()) {
    Fail(at, "'" + var.name() + "' is a shape variable; a Relax variable needs another name");
  }
  scopes_.back()[var.name()] = Symbol{var, {}};
}

PrimVar RelaxParser::DefineDim(const Token& at, const std::string& name, DataType dtype) {
  if (const Symbol* old = Lookup(name)) {
    if (old->var.defined()) {
      Fail(at, "'" + name + "' is a Relax variable; a shape variable needs another name");
    }
    if (old->dim.dtype() != dtype) {
      Fail(at, "shape variable '" + name + "' is " + old->dim.dtype().ToString() + ", not " +
                   dtype.ToString());
    }
    return old->dim;
  }
  if (!dtype.is_int() && !dtype.is_uint()) {
    Fail(at, "a shape variable is an integer (T.int64()), not " + dtype.ToString());
  }
  PrimVar v(name, dtype);
  // Shape variables belong to the whole function, wherever they are introduced.
  scopes_.front()[name] = Symbol{{}, v};
  return v;
}

const RelaxParser::GlobalInfo& RelaxParser::LookupGlobal(const Token& name) const {
  auto it = globals_.find(name.text);
  if (it == globals_.end()) {
    if (class_name_.empty()) {
      Fail(name, "'" + name.text + "': a standalone function cannot refer to other functions");
    }
    Fail(name, "the module has no function named '" + name.text + "'");
  }
  return it->second;
}

GlobalVar RelaxParser::GlobalRef(const Token& name) const {
  const GlobalInfo& info = LookupGlobal(name);
  if (!info.gvar.defined()) {
    Fail(name, "function '" + name.text +
                   "' is used before its definition and has no return annotation: write its "
                   "return struct info (-> R.Tensor(...)) on its def");
  }
  return info.gvar;
}

// ---- module -----------------------------------------------------------------------------

void RelaxParser::SkipNewlinesAndImports() {
  while (true) {
    if (Peek().kind == TokenKind::kNewline) {
      Next();
    } else if (Peek().IsName("from") || Peek().IsName("import")) {
      while (Peek().kind != TokenKind::kNewline && Peek().kind != TokenKind::kEnd) Next();
    } else if (metadata_range_ && pos_ == metadata_range_->first) {
      pos_ = metadata_range_->second;
    } else if (AtModuleDimDeclaration()) {
      ParseModuleDimDeclaration();
    } else {
      return;
    }
  }
}

bool RelaxParser::AtDecorator(std::string_view prefix, std::string_view name) const {
  return Peek().IsOp("@") && Peek(1).IsName(prefix) && Peek(2).IsOp(".") && Peek(3).IsName(name);
}

// Finds the top-level `metadata = {...}` section (after the class) and reads it first, so
// that metadata references in function bodies resolve.
void RelaxParser::ScanMetadata() {
  int depth = 0;
  for (size_t i = 0; i + 1 < tokens_->size(); ++i) {
    const Token& t = (*tokens_)[i];
    if (t.kind == TokenKind::kIndent) ++depth;
    if (t.kind == TokenKind::kDedent) --depth;
    bool at_line_start = i == 0 || (*tokens_)[i - 1].kind == TokenKind::kNewline ||
                         (*tokens_)[i - 1].kind == TokenKind::kDedent;
    if (depth != 0 || !at_line_start || !t.IsName("metadata") || !(*tokens_)[i + 1].IsOp("=")) {
      continue;
    }
    if (metadata_range_ || has_metadata_) Fail(t, "a second metadata section");
    size_t saved = pos_;
    pos_ = i;
    SkipMetadataStatement();
    metadata_range_ = std::make_pair(i, pos_);
    i = pos_ - 1;
    pos_ = saved;
  }
}

void RelaxParser::SkipMetadataStatement() {
  Next();  // metadata
  ExpectOp("=");
  ExpectOp("{");
  while (!Peek().IsOp("}")) {
    const Token& key = Peek();
    if (key.kind != TokenKind::kString || key.text != "relax.expr.Constant") {
      Expected("\"relax.expr.Constant\" (the only metadata kind)");
    }
    Next();
    ExpectOp(":");
    ExpectOp("[");
    while (!Peek().IsOp("]")) {
      Value v = ParseValue();
      Expr e = AsExpr(v, "a constant");
      if (e.as<ConstantNode>() == nullptr) Fail(v.at, "expected R.const(...) in the metadata");
      metadata_[kLegacyConstKind].push_back(e);
      if (!AcceptOp(",")) break;
    }
    ExpectOp("]");
    if (!AcceptOp(",")) break;
  }
  ExpectOp("}");
  if (Peek().kind != TokenKind::kEnd) ExpectNewline();
  has_metadata_ = true;
}

void RelaxParser::SetMetadata(const MetadataSection& section) {
  has_metadata_ = true;
  for (const auto& [kind, tensors] : section.constants) {
    std::vector<Expr>& out = metadata_[kind];
    for (const HostTensor& t : tensors) out.push_back(Constant(t));
  }
}

bool RelaxParser::AtModuleDimDeclaration() const {
  if (Peek().kind != TokenKind::kName || !Peek(1).IsOp("=")) return false;
  if (Peek(2).IsName("TypeVar")) return true;
  return Peek(2).IsName("T") && Peek(3).IsOp(".") && Peek(4).kind == TokenKind::kName &&
         Peek(5).IsOp("(");
}

// `n = TypeVar("n")` (an int64 shape variable in TVM 0.24+) or `n = T.int64()` above the module.
void RelaxParser::ParseModuleDimDeclaration() {
  const Token& name = Next();
  Next();  // =
  DataType dtype = DataType::Int(64);
  if (Peek().IsName("TypeVar")) {
    Next();
    ExpectOp("(");
    const Token& s = Peek();
    if (s.kind != TokenKind::kString) Expected("the name of the TypeVar as a string");
    if (s.text != name.text) {
      Fail(s, "TypeVar(\"" + s.text + "\") is bound to '" + name.text + "': the names must agree");
    }
    Next();
    ExpectOp(")");
  } else {
    Next();  // T
    Next();  // .
    const Token& type = Next();
    std::optional<DataType> parsed = DataType::Parse(type.text);
    if (!parsed || !(parsed->is_int() || parsed->is_uint()) || !parsed->is_scalar()) {
      Fail(type,
           "a symbolic variable above the module is an integer (T.int64() or TypeVar), not "
           "T." +
               type.text + "()");
    }
    dtype = *parsed;
    ExpectOp("(");
    ExpectOp(")");
  }
  auto [it, added] = module_dims_.emplace(name.text, dtype);
  if (!added && it->second != dtype) {
    Fail(name, "symbolic variable '" + name.text + "' declared twice with different dtypes");
  }
  if (Peek().kind != TokenKind::kEnd) ExpectNewline();
}

// `@R.function[(private=...)]` NEWLINE `def NAME(PARAMS) [-> RET]:` up to the ':'.
RelaxParser::Signature RelaxParser::ParseSignature() {
  Signature sig;
  ExpectOp("@");
  Next();  // R
  Next();  // .
  Next();  // function
  if (Peek().IsOp("(")) {
    Args args = ParseArgs();
    if (!args.positional.empty()) Fail(args.positional[0].at, "R.function takes keywords only");
    for (const auto& [key, value] : args.keywords) {
      if (key.text == "private") {
        if (value.kind != Value::kBool) Fail(value.at, "expected True or False");
        sig.is_private = value.bool_value;
      } else if (key.text != "pure") {  // purity is not modelled: every call is kept
        Fail(key, "unknown argument '" + key.text + "' of R.function (private or pure)");
      }
    }
  }
  ExpectNewline();
  if (!Peek().IsName("def")) Expected("'def'");
  Next();
  sig.name = ExpectDefinedName("a function name");
  ExpectOp("(");
  define_dims_ = true;
  while (!Peek().IsOp(")")) {
    const Token& name = ExpectDefinedName("a parameter name");
    for (const Var& p : sig.params) {
      if (p.name() == name.text) Fail(name, "parameter '" + name.text + "' repeated");
    }
    if (!Peek().IsOp(":")) Expected("':' and the struct info of parameter '" + name.text + "'");
    Next();
    StructInfo sinfo = ParseAnnotation(true);
    Var var(name.text, sinfo);
    BindVar(name, var);
    sig.params.push_back(var);
    if (!AcceptOp(",")) break;
  }
  ExpectOp(")");
  if (AcceptOp("->")) sig.ret = ParseAnnotation(true);
  define_dims_ = false;
  if (!Peek().IsOp(":")) Expected("':' after the signature of '" + sig.name.text + "'");
  return sig;
}

// Skips `: NEWLINE INDENT ... DEDENT`, the body of a function whose header pass 1 read.
void RelaxParser::SkipBody() {
  ExpectOp(":");
  ExpectNewline();
  if (Peek().kind != TokenKind::kIndent) Expected("an indented function body");
  int depth = 0;
  do {
    const Token& t = Next();
    if (t.kind == TokenKind::kIndent) ++depth;
    if (t.kind == TokenKind::kDedent) --depth;
    if (t.kind == TokenKind::kEnd) Fail(t, "unexpected end of input in a function body");
  } while (depth > 0);
}

Function RelaxParser::ParseFunctionAt(GlobalInfo& info) {
  pos_ = info.decorator;
  scopes_.clear();
  hidden_dataflow_.clear();
  class_aliases_.clear();
  fresh_names_.clear();
  fresh_counts_.clear();
  PushScope();
  Signature sig = ParseSignature();
  Attrs attrs;
  if (!sig.is_private) attrs.Set("global_symbol", sig.name.text);
  Expr body = ParseFunctionBody(sig.name, &attrs);
  return Build(sig.name, [&] { return MakeFunction(sig.params, body, sig.ret, attrs); });
}

void RelaxParser::CheckModule(const IRModule& module) const {
  try {
    CheckWellFormed(module);
  } catch (const Error& e) {
    // The checker names the function; point at its definition.
    std::string message = e.what();
    const Token* at = nullptr;
    for (const auto& [name, info] : globals_) {
      if (message.rfind("function " + name + ",", 0) == 0) at = &info.name;
    }
    Fail(at != nullptr ? *at : Peek(), message, e.kind());
  }
}

void RelaxParser::CollectTextNames() {
  for (const Token& t : *tokens_) {
    if (t.kind == TokenKind::kName) text_names_.insert(t.text);
    if (t.kind != TokenKind::kString) continue;
    // Shape variables may be named inside strings: R.Tensor(("n * 2", 4)).
    std::string word;
    for (char c : t.text + " ") {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
        word += c;
      } else if (!word.empty()) {
        text_names_.insert(word);
        word.clear();
      }
    }
  }
}

IRModule RelaxParser::ParseModuleText() {
  CollectTextNames();
  ScanMetadata();
  SkipNewlinesAndImports();
  if (!AtDecorator("I", "ir_module")) Expected("'@I.ir_module'");
  pos_ += 4;
  if (Peek().IsOp("(")) {
    Args args = ParseArgs();
    for (const auto& [key, value] : args.keywords) {
      if (key.text != "check_well_formed") Fail(key, "unknown argument '" + key.text + "'");
    }
  }
  ExpectNewline();
  if (!Peek().IsName("class")) Expected("'class'");
  Next();
  const Token& class_token = ExpectDefinedName("a module name");
  class_name_ = class_token.text;
  ExpectOp(":");
  ExpectNewline();
  if (Peek().kind != TokenKind::kIndent) Expected("an indented class body");
  Next();

  // Pass 1: every function's header (PrimFuncs are read whole: they depend on nothing).
  while (Peek().kind != TokenKind::kDedent) {
    if (Peek().kind == TokenKind::kNewline) {
      Next();
      continue;
    }
    if (Peek().IsName("pass")) {
      Next();
      ExpectNewline();
      continue;
    }
    GlobalInfo info;
    info.decorator = pos_;
    if (AtDecorator("T", "prim_func")) {
      info.is_prim = true;
      // The TensorIR parser reports the name token's place only through errors; find it.
      size_t at = pos_;
      while (at < tokens_->size() && !(*tokens_)[at].IsName("def")) ++at;
      info.name = (*tokens_)[std::min(at + 1, tokens_->size() - 1)];
      info.prim = ParsePrimFuncAt(source_, *tokens_, &pos_);
      info.gvar = GlobalVar(info.prim->name);
    } else if (AtDecorator("R", "function")) {
      scopes_.clear();
      PushScope();
      Signature sig = ParseSignature();
      SkipBody();
      info.name = sig.name;
      if (sig.ret.defined()) {
        std::vector<StructInfo> params;
        for (const Var& p : sig.params) params.push_back(p.struct_info());
        info.gvar = GlobalVar(sig.name.text, FuncStructInfo(std::move(params), sig.ret));
      }
    } else if (Peek().IsOp("@")) {
      Fail(Peek(1), "unsupported decorator: expected '@R.function' or '@T.prim_func'");
    } else {
      Expected("'@R.function' or '@T.prim_func' in the class body");
    }
    auto [it, added] = globals_.emplace(info.name.text, info);
    if (!added) {
      Fail(info.name, "duplicate function name '" + info.name.text + "' (first defined at line " +
                          std::to_string(it->second.name.line) + ")");
    }
    order_.push_back(info.name.text);
  }
  Next();
  SkipNewlinesAndImports();
  if (Peek().kind != TokenKind::kEnd) Expected("end of input after the module");
  size_t end = pos_;

  // Pass 2: the Relax function bodies, in order.
  for (const std::string& name : order_) {
    GlobalInfo& info = globals_.at(name);
    if (info.is_prim) continue;
    info.func = ParseFunctionAt(info);
    if (!info.gvar.defined()) info.gvar = GlobalVar(name, info.func->struct_info);
  }
  pos_ = end;
  IRModule module;
  for (const std::string& name : order_) {
    const GlobalInfo& info = globals_.at(name);
    if (info.is_prim) {
      module.Add(name, info.prim);
    } else {
      module.Add(name, info.func);
    }
  }
  CheckModule(module);
  return module;
}

Function RelaxParser::ParseFunctionText() {
  CollectTextNames();
  ScanMetadata();
  SkipNewlinesAndImports();
  if (!AtDecorator("R", "function")) Expected("'@R.function'");
  GlobalInfo info;
  info.decorator = pos_;
  Function f = ParseFunctionAt(info);
  SkipNewlinesAndImports();
  if (Peek().kind != TokenKind::kEnd) Expected("end of input after the function");
  return f;
}

}  // namespace text

namespace {

// Tokens of `text` with TVM's metadata statement taken out (it is a Python string the lexer does
// not read) and decoded into `section`.
std::vector<Token> TokensWithoutMetadata(std::string_view text, std::string_view source_name,
                                         std::optional<text::MetadataSection>* section) {
  SourceText original(text, source_name);
  std::string stripped(text);
  *section = text::ExtractMetadata(original, &stripped);
  return Tokenize(SourceText(stripped, source_name));
}

}  // namespace

IRModule ParseModule(std::string_view text, std::string_view source_name) {
  std::optional<text::MetadataSection> section;
  std::vector<Token> tokens = TokensWithoutMetadata(text, source_name, &section);
  SourceText source(text, source_name);
  text::RelaxParser parser(source, tokens);
  if (section) parser.SetMetadata(*section);
  return parser.ParseModuleText();
}

Function ParseRelaxFunction(std::string_view text, std::string_view source_name) {
  std::optional<text::MetadataSection> section;
  std::vector<Token> tokens = TokensWithoutMetadata(text, source_name, &section);
  SourceText source(text, source_name);
  text::RelaxParser parser(source, tokens);
  if (section) parser.SetMetadata(*section);
  return parser.ParseFunctionText();
}

}  // namespace kiln::ir::relax
