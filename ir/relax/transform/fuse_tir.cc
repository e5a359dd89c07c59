// FuseTIR: primitive Relax functions become PrimFuncs, their calls become call_tir.
#include <unordered_map>
#include <unordered_set>

#include "ir/relax/expr_functor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/struct_info_util.h"
#include "ir/relax/transform/fuse_ops.h"
#include "ir/relax/transform/merge_prim_funcs.h"
#include "ir/structural.h"

namespace kiln::ir::relax::transform {

namespace {

struct Replacement {
  GlobalVar prim;                     // the merged PrimFunc
  Function primitive;                 // the Relax function it replaces
  std::vector<PrimVar> shape_params;  // passed as tir_vars, in the primitive's terms
};

// The PrimFuncs a function calls with call_tir.
class CallTIRCollector : public ExprVisitor {
 public:
  using ExprVisitor::VisitExpr_;
  void VisitExpr_(const CallNode* op) override {
    if (op->op == "call_tir") names.insert(op->args[0].as<GlobalVarNode>()->name);
    ExprVisitor::VisitExpr_(op);
  }
  std::unordered_set<std::string> names;
};

class CallRewriter : public ExprMutator {
 public:
  explicit CallRewriter(const std::unordered_map<std::string, Replacement>& replacements)
      : replacements_(replacements) {}

  using ExprMutator::VisitExpr_;
  Expr VisitExpr_(const CallNode* op) override {
    Expr e = ExprMutator::VisitExpr_(op);
    const auto* call = e.as<CallNode>();
    const auto* callee = call->callee.as<GlobalVarNode>();
    if (!call->op.empty() || callee == nullptr) return e;
    auto it = replacements_.find(callee->name);
    if (it == replacements_.end()) return e;
    const Replacement& r = it->second;
    // The primitive's shape variables in the caller's terms, from the arguments.
    DimBindings bindings;
    const auto& params = r.primitive->params;
    for (size_t i = 0; i < params.size(); ++i) {
      BindSymbolicDims(params[i].struct_info(), call->args[i].struct_info(), bindings);
    }
    std::vector<StructInfo> out_sinfo;
    if (const auto* t = e.struct_info().as<TupleStructInfoNode>()) {
      out_sinfo = t->fields;
    } else {
      out_sinfo = {e.struct_info()};
    }
    Expr tir_vars;
    if (!r.shape_params.empty()) {
      std::vector<PrimExpr> values;
      for (const PrimVar& v : r.shape_params) values.push_back(SubstituteDim(v, bindings));
      tir_vars = ShapeExpr(std::move(values));
    }
    return CallTIR(r.prim, call->args, std::move(out_sinfo), tir_vars);
  }

 private:
  const std::unordered_map<std::string, Replacement>& replacements_;
};

}  // namespace

IRModule FuseTIR(const IRModule& module) {
  // Merge each primitive function, keeping one PrimFunc per structurally distinct result.
  struct Merged {
    std::string name;
    ir::PrimFunc func;
    uint64_t hash;
  };
  std::vector<Merged> merged;
  std::unordered_map<std::string, size_t> merged_of;  // primitive name -> index in `merged`
  std::unordered_map<std::string, MergedPrimFunc> results;
  std::unordered_set<std::string> called_by_primitives;
  for (const std::string& name : module.names()) {
    const Function* f = module.LookupFunction(name);
    if (f == nullptr || !IsPrimitiveFunction(*f)) continue;
    MergedPrimFunc m = MergePrimitiveFunction(module, *f, name);
    CallTIRCollector calls;
    calls.VisitExpr(*f);
    called_by_primitives.insert(calls.names.begin(), calls.names.end());
    uint64_t hash = ir::StructuralHash(m.func);
    size_t index = merged.size();
    for (size_t i = 0; i < merged.size(); ++i) {
      if (merged[i].hash == hash && ir::StructuralEqual(merged[i].func, m.func)) index = i;
    }
    if (index == merged.size()) merged.push_back({name, m.func, hash});
    merged_of[name] = index;
    results[name] = std::move(m);
  }
  if (merged.empty()) return module;

  IRModule out = module;
  for (const auto& [name, index] : merged_of) out.Remove(name);
  std::vector<GlobalVar> prim_gvars;
  for (const Merged& m : merged) prim_gvars.push_back(out.Add(m.name, m.func));
  std::unordered_map<std::string, Replacement> replacements;
  for (const auto& [name, index] : merged_of) {
    replacements[name] =
        Replacement{prim_gvars[index], *module.LookupFunction(name), results[name].shape_params};
  }

  std::unordered_set<std::string> still_called;
  for (const std::string& name : out.names()) {
    const Function* f = out.LookupFunction(name);
    if (f == nullptr) continue;
    Expr rewritten = CallRewriter(replacements).VisitExpr(*f);
    if (!rewritten.same_as(*f)) out.Update(name, Function(rewritten.ptr()));
    CallTIRCollector calls;
    calls.VisitExpr(rewritten);
    still_called.insert(calls.names.begin(), calls.names.end());
  }
  // The kernels only the primitive functions called are gone with them.
  for (const std::string& name : called_by_primitives) {
    if (still_called.count(name) == 0 && out.LookupPrimFunc(name) != nullptr) out.Remove(name);
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
