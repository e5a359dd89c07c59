// BlockBuilder: builds Relax functions binding by binding, the way front ends and passes
// emit graphs. Each emitted value already carries its inferred struct info (op calls infer
// when built), so every variable the builder returns is typed. Inside a dataflow scope Emit
// makes DataflowVars (lv, lv1, ...) and EmitOutput makes the Vars visible after it (gv, ...);
// outside, Emit makes Vars. Functions go into the builder's IRModule under unique names.
//
// Values are normalized to A-normal form as TVM's block builder normalizes them: a call nested
// in an argument (R.multiply(R.nn.silu(gate), up)) is emitted first as a binding of its own
// (lv = R.nn.silu(gate)), inner calls before outer ones, so that every argument of a call, field
// of a tuple and tuple of a projection is a leaf (see IsLeaf) or a tuple of leaves. The function
// result is normalized to a leaf or a tuple of leaves the same way. Passes rely on this form
// (CheckWellFormed enforces it); the text parser normalizes with the same functions.
//
//   BlockBuilder bb;
//   bb.BeginFunction("main", {x, w});
//   bb.BeginDataflow();
//   Var lv = bb.Emit(Call("matmul", {x, w}));
//   Var gv = bb.EmitOutput(Call("nn.relu", {lv}));
//   bb.EndDataflow();
//   GlobalVar main = bb.EndFunction(gv);
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "ir/relax/module.h"

namespace kiln::ir::relax {

// ---- A-normal form ----------------------------------------------------------------------------

// A value that may appear inside another expression: Var, DataflowVar, Constant, ShapeExpr,
// PrimValue, GlobalVar or ExternFunc.
bool IsLeaf(const Expr& e);
// A leaf, or a tuple whose fields are leaves or such tuples.
bool IsLeafOrTuple(const Expr& e);

// Binds an inner value to a fresh variable placed before the binding being normalized.
using EmitFn = std::function<Var(const Expr& value)>;
// `value` with every non-leaf part (call argument, callee, tuple field, projected tuple)
// emitted through `emit` first, innermost first and in argument order; the value itself may
// stay a call, tuple or projection. Expressions that are already normal come back as they are.
Expr NormalizeValue(const Expr& value, const EmitFn& emit);
// `value` as a leaf or a tuple of leaves: a non-leaf is normalized and then emitted itself.
Expr NormalizeArgument(const Expr& value, const EmitFn& emit);

class BlockBuilder {
 public:
  explicit BlockBuilder(IRModule module = IRModule());

  // Starts a function (one at a time). Parameters must be non-dataflow Vars.
  void BeginFunction(const std::string& name, std::vector<Var> params, Attrs attrs = Attrs());
  // Ends the function returning `result` (not a DataflowVar; no dataflow scope open) and adds
  // it to the module under a unique name derived from the one given to BeginFunction. A result
  // that is not a leaf or a tuple of leaves is bound to a Var first.
  // `ret` declares the return struct info; by default it is the result's.
  GlobalVar EndFunction(const Expr& result, StructInfo ret = StructInfo());

  void BeginDataflow();
  void EndDataflow();
  bool in_dataflow() const { return in_dataflow_; }

  // Binds `value` (normalized first) to a new variable: a DataflowVar inside a dataflow scope,
  // else a Var. `name_hint` defaults to "lv" (dataflow) or "gv"; names are made unique per
  // function, and inner values emitted by normalization take the default names.
  Var Emit(const Expr& value, const std::string& name_hint = "");
  // Inside a dataflow scope: binds `value` to a Var that outlives the scope (inner values
  // normalization emits stay DataflowVars).
  Var EmitOutput(const Expr& value, const std::string& name_hint = "");
  // Binds R.match_cast(value, pattern): the new variable has struct info `pattern`, whose
  // new shape variables become known from here on. `note` is the binding's (expr.h).
  Var EmitMatchCast(const Expr& value, StructInfo pattern, const std::string& name_hint = "",
                    const std::string& note = "");
  // `value` in A-normal form, its non-leaf parts emitted into the current scope (NormalizeValue).
  Expr Normalize(const Expr& value);
  // The value `var` is bound to in the open function (a match_cast's value too), or an undefined
  // Expr when the open function binds no such variable (a parameter, another function's).
  // Front ends use it to recognise a pattern over bindings they emitted earlier.
  Expr LookupBinding(const Var& var) const;

  // Adds a finished function or kernel under a unique name derived from `name_hint`.
  GlobalVar AddFunction(const std::string& name_hint, Function func);
  GlobalVar AddFunction(const std::string& name_hint, ir::PrimFunc func);

  const IRModule& module() const { return module_; }
  // The module; throws kInvalidIR while a function is still open.
  IRModule Finalize() const;

 private:
  void RequireFunction(const char* what) const;
  // The checks of a value about to be bound (in a function, defined, no SeqExpr, no dataflow
  // variable outside a dataflow block), made before normalization emits anything.
  void CheckBindable(const Expr& value, const char* what) const;
  std::string FreshName(const std::string& hint);
  Var Bind(Binding binding_template, const Expr& value, bool dataflow_var, const std::string& name,
           const char* what);
  // Emits a value normalization found inside another one, with the default name.
  Var EmitInner(const Expr& value);

  IRModule module_;
  bool in_function_ = false;
  bool in_dataflow_ = false;
  std::string func_name_;
  std::vector<Var> params_;
  Attrs func_attrs_;
  std::vector<BindingBlock> blocks_;
  std::map<std::string, int> name_counts_;  // last suffix used per hint
  std::set<std::string> used_names_;
};

}  // namespace kiln::ir::relax
