// Internal to ir/text: the TVMScript TensorIR parser class, split over parser.cc (functions,
// statements, blocks) and parser_expr.cc (expressions, call arguments, buffers, regions).
// It reads a token stream from ir/text/lexer.h, so a front end that embeds @T.prim_func
// sections (the Relax parser) can hand it a position in its own stream.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "ir/function.h"
#include "ir/text/lexer.h"
#include "ir/text/parser.h"

namespace kiln::ir {

class TirParser {
 public:
  TirParser(const SourceText& source, const std::vector<Token>& tokens, size_t pos)
      : source_(source), tokens_(tokens), pos_(pos) {}

  // One `@T.prim_func ... def name(...):` definition starting at its decorator.
  PrimFunc ParseFunction();
  // `lambda a, b: (e0, e1)` up to the end of the text (parser_expr.cc).
  IndexLambda ParseIndexLambda(DataType dtype);
  size_t pos() const { return pos_; }

  // ---- tokens (parser.cc) ----
  const Token& Peek(size_t k = 0) const;
  const Token& Next();
  bool AcceptOp(std::string_view op);
  const Token& ExpectOp(std::string_view op);
  const Token& ExpectName(std::string_view what = "a name");
  void ExpectKeyword(std::string_view name);
  void ExpectNewline();
  [[noreturn]] void Fail(const Token& at, const std::string& message) const;
  // "expected WHAT, got <the next token>" at the next token.
  [[noreturn]] void Expected(const std::string& what) const;

 private:
  // An expression being parsed, with whether it is an untyped Python literal and the depth
  // of its tree (bounded so that deep inputs give an error instead of a stack overflow).
  struct PExpr {
    Expr e;
    bool literal = false;
    int depth = 1;
  };
  // A call argument: an expression, a tuple, a list, a dict or None.
  struct Value {
    // kAxis: a SparseTIR axis name; kBuffer: a buffer named as a whole (an axis's indptr).
    enum Kind { kExpr, kTuple, kList, kDict, kNone, kAxis, kBuffer } kind = kExpr;
    Token at;
    PExpr expr;
    Axis axis;
    Buffer buffer;
    std::vector<Value> items;         // tuple and list
    std::vector<Value> keys, values;  // dict entries, in order
  };
  struct Args {
    Token at;  // the opening parenthesis
    std::vector<Value> positional;
    std::vector<std::pair<Token, Value>> keywords;
    const Value* Keyword(std::string_view name) const;
  };
  struct Symbol {
    Var var;        // a variable, or
    Buffer buffer;  // a buffer
  };
  struct LoopInfo {
    Expr min, extent;
  };
  // What is being filled while the statements of a block are read.
  struct BlockFrame {
    std::vector<IterVar> iter_vars;
    std::vector<Expr> iter_values;
    std::optional<std::vector<BufferRegion>> reads, writes;
    Expr predicate;
    Annotations annotations;
    std::vector<Buffer> alloc_buffers;
    Stmt init;
  };
  enum class Scope { kFunction, kBlock, kOther };

  // ---- names ----
  void PushScope() { scopes_.emplace_back(); }
  void PopScope() { scopes_.pop_back(); }
  void Bind(const std::string& name, Symbol symbol) { scopes_.back()[name] = std::move(symbol); }
  const Symbol* Lookup(const std::string& name) const;
  Buffer LookupBuffer(const Token& name) const;

  // ---- statements (parser.cc) ----
  std::vector<Stmt> ParseStmtList(Scope scope, BlockFrame* frame);
  Stmt ParseBody(Scope scope, BlockFrame* frame, const Token& owner);
  // Reads one statement into `out`; true when it took the rest of the list as its body.
  bool ParseStatement(Scope scope, BlockFrame* frame, std::vector<Stmt>* out);
  Stmt ParseFor();
  Stmt ParseIf(const Token& keyword);
  Stmt ParseWith(Scope scope, BlockFrame* frame);
  Stmt ParseBlock(const Token& at, Scope scope);
  void ParseTStatement(Scope scope, BlockFrame* frame, std::vector<Stmt>* out);
  bool ParseAssignment(Scope scope, BlockFrame* frame, std::vector<Stmt>* out);
  bool ParseAnnotatedLet(std::vector<Stmt>* out);
  void ParseAxis(const std::vector<Token>& targets, BlockFrame* frame);
  Stmt ParseStore(const Token& name);
  // The statements after a let or buffer binding, as its body. Block and function header
  // items (iter vars, regions, allocations) must come before such a binding, where the
  // printer puts them.
  Stmt ParseRest(const Token& at);
  BlockFrame& RequireBlock(Scope scope, BlockFrame* frame, const Token& at) const;
  void ParseParams(std::vector<Var>* params, std::vector<std::pair<Var, Buffer>>* buffer_map);
  // Binds, in the function's scope, the symbolic variables declared outside the signature:
  // `n = TypeVar("n")` (int64) or `n = T.int64()` lines above the function or its module, and
  // `n = T.int32()` lines at the top of its body (TVM declares those after the signature that
  // uses them). `decorator_end` is the position after the decorator.
  void DeclareSymbolicVars(size_t decorator_end);
  // `T.attr({"pragma_...": v})` (TVM's AttrStmt over the statements after it, or `with`):
  // codegen hints that do not change what a kernel computes and that Kiln has no node for, so
  // they are read and dropped; any other key is a parse error naming it.
  void CheckHintAttr(const Args& args) const;
  // A variable named by a string in a shape, as TVM prints te's int32 dims: T.Buffer(("n", 4)).
  Var NamedShapeVar(const Token& at, const std::string& name);

  // ---- SparseTIR (parser_sparse.cc) ----
  // `NAME = T.dense_fixed(...)` and the other axis kinds, T.match_sparse_buffer and
  // T.alloc_sparse_buffer, at the first level of the function body.
  void ParseSparseDecl(Scope scope, const Token& name);
  // `with T.sp_iter([I, T.fuse(J, K)], "SRR", "name") as [i, j, k]:` (or T.iter).
  Stmt ParseSpIter(const Token& at);
  // The axis declared as `name` (unless a variable or buffer shadows it), or null.
  const Axis* LookupAxis(const std::string& name) const;
  Axis AsAxis(const Value& v, const std::string& what) const;
  // An axis's indptr or indices: a buffer, or a handle parameter that gets a 1-D buffer of
  // `extent` elements of `idtype` (the one it already has when two axes share it).
  Buffer AxisBuffer(const Value& v, DataType idtype, const Expr& extent, const std::string& what);

  // ---- expressions (parser_expr.cc) ----
  Expr ParseExpr();
  PExpr ParsePExpr();
  PExpr ParseOr();
  PExpr ParseAnd();
  PExpr ParseNot();
  PExpr ParseCompare();
  PExpr ParseAdd();
  PExpr ParseMul();
  PExpr ParseUnary();
  PExpr ParsePrimary();
  PExpr ParseIntLiteral(const Token& tok, bool negate);
  PExpr ParseTExpr(const Token& name);
  PExpr ParseLet(const Token& at);
  PExpr ParseLoad(const Buffer& buffer, const Token& name);
  std::vector<PExpr> ParseIndices(const Buffer& buffer, const Token& open);
  Value ParseValue();
  Args ParseArgs();  // after the name of the called function, at '('
  PExpr Bin(const Token& op, NodeKind kind, const PExpr& a, const PExpr& b);
  PExpr Make(const Token& at, std::initializer_list<const PExpr*> children, Expr e) const;
  int BumpDepth(const Token& at, int depth) const;

  // Helpers over values.
  Expr AsExpr(const Value& v, const std::string& what) const;
  int64_t AsInt(const Value& v, const std::string& what) const;
  std::string AsString(const Value& v, const std::string& what) const;
  DataType AsDType(const Value& v) const;
  DataType ParseDTypeName(const Token& at, const std::string& name) const;
  Annotations AsAnnotations(const Value& v) const;
  std::vector<Expr> AsExprList(const Value& v, const std::string& what) const;
  // The extent of [min, max): the right operand when max reads `min + e`, folded for
  // constants, else max - min. Inverse of how the printer writes a range end.
  Expr ExtentOf(const Token& at, const PExpr& min, const PExpr& max);

  // Buffers: T.Buffer / T.match_buffer / T.alloc_buffer / T.decl_buffer arguments.
  Buffer MakeBuffer(const std::string& name, const Args& args, size_t first_arg,
                    bool* has_data = nullptr);
  BufferRegion ParseRegion();
  std::vector<BufferRegion> ParseRegions(const Token& fn);  // T.reads(...) / T.writes(...)

  // Runs a builder, turning its kiln::Error into a parse error at `at`.
  template <typename F>
  auto Build(const Token& at, F&& f) const -> decltype(f());

  const SourceText& source_;
  const std::vector<Token>& tokens_;
  size_t pos_;
  int nesting_ = 0;  // current statement / bracket nesting, bounded by kMaxNesting
  std::vector<std::unordered_map<std::string, Symbol>> scopes_;
  std::unordered_map<const VarNode*, LoopInfo> loops_;
  bool saw_block_ = false;
  std::shared_ptr<PrimFuncNode> func_;  // the function being read
  bool attrs_given_ = false;
  // Variables bound by DeclareSymbolicVars or NamedShapeVar; their own declaration line, when
  // it comes, reuses them.
  std::unordered_set<const VarNode*> predeclared_;
  std::unordered_map<std::string, Axis> axes_;  // SparseTIR axes, declared in the function body

  friend class NestingGuard;
};

// Bounds recursion: statement and bracket nesting deeper than this is a parse error.
inline constexpr int kMaxNesting = 200;
// Expression trees deeper than this are a parse error (a long a + b + ... chain included).
inline constexpr int kMaxExprDepth = 1000;

class NestingGuard {
 public:
  NestingGuard(TirParser& parser, const Token& at);
  ~NestingGuard() { --parser_.nesting_; }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  TirParser& parser_;
};

template <typename F>
auto TirParser::Build(const Token& at, F&& f) const -> decltype(f()) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kParse) throw;
    Fail(at, e.what());
  }
}

}  // namespace kiln::ir
