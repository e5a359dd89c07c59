// Statements of a Relax function body: bindings (with or without a struct info annotation),
// R.match_cast, shape variable declarations (n = T.int64()), the `cls = Module` alias,
// R.func_attr, `with R.dataflow():` blocks ended by R.output(...), and the final return. Values
// are normalized to A-normal form as they are bound.
#include "ir/relax/block_builder.h"
#include "ir/relax/text/parser_impl.h"

namespace kiln::ir::relax::text {

bool RelaxParser::AtStatement(std::string_view name) const {
  return Peek().IsName("R") && Peek(1).IsOp(".") && Peek(2).IsName(name);
}

namespace {

bool IsControlFlow(const Token& t) {
  return t.IsName("if") || t.IsName("for") || t.IsName("while") || t.IsName("elif") ||
         t.IsName("else");
}

}  // namespace

Expr RelaxParser::ParseFunctionBody(const Token& def_name, Attrs* attrs) {
  ExpectOp(":");
  ExpectNewline();
  if (Peek().kind != TokenKind::kIndent) Expected("an indented function body");
  NestingGuard guard(*this, Next());
  std::vector<BindingBlock> blocks;
  Expr result;
  while (Peek().kind != TokenKind::kDedent) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kNewline) {
      Next();
      continue;
    }
    if (result.defined()) {
      Fail(t, "statement after 'return': return ends the function '" + def_name.text + "'");
    }
    if (t.IsName("return")) {
      Next();
      const Token& at = Peek();
      std::vector<Binding> inner;
      result = Normalized(at, ParseRelaxExpr("the returned value"), false, true, &inner);
      if (!inner.empty()) {
        if (blocks.empty() || blocks.back().is_dataflow) blocks.push_back(BindingBlock{{}, false});
        for (Binding& b : inner) blocks.back().bindings.push_back(std::move(b));
      }
      ExpectNewline();
    } else if (t.IsName("with")) {
      ParseDataflowBlock(&blocks);
    } else if (AtStatement("func_attr")) {
      ParseFuncAttr(attrs);
    } else if (AtStatement("output")) {
      Fail(t, "R.output outside a dataflow block: it ends a 'with R.dataflow():' block");
    } else if (t.IsOp("@") || t.IsName("def")) {
      Fail(t, "nested functions are not supported", ErrorKind::kUnsupported);
    } else if (IsControlFlow(t)) {
      Fail(t, "'" + t.text + "' is not supported: Relax control flow has no node in Kiln",
           ErrorKind::kUnsupported);
    } else if (t.kind == TokenKind::kName && (Peek(1).IsOp("=") || Peek(1).IsOp(":"))) {
      std::vector<Binding> bound;
      ParseAssignment(false, {}, &bound);
      if (!bound.empty()) {
        if (blocks.empty() || blocks.back().is_dataflow) blocks.push_back(BindingBlock{{}, false});
        for (Binding& b : bound) blocks.back().bindings.push_back(std::move(b));
      }
    } else {
      Expected("a binding, 'with R.dataflow():' or 'return'");
    }
  }
  const Token& end = Next();
  if (!result.defined()) {
    Fail(def_name, "function '" + def_name.text + "' has no return statement");
  }
  return Build(end, [&] { return SeqExpr(std::move(blocks), result); });
}

void RelaxParser::ParseDataflowBlock(std::vector<BindingBlock>* blocks) {
  const Token& with = Next();
  if (!AtStatement("dataflow")) Expected("R.dataflow() after 'with'");
  pos_ += 3;
  ExpectOp("(");
  ExpectOp(")");
  ExpectOp(":");
  ExpectNewline();
  if (Peek().kind != TokenKind::kIndent) Expected("an indented dataflow block");
  NestingGuard guard(*this, Next());
  std::set<std::string> outputs = ScanOutputs();
  PushScope();
  BindingBlock block{{}, true};
  bool ended = false;
  while (Peek().kind != TokenKind::kDedent) {
    const Token& t = Peek();
    if (t.kind == TokenKind::kNewline) {
      Next();
      continue;
    }
    if (ended) Fail(t, "R.output(...) must be the last statement of a dataflow block");
    if (AtStatement("output")) {
      pos_ += 3;
      ExpectOp("(");
      while (!Peek().IsOp(")")) {
        const Token& name = ExpectName("a variable bound in this dataflow block");
        auto found = scopes_.back().find(name.text);
        if (found == scopes_.back().end() || !found->second.var.defined()) {
          Fail(name, "R.output: '" + name.text + "' is not bound in this dataflow block");
        }
        if (!AcceptOp(",")) break;
      }
      ExpectOp(")");
      ExpectNewline();
      ended = true;
    } else if (t.IsName("return")) {
      Fail(t, "'return' inside a dataflow block: end the block with R.output(...) first");
    } else if (t.IsName("with")) {
      Fail(t, "dataflow blocks do not nest");
    } else if (AtStatement("func_attr")) {
      Fail(t, "R.func_attr belongs to the function body, not to a dataflow block");
    } else if (t.kind == TokenKind::kName && (Peek(1).IsOp("=") || Peek(1).IsOp(":"))) {
      ParseAssignment(true, outputs, &block.bindings);
    } else if (t.IsOp("@") || t.IsName("def") || IsControlFlow(t)) {
      Fail(t, "only bindings and R.output(...) may appear in a dataflow block",
           ErrorKind::kUnsupported);
    } else {
      Expected("a binding or R.output(...)");
    }
  }
  Next();
  // Dataflow variables end with their block; the outputs stay visible after it.
  std::unordered_map<std::string, Symbol> inner = std::move(scopes_.back());
  PopScope();
  for (auto& [name, symbol] : inner) {
    if (!symbol.var.defined()) continue;
    if (symbol.var.is_dataflow()) {
      hidden_dataflow_[name] = with.line;
    } else {
      scopes_.back()[name] = symbol;
    }
  }
  blocks->push_back(std::move(block));
}

std::string RelaxParser::FreshName(const std::string& hint) {
  std::string name = hint;
  while (text_names_.count(name) != 0 || fresh_names_.count(name) != 0) {
    name = hint + std::to_string(++fresh_counts_[hint]);
  }
  fresh_names_.insert(name);
  return name;
}

Expr RelaxParser::Normalized(const Token& at, const Expr& value, bool dataflow, bool argument,
                             std::vector<Binding>* out) {
  EmitFn emit = [&](const Expr& inner) {
    std::string name = FreshName(dataflow ? "lv" : "gv");
    Var var = dataflow ? DataflowVar(name, inner.struct_info()) : Var(name, inner.struct_info());
    out->push_back(VarBinding(var, inner));
    return var;
  };
  return Build(
      at, [&] { return argument ? NormalizeArgument(value, emit) : NormalizeValue(value, emit); });
}

void RelaxParser::ParseAssignment(bool dataflow, const std::set<std::string>& outputs,
                                  std::vector<Binding>* out) {
  const Token& name = ExpectDefinedName("a variable name");
  StructInfo annotation;
  Token annotation_at;
  if (AcceptOp(":")) {
    annotation_at = Peek();
    annotation = ParseAnnotation(false);
  }
  ExpectOp("=");
  if (!annotation.defined() && Peek().IsName("T") && Peek(1).IsOp(".") &&
      Peek(2).kind == TokenKind::kName && Peek(3).IsOp("(") && Peek(4).IsOp(")")) {
    // n = T.int64(): a shape variable (the same one when the signature introduced it).
    auto dtype = DataType::Parse(Peek(2).text);
    if (!dtype) Fail(Peek(2), "unknown dtype '" + Peek(2).text + "'");
    DefineDim(name, name.text, *dtype);
    pos_ += 5;
    ExpectNewline();
    return;
  }
  if (!annotation.defined() && !class_name_.empty() && Peek().IsName(class_name_) &&
      Peek(1).kind == TokenKind::kNewline) {
    Next();
    ExpectNewline();
    class_aliases_.insert(name.text);
    return;
  }
  bool dataflow_var = dataflow && outputs.count(name.text) == 0;
  auto make_var = [&](StructInfo sinfo) {
    return dataflow_var ? DataflowVar(name.text, std::move(sinfo))
                        : Var(name.text, std::move(sinfo));
  };
  Var var;
  if (AtStatement("match_cast")) {
    const Token& at = Peek(2);
    pos_ += 3;
    NestingGuard guard(*this, ExpectOp("("));
    const Token& value_at = Peek();
    Expr value = ParseRelaxExpr("the value of R.match_cast");
    ExpectOp(",");
    StructInfo pattern = ParseAnnotation(true);
    AcceptOp(",");
    ExpectOp(")");
    StructInfo sinfo = pattern;
    if (annotation.defined()) {
      CheckAnnotation(annotation_at, name.text, annotation, pattern);
      sinfo = annotation;
    }
    var = make_var(sinfo);
    value = Normalized(value_at, value, dataflow, false, out);
    out->push_back(Build(at, [&] { return MatchCast(var, value, pattern); }));
  } else {
    const Token& at = Peek();
    Expr value =
        Normalized(at, ParseRelaxExpr("the value of '" + name.text + "'"), dataflow, false, out);
    StructInfo sinfo = value.struct_info();
    if (annotation.defined()) {
      CheckAnnotation(annotation_at, name.text, annotation, sinfo);
      sinfo = annotation;
    }
    var = make_var(sinfo);
    out->push_back(Build(at, [&] { return VarBinding(var, value); }));
  }
  ExpectNewline();
  BindVar(name, var);
  hidden_dataflow_.erase(name.text);
}

void RelaxParser::ParseFuncAttr(Attrs* attrs) {
  const Token& at = Peek(2);
  pos_ += 3;
  if (!Peek().IsOp("(")) Expected("'(' after R.func_attr");
  Args args = ParseArgs();
  if (args.positional.size() != 1 || !args.keywords.empty() ||
      args.positional[0].kind != Value::kDict) {
    Fail(at, "R.func_attr takes one dict: R.func_attr({\"name\": value})");
  }
  const Value& dict = args.positional[0];
  for (size_t i = 0; i < dict.keys.size(); ++i) {
    std::string key = AsString(dict.keys[i], "an attribute name");
    if (dict.items[i].kind == Value::kNone) {
      Fail(dict.items[i].at, "function attribute '" + key + "' needs a value");
    }
    attrs->Set(key, AsAttr(dict.items[i], key));
  }
  ExpectNewline();
}

// The names in the R.output(...) that ends the dataflow block starting at the current token,
// read ahead so that each binding knows whether it makes a dataflow variable.
std::set<std::string> RelaxParser::ScanOutputs() const {
  std::set<std::string> names;
  const std::vector<Token>& tokens = *tokens_;
  int depth = 0;
  for (size_t i = pos_; i < tokens.size(); ++i) {
    const Token& t = tokens[i];
    if (t.kind == TokenKind::kEnd) break;
    if (t.kind == TokenKind::kIndent) ++depth;
    if (t.kind == TokenKind::kDedent && depth-- == 0) break;
    bool at_start = i == pos_ || tokens[i - 1].kind == TokenKind::kNewline ||
                    tokens[i - 1].kind == TokenKind::kIndent ||
                    tokens[i - 1].kind == TokenKind::kDedent;
    if (depth != 0 || !at_start || !t.IsName("R") || i + 3 >= tokens.size() ||
        !tokens[i + 1].IsOp(".") || !tokens[i + 2].IsName("output") || !tokens[i + 3].IsOp("(")) {
      continue;
    }
    for (size_t j = i + 4;
         j < tokens.size() && !tokens[j].IsOp(")") && tokens[j].kind != TokenKind::kNewline; ++j) {
      if (tokens[j].kind == TokenKind::kName) names.insert(tokens[j].text);
    }
  }
  return names;
}

}  // namespace kiln::ir::relax::text
