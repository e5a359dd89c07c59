// LegalizeOps: a mutator over each Relax function that replaces op calls by the expression
// their rule returns (a call_tir, or for identities the input itself); the bindings a rule
// emits (tuple fields, extra kernels) go before the binding being rewritten.
#include "ir/relax/transform/legalize/legalize.h"

#include <algorithm>

#include "ir/relax/expr_functor.h"
#include "ir/relax/transform/legalize/context.h"
#include "support/logging.h"

namespace kiln::ir::relax {

namespace legalize {

const RuleTable& Rules() {
  static const RuleTable* rules = [] {
    auto* r = new RuleTable();
    AddUnaryRules(*r);
    AddTrigonometricRules(*r);
    AddBinaryRules(*r);
    AddLinearAlgebraRules(*r);
    AddConvRules(*r);
    AddPoolRules(*r);
    AddNormRules(*r);
    AddNNRules(*r);
    AddReduceRules(*r);
    AddScanRules(*r);
    AddManipulateRules(*r);
    AddIndexRules(*r);
    AddCreateRules(*r);
    AddImageRules(*r);
    return r;
  }();
  return *rules;
}

namespace {

// Ops that compute no tensor: calls in destination-passing style (already kernels) and the
// shape ops, which work on shape values the executor keeps on the host.
const std::vector<std::string>& NonTensorOpList() {
  static const std::vector<std::string> ops = {
      "call_dps_packed", "call_tir",    "shape_concat",    "shape_get",
      "shape_of",        "shape_slice", "shape_to_tensor", "tensor_to_shape",
  };
  return ops;
}

bool IsNonTensorOp(const std::string& op) {
  const auto& ops = NonTensorOpList();
  return std::find(ops.begin(), ops.end(), op) != ops.end();
}

// True when `s` is fully known: tensors with a dtype and a shape, scalars with a dtype.
bool KnownStructInfo(const StructInfo& s) {
  switch (s.kind()) {
    case StructInfoKind::kTensor: {
      const auto* t = s.as<TensorStructInfoNode>();
      return t->shape.has_value() && !t->unknown_dtype();
    }
    case StructInfoKind::kTuple:
      for (const StructInfo& f : s.as<TupleStructInfoNode>()->fields) {
        if (!KnownStructInfo(f)) return false;
      }
      return true;
    case StructInfoKind::kPrim:
      return !s.as<PrimStructInfoNode>()->dtype.is_void();
    case StructInfoKind::kShape:
      return true;  // shape arguments (reshape's target) are read through the result's shape
    case StructInfoKind::kObject:
    case StructInfoKind::kFunc:
      return false;
  }
  return false;
}

class Legalizer : public ExprMutator {
 public:
  Legalizer(IRModule& module, std::string func) : module_(module), func_(std::move(func)) {}

  BindingBlock VisitBindingBlock(const BindingBlock& block) override {
    bool saved = in_dataflow_;
    in_dataflow_ = block.is_dataflow;
    BindingBlock out = ExprMutator::VisitBindingBlock(block);
    in_dataflow_ = saved;
    return out;
  }

  void VisitBinding(const Binding& binding, std::vector<Binding>& out) override {
    std::vector<Binding>* saved_out = pending_;
    std::string saved_name = binding_name_;
    pending_ = &out;
    binding_name_ = binding.var.name();
    ExprMutator::VisitBinding(binding, out);
    pending_ = saved_out;
    binding_name_ = saved_name;
  }

 protected:
  // An item of a tuple a rule built ((x, mask)[0] after dropout) is the field itself.
  Expr VisitExpr_(const TupleGetItemNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    const auto* item = visited.as<TupleGetItemNode>();
    if (item == nullptr || item->tuple.same_as(op->tuple)) return visited;
    if (const auto* tuple = item->tuple.as<TupleNode>()) return tuple->fields.at(item->index);
    return visited;
  }

  Expr VisitExpr_(const CallNode* op) override {
    Expr visited = ExprMutator::VisitExpr_(op);
    const auto* call = visited.as<CallNode>();
    if (call == nullptr || call->op.empty() || IsNonTensorOp(call->op)) return visited;
    // Arithmetic on scalars (shape arithmetic) stays on the host; a known value replaces it.
    if (const auto* p = call->struct_info.as<PrimStructInfoNode>()) {
      return p->value.defined() ? PrimValue(p->value) : visited;
    }
    auto rule = legalize::Rules().find(call->op);
    if (rule == legalize::Rules().end()) {
      throw Error(ErrorKind::kUnsupported,
                  "LegalizeOps: " + Where() + ": op '" + call->op + "' has no legalization rule");
    }
    for (const Expr& arg : call->args) {
      if (!KnownStructInfo(arg.struct_info()) || !KnownStructInfo(call->struct_info)) {
        KILN_LOG_WARN(
            "LegalizeOps: {}: {} is left as it is: its argument or result shapes are "
            "not known statically ({} -> {})",
            Where(), call->op, arg.struct_info().ToString(), call->struct_info.ToString());
        return visited;
      }
    }
    legalize::LegalizeContext ctx(
        *call, module_,
        [this](const Expr& value, const std::string& hint) { return Emit(value, hint); });
    try {
      return rule->second(ctx);
    } catch (const Error& e) {
      throw Error(e.kind(), "LegalizeOps: " + Where() + ": " + e.what());
    }
  }

 private:
  std::string Where() const {
    return "function " + func_ + (binding_name_.empty() ? "" : ", binding " + binding_name_);
  }

  Expr Emit(const Expr& value, const std::string& hint) {
    if (pending_ == nullptr) return value;  // not inside a binding: stays nested
    Var var =
        in_dataflow_ ? DataflowVar(hint, value.struct_info()) : Var(hint, value.struct_info());
    pending_->push_back(VarBinding(var, value));
    return var;
  }

  IRModule& module_;
  std::string func_;
  bool in_dataflow_ = false;
  std::vector<Binding>* pending_ = nullptr;
  std::string binding_name_;
};

}  // namespace

}  // namespace legalize

namespace transform {

IRModule LegalizeOps(const IRModule& module) {
  IRModule result = module;
  for (const std::string& name : module.names()) {
    const Function* func = module.LookupFunction(name);
    if (func == nullptr) continue;
    legalize::Legalizer legalizer(result, name);
    Expr rewritten = legalizer.VisitExpr(*func);
    if (!rewritten.same_as(*func)) result.Update(name, Function(rewritten.ptr()));
  }
  return result;
}

bool HasLegalizeRule(const std::string& op) { return legalize::Rules().count(op) != 0; }

std::vector<std::string> NonTensorOps() { return legalize::NonTensorOpList(); }

}  // namespace transform

}  // namespace kiln::ir::relax
