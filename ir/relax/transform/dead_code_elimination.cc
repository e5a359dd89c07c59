// DeadCodeElimination: backward liveness over each function's bindings, then reachability of
// functions from the entry points.
#include "ir/relax/transform/dead_code_elimination.h"

#include <algorithm>
#include <deque>
#include <set>
#include <unordered_set>

#include "ir/relax/expr_functor.h"
#include "ir/relax/transform/fuse_ops.h"

namespace kiln::ir::relax::transform {

namespace {

// Variables and functions an expression refers to.
class References : public ExprVisitor {
 public:
  using ExprVisitor::VisitExpr_;
  void VisitExpr_(const VarNode* op) override { vars.insert(op); }
  void VisitExpr_(const GlobalVarNode* op) override { functions.insert(op->name); }
  std::unordered_set<const VarNode*> vars;
  std::set<std::string> functions;
};

std::unordered_set<const VarNode*> VarsUsedBy(const Expr& e) {
  References r;
  r.VisitExpr(e);
  return r.vars;
}

// `func` without its dead dataflow bindings; `func` itself when nothing is dead.
Function RemoveDeadBindings(const Function& func) {
  const auto* seq = func->body.as<SeqExprNode>();
  if (seq == nullptr) return func;
  // Forward: which match_casts introduce shape variables.
  std::unordered_set<const void*> shape_vars;
  for (const Var& p : func->params) {
    for (const PrimVar& v : SymbolicVars(p.struct_info())) shape_vars.insert(v.get());
  }
  std::set<std::pair<size_t, size_t>> defines_shape_vars;
  for (size_t i = 0; i < seq->blocks.size(); ++i) {
    const auto& bindings = seq->blocks[i].bindings;
    for (size_t j = 0; j < bindings.size(); ++j) {
      for (const PrimVar& v : SymbolicVars(bindings[j].var.struct_info())) {
        if (shape_vars.insert(v.get()).second && bindings[j].is_match_cast()) {
          defines_shape_vars.insert({i, j});
        }
      }
    }
  }
  // Backward: keep what is live.
  std::unordered_set<const VarNode*> live = VarsUsedBy(seq->body);
  std::vector<BindingBlock> blocks(seq->blocks.size());
  bool changed = false;
  for (size_t i = seq->blocks.size(); i-- > 0;) {
    const BindingBlock& block = seq->blocks[i];
    std::vector<Binding> kept;
    for (size_t j = block.bindings.size(); j-- > 0;) {
      const Binding& b = block.bindings[j];
      bool keep = !block.is_dataflow || live.count(b.var.get()) != 0 ||
                  defines_shape_vars.count({i, j}) != 0;
      if (!keep) {
        changed = true;
        continue;
      }
      for (const VarNode* v : VarsUsedBy(b.value)) live.insert(v);
      kept.push_back(b);
    }
    std::reverse(kept.begin(), kept.end());
    blocks[i] = BindingBlock{std::move(kept), block.is_dataflow};
  }
  if (!changed) return func;
  std::vector<BindingBlock> non_empty;
  for (BindingBlock& b : blocks) {
    if (!b.bindings.empty()) non_empty.push_back(std::move(b));
  }
  return MakeFunction(func->params, SeqExpr(std::move(non_empty), seq->body), func->ret_struct_info,
                      func->attrs);
}

std::set<std::string> FunctionsUsedBy(const IRModule& module, const std::string& name) {
  References r;
  if (const Function* f = module.LookupFunction(name)) r.VisitExpr(*f);
  return r.functions;
}

}  // namespace

IRModule DeadCodeElimination(const IRModule& module,
                             const std::vector<std::string>& entry_functions) {
  IRModule out = module;
  for (const std::string& name : module.names()) {
    const Function* f = module.LookupFunction(name);
    if (f == nullptr) continue;
    Function pruned = RemoveDeadBindings(*f);
    if (!pruned.same_as(*f)) out.Update(name, pruned);
  }

  std::vector<std::string> entries = entry_functions;
  for (const std::string& e : entries) {
    KILN_CHECK(out.Contains(e), ErrorKind::kInvalidIR,
               "DeadCodeElimination: entry function " + e + " is not in the module");
  }
  if (entries.empty()) {
    for (const std::string& name : out.names()) {
      const Function* f = out.LookupFunction(name);
      if (f != nullptr && (*f)->attrs.Has("global_symbol") && !IsPrimitiveFunction(*f)) {
        entries.push_back(name);
      }
    }
  }
  if (entries.empty()) return out;
  std::set<std::string> reached(entries.begin(), entries.end());
  std::deque<std::string> work(entries.begin(), entries.end());
  while (!work.empty()) {
    std::string name = work.front();
    work.pop_front();
    for (const std::string& callee : FunctionsUsedBy(out, name)) {
      if (reached.insert(callee).second) work.push_back(callee);
    }
  }
  for (const std::string& name : out.names()) {
    if (reached.count(name) == 0) out.Remove(name);
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
