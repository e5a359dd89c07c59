// Relax expressions: the nodes of a graph-level function. Every expression carries its struct
// info, inferred when the expression is built (an op call checks its arguments then), so a
// malformed graph is rejected where it is made. Nodes are immutable and shared, like the
// TensorIR ones; variables are compared by identity.
//
// A function body is a SeqExpr: binding blocks (dataflow blocks are side-effect free regions
// whose DataflowVars are not visible outside) followed by the returned expression.
// Op calls (Call with an op name) are built with relax::Call in ir/relax/op/registry.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/attrs.h"
#include "ir/relax/struct_info.h"

namespace kiln::ir::relax {

enum class ExprKind : uint8_t {
  kVar,
  kDataflowVar,
  kConstant,
  kTuple,
  kTupleGetItem,
  kShapeExpr,
  kPrimValue,
  kCall,
  kGlobalVar,
  kExternFunc,
  kSeqExpr,
  kFunction,
};
const char* ExprKindName(ExprKind kind);

// Nodes are always owned by a handle (builders make_shared them), so a visitor holding a raw
// node can recover the handle.
struct ExprNode : std::enable_shared_from_this<ExprNode> {
  ExprNode(ExprKind k, StructInfo s) : kind(k), struct_info(std::move(s)) {}
  virtual ~ExprNode() = default;
  const ExprKind kind;
  const StructInfo struct_info;
};

class Expr {
 public:
  Expr() = default;
  explicit Expr(std::shared_ptr<const ExprNode> ptr) : ptr_(std::move(ptr)) {}
  bool defined() const { return ptr_ != nullptr; }
  const ExprNode* get() const { return ptr_.get(); }
  const ExprNode* operator->() const { return ptr_.get(); }
  const std::shared_ptr<const ExprNode>& ptr() const { return ptr_; }
  ExprKind kind() const { return ptr_->kind; }
  const StructInfo& struct_info() const { return ptr_->struct_info; }
  bool same_as(const Expr& other) const { return ptr_ == other.ptr_; }
  template <typename T>
  const T* as() const {
    return ptr_ && T::Matches(ptr_->kind) ? static_cast<const T*>(ptr_.get()) : nullptr;
  }

 protected:
  std::shared_ptr<const ExprNode> ptr_;
};

struct VarNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kVar || k == ExprKind::kDataflowVar; }
  VarNode(ExprKind k, std::string n, StructInfo s)
      : ExprNode(k, std::move(s)), name(std::move(n)) {}
  std::string name;  // a hint: printing makes names unique
};

// A variable bound by a binding or a function parameter. A DataflowVar is a Var whose kind is
// kDataflowVar: visible only inside its dataflow block.
class Var : public Expr {
 public:
  Var() = default;
  Var(std::string name, StructInfo struct_info);
  explicit Var(std::shared_ptr<const ExprNode> ptr);  // must hold a VarNode
  const VarNode* get() const { return static_cast<const VarNode*>(ptr_.get()); }
  const VarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
  bool is_dataflow() const { return kind() == ExprKind::kDataflowVar; }
};
Var DataflowVar(std::string name, StructInfo struct_info);

struct ConstantNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kConstant; }
  ConstantNode(HostTensor d, StructInfo s)
      : ExprNode(ExprKind::kConstant, std::move(s)), data(std::move(d)) {}
  HostTensor data;  // a weight or a literal
};

struct TupleNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kTuple; }
  TupleNode(std::vector<Expr> f, StructInfo s)
      : ExprNode(ExprKind::kTuple, std::move(s)), fields(std::move(f)) {}
  std::vector<Expr> fields;
};

struct TupleGetItemNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kTupleGetItem; }
  TupleGetItemNode(Expr t, int i, StructInfo s)
      : ExprNode(ExprKind::kTupleGetItem, std::move(s)), tuple(std::move(t)), index(i) {}
  Expr tuple;
  int index;
};

// A shape value built from dims: R.shape([n, 768]).
struct ShapeExprNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kShapeExpr; }
  ShapeExprNode(std::vector<PrimExpr> v, StructInfo s)
      : ExprNode(ExprKind::kShapeExpr, std::move(s)), values(std::move(v)) {}
  std::vector<PrimExpr> values;
};

// A TensorIR scalar as a Relax value: R.prim_value(n + 1).
struct PrimValueNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kPrimValue; }
  PrimValueNode(PrimExpr v, StructInfo s)
      : ExprNode(ExprKind::kPrimValue, std::move(s)), value(std::move(v)) {}
  PrimExpr value;
};

// A call. Either `op` names a registered op ("add", "call_tir", ...) or `callee` is the
// function called (a GlobalVar of a Relax function, or a Var holding a function).
// `sinfo_args` carry the declared output struct info of call_tir and call_dps_packed.
struct CallNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kCall; }
  explicit CallNode(StructInfo s) : ExprNode(ExprKind::kCall, std::move(s)) {}
  std::string op;
  Expr callee;
  std::vector<Expr> args;
  Attrs attrs;
  std::vector<StructInfo> sinfo_args;
};

// The name of a function in an IRModule (a Relax function or a TensorIR PrimFunc). Its struct
// info is the Relax function's FuncStructInfo, or Object for a PrimFunc.
struct GlobalVarNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kGlobalVar; }
  GlobalVarNode(std::string n, StructInfo s)
      : ExprNode(ExprKind::kGlobalVar, std::move(s)), name(std::move(n)) {}
  std::string name;
};
class GlobalVar : public Expr {
 public:
  GlobalVar() = default;
  explicit GlobalVar(std::string name, StructInfo struct_info = ObjectStructInfo());
  const GlobalVarNode* get() const { return static_cast<const GlobalVarNode*>(ptr_.get()); }
  const GlobalVarNode* operator->() const { return get(); }
  const std::string& name() const { return get()->name; }
};

// A kernel provided by a library, called with destination passing ("cblas.sgemm").
struct ExternFuncNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kExternFunc; }
  explicit ExternFuncNode(std::string s)
      : ExprNode(ExprKind::kExternFunc, ObjectStructInfo()), symbol(std::move(s)) {}
  std::string symbol;
};

// var = value (a VarBinding), or var = R.match_cast(value, pattern) (a MatchCast: checks at
// run time that value fits `pattern` and binds the shape variables `pattern` introduces).
// A MatchCast's `note` says, for its run-time error, what the check stands for (a front end
// that could not prove two dims equal at import says which node needs them equal: "ONNX node
// 614 'p2o.Add.249' (Add): input 1 against input 0"); the printer writes it as a comment.
struct Binding {
  Var var;
  Expr value;
  StructInfo pattern;  // defined only for a MatchCast
  std::string note = {};
  bool is_match_cast() const { return pattern.defined(); }
};
Binding VarBinding(Var var, Expr value);
Binding MatchCast(Var var, Expr value, StructInfo pattern, std::string note = "");

struct BindingBlock {
  std::vector<Binding> bindings;
  bool is_dataflow = false;  // a DataflowBlock
};

struct SeqExprNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kSeqExpr; }
  SeqExprNode(std::vector<BindingBlock> b, Expr r, StructInfo s)
      : ExprNode(ExprKind::kSeqExpr, std::move(s)), blocks(std::move(b)), body(std::move(r)) {}
  std::vector<BindingBlock> blocks;
  Expr body;
};

struct FunctionNode : ExprNode {
  static bool Matches(ExprKind k) { return k == ExprKind::kFunction; }
  explicit FunctionNode(StructInfo s) : ExprNode(ExprKind::kFunction, std::move(s)) {}
  std::vector<Var> params;
  Expr body;
  StructInfo ret_struct_info;
  Attrs attrs;  // "global_symbol", "Primitive", ...
};
class Function : public Expr {
 public:
  Function() = default;
  explicit Function(std::shared_ptr<const ExprNode> ptr);  // must hold a FunctionNode
  const FunctionNode* get() const { return static_cast<const FunctionNode*>(ptr_.get()); }
  const FunctionNode* operator->() const { return get(); }
};

// ---- Builders ---------------------------------------------------------------------------------

Expr Constant(HostTensor data);
Expr Tuple(std::vector<Expr> fields);
// Throws kType when `tuple` is not a tuple or `index` is out of range.
Expr TupleGetItem(Expr tuple, int index);
Expr ShapeExpr(std::vector<PrimExpr> values);
Expr PrimValue(PrimExpr value);
Expr ExternFunc(std::string symbol);
// The struct info of a SeqExpr is its body's.
Expr SeqExpr(std::vector<BindingBlock> blocks, Expr body);
// `ret` defaults to the body's struct info; a given `ret` must be able to hold it.
Function MakeFunction(std::vector<Var> params, Expr body, StructInfo ret = StructInfo(),
                      Attrs attrs = Attrs());
// A call of a Relax function (a GlobalVar or Var with FuncStructInfo): checks the argument
// count and takes the declared return struct info.
Expr CallFunction(Expr callee, std::vector<Expr> args);

}  // namespace kiln::ir::relax
