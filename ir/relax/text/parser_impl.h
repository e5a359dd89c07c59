// Internal to ir/relax/text: the Relax TVMScript parser class, split over parser.cc (module,
// function signatures, entry points), parser_body.cc (statements: bindings, dataflow blocks,
// return), parser_expr.cc (argument values, names, dims), parser_call.cc (R.* builtins, op
// calls, call_tir), parser_sinfo.cc (struct info annotations) and parser_const.cc (R.const
// literals and the metadata section). It reads the token stream of ir/text/lexer.h and hands
// @T.prim_func definitions to the TensorIR parser at their position, so both share tokens and
// error positions.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "ir/relax/module.h"
#include "ir/relax/text/metadata.h"
#include "ir/text/lexer.h"

namespace kiln::ir::relax::text {

// Bracket, call and block nesting deeper than this is a parse error (no unbounded recursion).
inline constexpr int kMaxNesting = 100;
// Relax expression trees deeper than this (x[0][0]..., nested calls) are a parse error.
inline constexpr int kMaxExprDepth = 200;
// Dim expression trees deeper than this are a parse error: the dim functions recurse over
// them. Printed dims stay far below it (shape inference keeps their polynomials small).
inline constexpr int kMaxDimDepth = 2000;

class RelaxParser {
 public:
  RelaxParser(const SourceText& source, const std::vector<Token>& tokens)
      : source_(source), tokens_(&tokens) {}

  IRModule ParseModuleText();
  Function ParseFunctionText();
  // The constants of a `metadata = tvm.ir.load_json(...)` section (metadata.h), by kind.
  void SetMetadata(const MetadataSection& section);

  // ---- tokens (parser.cc) ----
  const Token& Peek(size_t k = 0) const;
  const Token& Next();
  bool AcceptOp(std::string_view op);
  const Token& ExpectOp(std::string_view op);
  const Token& ExpectName(const std::string& what);
  // A name being defined (module, function, parameter, variable): not a Python keyword, which
  // would not print back as a name ("def None(...)").
  const Token& ExpectDefinedName(const std::string& what);
  void ExpectNewline();
  [[noreturn]] void Fail(const Token& at, const std::string& message,
                         ErrorKind kind = ErrorKind::kParse) const;
  // "expected WHAT, got <the next token>" at the next token.
  [[noreturn]] void Expected(const std::string& what) const;
  // Runs a builder; its kiln::Error is thrown again with the place of `at` (same kind).
  template <typename F>
  auto Build(const Token& at, F&& f) const -> decltype(f());

 private:
  friend class NestingGuard;

  // A parsed argument or right-hand side, before the context says what it must be.
  struct Value {
    enum Kind {
      kExpr,    // a Relax expression
      kDim,     // a TensorIR scalar expression (a symbolic dim, T.float32(1.5), ...)
      kInt,     // an integer literal (int_value; big_unsigned when above INT64_MAX)
      kFloat,   // a float literal
      kString,  // a string literal
      kBool,
      kNone,
      kTuple,
      kList,
      kDict,   // keys and values in order
      kSInfo,  // a struct info annotation
      kDType,  // R.dtype("float32")
    } kind = kNone;
    Token at;
    Expr expr;
    PrimExpr dim;
    int64_t int_value = 0;
    bool big_unsigned = false;
    double float_value = 0;
    std::string str;
    bool bool_value = false;
    std::vector<Value> items;  // tuple, list, dict values
    std::vector<Value> keys;   // dict keys
    StructInfo sinfo;
    DataType dtype;
    int depth = 1;      // of a Relax expression tree
    int dim_depth = 0;  // of a dim expression tree
  };
  struct Args {
    Token at;  // the opening parenthesis
    std::vector<Value> positional;
    std::vector<std::pair<Token, Value>> keywords;
    const Value* Keyword(std::string_view name) const;
  };
  // A name in a function's scope: a Relax variable or a shape variable.
  struct Symbol {
    Var var;
    PrimVar dim;
  };
  // A function of the module as its header declares it.
  struct GlobalInfo {
    Token name;
    size_t decorator = 0;  // token index of its '@'
    bool is_prim = false;
    ir::PrimFunc prim;
    GlobalVar gvar;  // undefined for a Relax function without return annotation until parsed
    Function func;
  };
  // What `@R.function ... def NAME(PARAMS) -> RET:` says.
  struct Signature {
    Token name;
    std::vector<Var> params;
    StructInfo ret;  // undefined when not annotated
    bool is_private = false;
  };

  // ---- module and functions (parser.cc) ----
  // Fills text_names_: fresh names never shadow a name the text uses.
  void CollectTextNames();
  // Also reads the symbolic variable declarations TVM 0.24+ prints above the module,
  // `n = TypeVar("n")` (and `n = T.int64()`), into module_dims_.
  void SkipNewlinesAndImports();
  bool AtModuleDimDeclaration() const;
  void ParseModuleDimDeclaration();
  bool AtDecorator(std::string_view prefix, std::string_view name) const;
  void ScanMetadata();
  void SkipMetadataStatement();
  Signature ParseSignature();
  void SkipBody();
  Function ParseFunctionAt(GlobalInfo& info);
  void CheckModule(const IRModule& module) const;

  // ---- statements (parser_body.cc) ----
  Expr ParseFunctionBody(const Token& def_name, Attrs* attrs);
  void ParseDataflowBlock(std::vector<BindingBlock>* blocks);
  // Reads `name[: annotation] = value` and appends its bindings to `out`: first the inner
  // values normalization to A-normal form emits (see Normalized), then the binding itself.
  // Appends nothing for a shape variable declaration or a `cls = Module` alias.
  void ParseAssignment(bool dataflow, const std::set<std::string>& outputs,
                       std::vector<Binding>* out);
  // `value` in A-normal form (block_builder.h): each call, tuple or projection nested inside it
  // is bound first, in `out`, to a fresh variable (DataflowVars lv, lv1, ... inside a dataflow
  // block, Vars gv, gv1, ... outside), as TVM's parser normalizes. `argument` normalizes to a
  // leaf or tuple of leaves (a returned value), else only the parts of `value`.
  Expr Normalized(const Token& at, const Expr& value, bool dataflow, bool argument,
                  std::vector<Binding>* out);
  // A name no name token of the module uses and no earlier fresh name of the function took.
  std::string FreshName(const std::string& hint);
  void ParseFuncAttr(Attrs* attrs);
  std::set<std::string> ScanOutputs() const;
  bool AtStatement(std::string_view name) const;  // R.<name> at the next token

  // ---- names ----
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  void BindVar(const Token& at, const Var& var);
  PrimVar DefineDim(const Token& at, const std::string& name, DataType dtype);
  const Symbol* Lookup(const std::string& name) const;
  // The function named by `name` (after cls. or Module.); Fail when the module has none.
  const GlobalInfo& LookupGlobal(const Token& name) const;
  GlobalVar GlobalRef(const Token& name) const;

  // ---- values and expressions (parser_expr.cc) ----
  Value ParseValue();
  Value ParsePrimary();
  Value ParseName();
  Value ParseParenthesized();
  Value ParseList(const std::string& close);
  Value ParseDict();
  Value ParsePostfix(Value v);
  Value ContinueDim(Value lhs, int min_precedence);
  Value ParseRDotted();
  Value ParseTDotted();
  Args ParseArgs();  // at '('
  Value ParseOpCall(const Token& at, const std::string& op);
  Value ParseCallTIR(const Token& at, bool tir);
  Expr ParseRelaxExpr(const std::string& what);

  Expr AsExpr(const Value& v, const std::string& what);
  Expr AsTupleExpr(const Value& v, const std::string& what);
  PrimExpr AsDim(const Value& v);
  StructInfo AsSInfo(const Value& v) const;
  AttrValue AsAttr(const Value& v, const std::string& name) const;
  std::string AsString(const Value& v, const std::string& what) const;
  DataType AsDType(const Value& v, const std::string& what) const;
  Value ExprValue(const Token& at, Expr e, int depth) const;
  Value DimValue(const Token& at, PrimExpr e, int depth) const;

  // ---- struct info and dims (parser_sinfo.cc) ----
  Value ParseSInfo(const Token& at, const std::string& kind);
  // Reads a struct info annotation; `define` lets undefined shape variables (bare or in
  // strings) be defined by it, as parameter annotations and match_cast patterns do.
  StructInfo ParseAnnotation(bool define);
  PrimExpr ParseDimString(const Value& v);
  void CheckAnnotation(const Token& at, const std::string& var, const StructInfo& annotation,
                       const StructInfo& inferred) const;

  // ---- constants (parser_const.cc) ----
  Value ParseConst(const Token& at);
  Value ParseMetadataRef(const Token& at);

  const SourceText& source_;
  const std::vector<Token>* tokens_;
  size_t pos_ = 0;
  int nesting_ = 0;
  bool define_dims_ = false;
  std::string class_name_;
  std::set<std::string> class_aliases_;  // names bound by `cls = Module`
  std::map<std::string, GlobalInfo> globals_;
  std::vector<std::string> order_;  // function names in textual order
  std::vector<std::unordered_map<std::string, Symbol>> scopes_;
  std::map<std::string, int> hidden_dataflow_;  // dataflow variable -> line of its block
  std::set<std::string> text_names_;            // every name token of the input
  std::set<std::string> fresh_names_;           // fresh names taken in the current function
  std::map<std::string, int> fresh_counts_;     // last suffix used per hint
  // Constants of the metadata section by kind ("ir.GenericConst", "relax.expr.Constant").
  std::map<std::string, std::vector<Expr>> metadata_;
  bool has_metadata_ = false;
  std::optional<std::pair<size_t, size_t>> metadata_range_;  // tokens of Kiln's dict form
  // Symbolic variables declared above the module (TypeVar or T.int64()): each function that
  // names one defines its own shape variable of that dtype at the first use.
  std::map<std::string, DataType> module_dims_;
};

class NestingGuard {
 public:
  NestingGuard(RelaxParser& parser, const Token& at);
  ~NestingGuard() { --parser_.nesting_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  RelaxParser& parser_;
};

template <typename F>
auto RelaxParser::Build(const Token& at, F&& f) const -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kParse) throw;
    Fail(at, e.what(), e.kind());
  }
}

// Whether a value of `inferred` is always a value of `annotation`: the annotation may be
// less specific (unknown dtype, shape or rank, R.Object), never different.
bool IsBaseOf(const StructInfo& annotation, const StructInfo& inferred);

}  // namespace kiln::ir::relax::text
