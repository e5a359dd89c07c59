// DecomposeOpsForInference: batch_norm and dropout rewritten into the ops they compute in
// inference, and projections of their results resolved.
#include "ir/relax/transform/decompose_ops.h"

#include <optional>
#include <unordered_map>
#include <unordered_set>

#include "ir/relax/expr_functor.h"
#include "ir/relax/op/registry.h"

namespace kiln::ir::relax::transform {

namespace {

// How a function reads its variables: projections x[i] in the binding block that binds x are
// counted by index; any other read (the whole value, or a projection in another block or in the
// returned value) makes x read whole.
class UseCollector : public ExprVisitor {
 public:
  void CollectFunction(const FunctionNode& f) {
    const auto* seq = f.body.as<SeqExprNode>();
    if (seq == nullptr) return VisitExpr(f.body);
    for (const BindingBlock& block : seq->blocks) {
      ++block_;
      for (const Binding& b : block.bindings) {
        VisitExpr(b.value);
        block_of_[b.var.get()] = block_;
      }
    }
    block_ = -1;
    VisitExpr(seq->body);
  }

  bool ReadWhole(const Var& v) const { return whole_.count(v.get()) != 0; }
  bool ReadsField(const Var& v, int index) const {
    auto it = fields_.find(v.get());
    return ReadWhole(v) || (it != fields_.end() && it->second.count(index) != 0);
  }

 protected:
  using ExprVisitor::VisitExpr_;
  void VisitExpr_(const VarNode* op) override { whole_.insert(op); }
  void VisitExpr_(const TupleGetItemNode* op) override {
    const auto* v = op->tuple.as<VarNode>();
    auto it = v != nullptr ? block_of_.find(v) : block_of_.end();
    if (it == block_of_.end() || it->second != block_) return ExprVisitor::VisitExpr_(op);
    fields_[v].insert(op->index);
  }

 private:
  int block_ = -1;
  std::unordered_map<const VarNode*, int> block_of_;
  std::unordered_set<const VarNode*> whole_;
  std::unordered_map<const VarNode*, std::unordered_set<int>> fields_;
};

class Decomposer : public ExprMutator {
 public:
  explicit Decomposer(const UseCollector& uses) : uses_(uses) {}

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    in_dataflow_ = block.is_dataflow;
    fields_.clear();  // projections resolve within the block that made the tuple
    return ExprMutator::VisitBindingBlock(block);
  }

  void VisitBinding(const Binding& binding, std::vector<Binding>& out) override {
    if (!binding.is_match_cast() && Decompose(binding, out)) return;
    if (!binding.is_match_cast() && ResolveProjection(binding, out)) return;
    ExprMutator::VisitBinding(binding, out);
  }

 protected:
  using ExprMutator::VisitExpr_;
  // A projection nested in another value (a module not in A-normal form) reads the field too.
  Expr VisitExpr_(const TupleGetItemNode* op) override {
    const auto* tuple = op->tuple.as<VarNode>();
    auto it = tuple != nullptr ? fields_.find(tuple) : fields_.end();
    if (it != fields_.end() && it->second.at(op->index).defined()) return it->second[op->index];
    return ExprMutator::VisitExpr_(op);
  }

 private:
  Var Emit(std::vector<Binding>& out, const Expr& value, const std::string& name) {
    Var var =
        in_dataflow_ ? DataflowVar(name, value.struct_info()) : Var(name, value.struct_info());
    out.push_back(VarBinding(var, value));
    return var;
  }

  // Binds `value` to `binding`'s variable, or to a fresh one of the same name and kind when the
  // struct info differs (later reads are redirected to it), as ExprMutator does.
  void Rebind(const Binding& binding, const Expr& value, std::vector<Binding>& out) {
    Var var = binding.var;
    if (!StructInfoEqual(value.struct_info(), var.struct_info())) {
      var = var.is_dataflow() ? DataflowVar(var.name(), value.struct_info())
                              : Var(var.name(), value.struct_info());
      var_remap_[binding.var.get()] = var;
    }
    out.push_back(VarBinding(var, value));
  }

  bool Decompose(const Binding& binding, std::vector<Binding>& out) {
    const auto* original = binding.value.as<CallNode>();
    if (original == nullptr || (original->op != "nn.batch_norm" && original->op != "nn.dropout")) {
      return false;
    }
    Expr value = VisitExpr(binding.value);
    const CallNode& call = *value.as<CallNode>();
    std::optional<std::vector<Expr>> fields = call.op == "nn.batch_norm"
                                                  ? BatchNorm(call, binding.var.name(), out)
                                                  : Dropout(call, binding.var, out);
    if (!fields) return false;
    fields_[binding.var.get()] = *fields;
    // The tuple itself is bound only for readers the projections below do not resolve.
    if (uses_.ReadWhole(binding.var)) Rebind(binding, Tuple(*fields), out);
    return true;
  }

  // y = t[i] of a tuple decomposed in this block: reads the field directly.
  bool ResolveProjection(const Binding& binding, std::vector<Binding>& out) {
    const auto* g = binding.value.as<TupleGetItemNode>();
    const auto* tuple = g != nullptr ? g->tuple.as<VarNode>() : nullptr;
    auto it = tuple != nullptr ? fields_.find(tuple) : fields_.end();
    if (it == fields_.end() || !it->second.at(g->index).defined()) return false;
    const Expr& field = it->second[g->index];
    if (binding.var.is_dataflow()) {
      var_remap_[binding.var.get()] = field;
    } else {
      Rebind(binding, field, out);  // an output of the block keeps its name
    }
    return true;
  }

  // (x * scale + shift, mean, var), or nullopt when the shapes are not known well enough.
  std::optional<std::vector<Expr>> BatchNorm(const CallNode& call, const std::string& name,
                                             std::vector<Binding>& out) {
    const auto* x = call.args[0].struct_info().as<TensorStructInfoNode>();
    if (x == nullptr || x->unknown_ndim() || x->unknown_dtype() || !x->dtype.is_float()) {
      return std::nullopt;
    }
    for (size_t i = 1; i < 5; ++i) {
      const auto* t = call.args[i].struct_info().as<TensorStructInfoNode>();
      if (t == nullptr || t->ndim != 1) return std::nullopt;
    }
    int64_t axis = call.attrs.GetInt("axis");
    if (axis < 0) axis += x->ndim;
    if (axis < 0 || axis >= x->ndim) return std::nullopt;
    const Expr &gamma = call.args[1], &beta = call.args[2];
    const Expr &mean = call.args[3], &var = call.args[4];
    HostTensor eps(x->dtype, {});
    eps.SetDouble(0, call.attrs.GetFloat("epsilon"));
    Var var_eps = Emit(out, Call("add", {var, Constant(eps)}), name + "_var_eps");
    Var std_dev = Emit(out, Call("sqrt", {var_eps}), name + "_std");
    // scale=False leaves gamma out, center=False beta (TVM's meaning of the attributes).
    Var scale;
    if (call.attrs.GetBool("scale")) {
      scale = Emit(out, Call("divide", {gamma, std_dev}), name + "_scale");
    } else {
      HostTensor one(x->dtype, {});
      one.SetDouble(0, 1.0);
      scale = Emit(out, Call("divide", {Constant(one), std_dev}), name + "_scale");
    }
    Var mean_scale = Emit(out, Call("multiply", {mean, scale}), name + "_mean_scale");
    Var shift = call.attrs.GetBool("center")
                    ? Emit(out, Call("subtract", {beta, mean_scale}), name + "_shift")
                    : Emit(out, Call("negative", {mean_scale}), name + "_shift");
    // (C,) -> (C, 1, ..., 1): the channel axis lines up with x's under broadcasting.
    std::vector<int64_t> trailing;
    for (int64_t i = 1; i < x->ndim - axis; ++i) trailing.push_back(i);
    if (!trailing.empty()) {
      Attrs expand;
      expand.Set("axis", trailing);
      scale = Emit(out, Call("expand_dims", {scale}, expand), name + "_scale_c");
      shift = Emit(out, Call("expand_dims", {shift}, expand), name + "_shift_c");
    }
    Var scaled = Emit(out, Call("multiply", {call.args[0], scale}), name + "_scaled");
    Var y = Emit(out, Call("add", {scaled, shift}), name + "_y");
    return std::vector<Expr>{y, mean, var};
  }

  // (x, mask): the mask of ones is made only when something reads it.
  std::optional<std::vector<Expr>> Dropout(const CallNode& call, const Var& var,
                                           std::vector<Binding>& out) {
    if (call.args[0].struct_info().as<TensorStructInfoNode>() == nullptr) return std::nullopt;
    Expr mask;
    if (uses_.ReadsField(var, 1)) mask = Emit(out, Call("ones_like", {call.args[0]}), "mask");
    return std::vector<Expr>{call.args[0], mask};
  }

  const UseCollector& uses_;
  bool in_dataflow_ = false;
  std::unordered_map<const VarNode*, std::vector<Expr>> fields_;
};

}  // namespace

IRModule DecomposeOpsForInference(const IRModule& module) {
  IRModule out = module;
  for (const std::string& name : module.names()) {
    const Function* f = module.LookupFunction(name);
    if (f == nullptr) continue;
    UseCollector uses;
    uses.CollectFunction(*f->get());
    Expr rewritten = Decomposer(uses).VisitExpr(*f);
    if (!rewritten.same_as(*f)) out.Update(name, Function(rewritten.ptr()));
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
