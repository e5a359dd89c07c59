// CLikeEmitter: the printing shared by every C-syntax language (C, CUDA, OpenCL, GLSL, MSL,
// WGSL). It prints lowered TensorIR expressions and statements in C syntax and asks its
// subclass, through virtual hooks, for everything a language spells its own way: type names,
// literals, vector operations, intrinsic names, loop annotations, allocations and thread
// indices. Each subclass writes its own kernel entry (signature, argument unpacking) around
// the body this class prints. Expressions are fully parenthesized so that no language's
// precedence rules matter.
#pragma once

#include <cstdint>
#include <sstream>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "codegen/register_promotion.h"
#include "ir/arith/analyzer.h"
#include "ir/function.h"

namespace kiln::codegen {

class CLikeEmitter {
 public:
  CLikeEmitter();
  virtual ~CLikeEmitter() = default;

  // Inclusive constant bounds of an integer expression (INT64_MIN/MAX when unknown).
  struct Bounds {
    int64_t min, max;
  };

 protected:
  // ---- Hooks: what each language spells its own way ----------------------------------
  // The type of a value of dtype `t` in declarations and casts (scalar or vector).
  virtual std::string TypeName(ir::DataType t) = 0;
  // The type of one element of a buffer of dtype `t` in memory (C keeps float16 as uint16_t).
  virtual std::string StorageTypeName(ir::DataType t) { return TypeName(t); }
  virtual std::string PrintIntImm(ir::DataType t, int64_t value);
  virtual std::string PrintFloatImm(ir::DataType t, double value) = 0;
  // A call of a known intrinsic (ir/op.h) on already printed arguments.
  virtual std::string PrintIntrinsic(const ir::CallNode* op,
                                     const std::vector<std::string>& args) = 0;
  virtual std::string PrintCast(ir::DataType to, const ir::Expr& value);
  // Division rounding toward negative infinity when the operands may be negative.
  virtual std::string PrintFloorDivSigned(ir::DataType t, const std::string& a,
                                          const std::string& b) = 0;
  virtual std::string PrintFloorModSigned(ir::DataType t, const std::string& a,
                                          const std::string& b) = 0;
  virtual std::string PrintMinMax(bool is_min, ir::DataType t, const std::string& a,
                                  const std::string& b);
  // A comparison `a op b` (op one of == != < <= > >=) of node `e`.
  virtual std::string PrintCompare(const char* op, const ir::Expr& e, const ir::Expr& a,
                                   const ir::Expr& b);
  virtual std::string PrintSelect(ir::DataType t, const std::string& cond, const std::string& a,
                                  const std::string& b);
  // Vector expressions; the defaults reject them.
  virtual std::string PrintRamp(const ir::RampNode* op);
  virtual std::string PrintBroadcast(const ir::BroadcastNode* op);
  // A value read from / written to memory (conversions between storage and compute types).
  virtual std::string PrintLoad(const ir::BufferLoadNode* op);
  virtual void EmitStore(const ir::BufferStoreNode* op);
  // The result of arithmetic of dtype `t` (C: narrow integers wrap, float16 rounds).
  virtual std::string FinishArith(ir::DataType t, std::string expr) {
    (void)t;
    return expr;
  }
  // Lines printed before a loop (pragmas); the loop itself is printed by EmitFor.
  virtual void EmitLoopPrefix(const ir::ForNode* op) { (void)op; }
  virtual void EmitThreadBinding(const ir::ForNode* op);
  virtual void EmitAllocate(const ir::AllocateNode* op) = 0;
  // An Evaluate statement (GPU emitters print barriers, which are calls no intrinsic names).
  virtual void EmitEvaluate(const ir::EvaluateNode* op);
  // Register promotion (codegen/register_promotion.h): whether `op`'s buffer may live in
  // variables (by default: thread-private scopes "local" and "stack", whose elements are stored
  // in their compute type), and how one such variable is declared (zero-initialized, so that no
  // path reads an undefined value).
  virtual bool MayPromoteToRegisters(const ir::AllocateNode* op);
  virtual void EmitRegisterDecl(ir::DataType t, const std::string& name);
  // Lane `lane` of vector variable `vector`, readable and assignable ("v[1]" in C).
  virtual std::string PrintLane(const std::string& vector, int lane);
  // A constant's declaration line ("const int x = v;" in C; WGSL says "let x: i32 = v;").
  virtual void EmitConstDecl(ir::DataType t, const std::string& name, const std::string& value);
  // The opening line of a counted loop `name` from `begin` while below `end`, with its brace.
  virtual void EmitForHeader(ir::DataType t, const std::string& name, const std::string& begin,
                             const std::string& end);

  // ---- Shared machinery ------------------------------------------------------------------
  std::string PrintExpr(const ir::Expr& e);
  void EmitStmt(const ir::Stmt& s);
  virtual void EmitFor(const ir::ForNode* op);

  // A fresh C identifier for `var` (sanitized, unique in this function); DeclareName for a
  // name that is not a Var (helper pointers).
  std::string DeclareVar(const ir::Var& var);
  std::string DeclareName(const std::string& hint);
  // The identifier of a declared Var; kiln::Error(kInvalidIR) when it is undeclared.
  std::string NameOf(const ir::Var& var) const;
  std::string NameOf(const ir::VarNode* var) const;
  // Names that generated code must not take (keywords, helpers, the entry's arguments).
  void ReserveName(const std::string& name) { used_names_.insert(name); }

  // What is known of integer expressions over the loops in scope, for choosing plain
  // division where floor division and truncation agree: constant bounds first (cheap, exact
  // for the usual index arithmetic), then the arith analyzer, which also knows the symbolic
  // loop ranges (i < n gives n - 1 - i >= 0).
  Bounds BoundsOf(const ir::Expr& e) const;
  void SetBounds(const ir::VarNode* var, Bounds bounds) { bounds_[var] = bounds; }
  // `var` (a shape variable) is a tensor dimension: non-negative.
  void AssumeNonNegative(const ir::Var& var);
  bool ProvablyNonNegative(const ir::Expr& e);
  bool ProvablyPositive(const ir::Expr& e);

  std::ostream& Line();  // the stream, indented for a new line
  std::ostringstream out_;
  int indent_ = 0;
  // Name of the function being emitted, for error messages.
  std::string function_name_;

 private:
  std::string PrintBinary(const char* op, const ir::Expr& e, const ir::Expr& a, const ir::Expr& b,
                          bool arith);
  std::unordered_map<const ir::VarNode*, std::string> names_;
  std::unordered_set<std::string> used_names_;
  std::unordered_map<const ir::VarNode*, Bounds> bounds_;
  ir::arith::Analyzer analyzer_;

  // Buffers kept in variables: data var -> its slots, with the variables' names.
  struct PromotedSlot {
    RegisterSlot slot;
    std::string name;
  };
  std::unordered_map<const ir::VarNode*, std::vector<PromotedSlot>> registers_;
  // The variable (or lane of one, "name[i]") standing for `index` of the promoted buffer whose
  // data is `data`.
  std::string RegisterAccess(const ir::VarNode* data, const ir::Expr& index);
  bool EmitPromoted(const ir::AllocateNode* op);
};

}  // namespace kiln::codegen
