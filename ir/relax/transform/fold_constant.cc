// FoldConstant: constant call_tir bindings evaluated by the reference executor.
#include "ir/relax/transform/fold_constant.h"

#include <map>
#include <unordered_map>

#include "ir/analysis/flop_count.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/expr_functor.h"
#include "ir/relax/transform/call_tir_mapping.h"
#include "support/logging.h"

namespace kiln::ir::relax::transform {

namespace {

bool IsConstantLike(const Expr& e) {
  if (e.as<ConstantNode>() != nullptr) return true;
  if (const auto* t = e.as<TupleNode>()) {
    for (const Expr& f : t->fields) {
      if (!IsConstantLike(f)) return false;
    }
    return true;
  }
  return false;
}

class Folder : public ExprMutator {
 public:
  Folder(const IRModule& module, const FoldConstantOptions& options)
      : module_(module), options_(options) {}

  using ExprMutator::VisitExpr_;

  void VisitBinding(const Binding& binding, std::vector<Binding>& out) override {
    ExprMutator::VisitBinding(binding, out);
    Binding& b = out.back();
    if (b.is_match_cast()) return;
    Expr folded = TryFold(b.value, b.var.name());
    if (folded.defined()) b = VarBinding(b.var, folded);
    if (IsConstantLike(b.value)) known_[b.var.get()] = b.value;
  }

 private:
  // The constant `e` stands for, if any.
  Expr Resolve(const Expr& e) const {
    if (IsConstantLike(e)) return e;
    if (const auto* v = e.as<VarNode>()) {
      auto it = known_.find(v);
      if (it != known_.end()) return it->second;
    }
    return Expr();
  }

  Expr TryFold(const Expr& value, const std::string& var) {
    if (const auto* g = value.as<TupleGetItemNode>()) {
      Expr t = Resolve(g->tuple);
      if (const auto* tuple = t.as<TupleNode>()) return tuple->fields[g->index];
      return Expr();
    }
    const auto* call = value.as<CallNode>();
    if (call == nullptr || call->op != "call_tir") return Expr();
    std::vector<exec::Value> inputs;
    for (const Expr& arg : call->args[1].as<TupleNode>() ? call->args[1].as<TupleNode>()->fields
                                                         : std::vector<Expr>{call->args[1]}) {
      if (const auto* pv = arg.as<PrimValueNode>()) {
        auto c = AsConstInt(pv->value);
        if (!c) return Expr();
        inputs.push_back(exec::Value::Int(*c, pv->value.dtype()));
        continue;
      }
      Expr c = Resolve(arg);
      if (c.as<ConstantNode>() == nullptr) return Expr();
      inputs.push_back(exec::Value::Tensor(c.as<ConstantNode>()->data));
    }
    std::vector<int64_t> tir_vars;
    if (call->args.size() == 3) {
      const auto* shape = call->args[2].as<ShapeExprNode>();
      if (shape == nullptr) return Expr();
      for (const PrimExpr& d : shape->values) {
        auto c = AsConstInt(d);
        if (!c) return Expr();
        tir_vars.push_back(*c);
      }
    }
    int64_t elements = 0;
    for (const StructInfo& s : call->sinfo_args) {
      const auto* t = s.as<TensorStructInfoNode>();
      int64_t n = 1;
      for (const PrimExpr& d : *t->shape) {
        auto c = AsConstInt(d);
        if (!c) return Expr();
        n *= *c;
      }
      elements += n;
    }
    if (elements > options_.max_output_elements) return Expr();
    if (!WithinWorkLimit(*call)) return Expr();
    try {
      exec::Value result = exec::RunCallTIR(module_, *call, inputs, tir_vars, exec::ShapeEnv());
      if (result.is_tensor()) return Constant(result.tensor());
      std::vector<Expr> fields;
      for (const exec::Value& f : result.fields()) fields.push_back(Constant(f.tensor()));
      return Tuple(std::move(fields));
    } catch (const Error& e) {
      KILN_LOG_WARN("FoldConstant: binding {} is left unfolded: {}", var, e.what());
      return Expr();
    }
  }

  bool WithinWorkLimit(const CallNode& call) const {
    std::optional<CallTIRMapping> m = MatchCallTIR(module_, call, nullptr);
    if (!m) return false;
    std::map<std::string, int64_t> dims;
    for (const auto& [var, value] : m->vars) {
      auto c = AsConstInt(value);
      if (!c) return false;
      dims[var->name] = *c;
    }
    try {
      return EstimateFlops(m->func, dims) <= options_.max_flops;
    } catch (const Error&) {
      return false;
    }
  }

  const IRModule& module_;
  const FoldConstantOptions& options_;
  std::unordered_map<const VarNode*, Expr> known_;
};

}  // namespace

IRModule FoldConstant(const IRModule& module, const FoldConstantOptions& options) {
  IRModule out = module;
  for (const std::string& name : module.names()) {
    const Function* f = module.LookupFunction(name);
    if (f == nullptr) continue;
    Expr folded = Folder(module, options).VisitExpr(*f);
    if (!folded.same_as(*f)) out.Update(name, Function(folded.ptr()));
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
