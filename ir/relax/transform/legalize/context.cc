// The legalization context: placeholders over copied shape variables, and the kernel and
// call_tir made from a rule's stages.
#include "ir/relax/transform/legalize/context.h"

#include <algorithm>
#include <unordered_set>

#include "ir/compute/create_prim_func.h"
#include "ir/functor.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

namespace {

// Replaces Relax shape variables by their kernel copies, making copies on first sight.
class DimCopier : public ir::IRMutator {
 public:
  explicit DimCopier(std::function<ir::Var(const ir::Var&)> copy) : copy_(std::move(copy)) {}
  ir::Expr VisitExpr_(const ir::VarNode* op) override { return copy_(ir::GetRef<ir::Var>(op)); }

 private:
  std::function<ir::Var(const ir::Var&)> copy_;
};

// The variables an expression or statement uses.
class UsedVars : public ir::IRVisitor {
 public:
  std::unordered_set<const ir::VarNode*> vars;
  void VisitExpr_(const ir::VarNode* op) override { vars.insert(op); }
};

// Every compute stage's placeholders reachable from `outputs`.
std::unordered_set<const compute::TensorNode*> ReachablePlaceholders(
    const std::vector<Tensor>& outputs) {
  std::unordered_set<const compute::TensorNode*> seen, placeholders;
  std::vector<Tensor> stack(outputs.begin(), outputs.end());
  while (!stack.empty()) {
    Tensor t = stack.back();
    stack.pop_back();
    if (!seen.insert(t.get()).second) continue;
    if (t.is_placeholder()) {
      placeholders.insert(t.get());
      continue;
    }
    for (const Tensor& in : t->inputs) stack.push_back(in);
  }
  return placeholders;
}

}  // namespace

LegalizeContext::LegalizeContext(const CallNode& call, IRModule& module, Emitter emit)
    : call_(call), module_(module), emit_(std::move(emit)) {}

void LegalizeContext::Unsupported(const std::string& message) const {
  throw Error(ErrorKind::kUnsupported, call_.op + ": " + message);
}

const TensorStructInfoNode& LegalizeContext::ArgInfo(size_t i) const {
  KILN_CHECK(i < call_.args.size(), ErrorKind::kInternal,
             call_.op + ": argument " + std::to_string(i) + " is missing");
  const auto* t = call_.args[i].struct_info().as<TensorStructInfoNode>();
  KILN_CHECK(t != nullptr && t->shape.has_value() && !t->unknown_dtype(), ErrorKind::kInternal,
             call_.op + ": argument " + std::to_string(i) +
                 " is not a tensor of known shape, got " + call_.args[i].struct_info().ToString());
  return *t;
}

bool LegalizeContext::IsScalarArg(size_t i) const {
  return i < call_.args.size() && call_.args[i].struct_info().as<PrimStructInfoNode>() != nullptr;
}

std::string LegalizeContext::NextInputName() {
  int n = next_input_++;
  if (n < 26) return std::string(1, static_cast<char>('A' + n));
  return "A" + std::to_string(n);
}

ir::Expr LegalizeContext::Dim(const PrimExpr& dim) {
  DimCopier copier([this](const ir::Var& v) {
    auto it = var_copies_.find(v.get());
    if (it != var_copies_.end()) return it->second;
    ir::Var copy(v.name(), v.dtype());
    var_copies_.emplace(v.get(), copy);
    copies_.emplace_back(copy, v);
    return copy;
  });
  return copier.VisitExpr(dim);
}

std::vector<ir::Expr> LegalizeContext::Dims(const std::vector<PrimExpr>& dims) {
  std::vector<ir::Expr> out;
  out.reserve(dims.size());
  for (const PrimExpr& d : dims) out.push_back(Dim(d));
  return out;
}

Tensor LegalizeContext::MakePlaceholder(size_t arg, size_t field, const Expr& value,
                                        const TensorStructInfoNode& info) {
  Tensor t = compute::Placeholder(NextInputName(), Dims(*info.shape), info.dtype);
  inputs_.push_back(InputEntry{arg, field, value, t, ir::Var()});
  return t;
}

Tensor LegalizeContext::Input(size_t i) {
  for (const InputEntry& e : inputs_) {
    if (e.arg == i && e.tensor.defined()) return e.tensor;
  }
  return MakePlaceholder(i, 0, call_.args[i], ArgInfo(i));
}

std::vector<Tensor> LegalizeContext::InputTuple(size_t i) {
  auto it = tuple_inputs_.find(i);
  if (it != tuple_inputs_.end()) return it->second;
  const Expr& arg = call_.args.at(i);
  const auto* tuple = arg.struct_info().as<TupleStructInfoNode>();
  KILN_CHECK(tuple != nullptr, ErrorKind::kInternal,
             call_.op + ": argument " + std::to_string(i) + " is not a tuple");
  std::vector<Tensor> tensors;
  for (size_t f = 0; f < tuple->fields.size(); ++f) {
    const auto* info = tuple->fields[f].as<TensorStructInfoNode>();
    KILN_CHECK(info != nullptr && info->shape.has_value() && !info->unknown_dtype(),
               ErrorKind::kInternal,
               call_.op + ": field " + std::to_string(f) + " of argument " + std::to_string(i) +
                   " is not a tensor of known shape");
    Expr value;
    if (const auto* t = arg.as<TupleNode>()) {
      value = t->fields[f];
    } else {
      value = Emit(TupleGetItem(arg, static_cast<int>(f)), "item");
    }
    tensors.push_back(MakePlaceholder(i, f, value, *info));
  }
  tuple_inputs_[i] = tensors;
  return tensors;
}

ir::Expr LegalizeContext::Scalar(size_t i, DataType dtype) {
  const auto* p = call_.args.at(i).struct_info().as<PrimStructInfoNode>();
  KILN_CHECK(p != nullptr, ErrorKind::kInternal,
             call_.op + ": argument " + std::to_string(i) + " is not a scalar");
  ir::Expr value;
  if (p->value.defined()) {
    value = Dim(p->value);
  } else {
    for (const InputEntry& e : inputs_) {
      if (e.arg == i && e.scalar.defined()) value = e.scalar;
    }
    if (!value.defined()) {
      KILN_CHECK(!p->dtype.is_void(), ErrorKind::kInternal,
                 call_.op + ": scalar argument " + std::to_string(i) + " has no dtype");
      ir::Var v(NextInputName(), p->dtype);
      inputs_.push_back(InputEntry{i, 0, call_.args[i], Tensor(), v});
      value = v;
    }
  }
  return CastTo(dtype, value);
}

const TensorStructInfoNode& LegalizeContext::OutInfo(size_t k) const {
  const StructInfo& s = call_.struct_info;
  const StructInfo* field = &s;
  if (const auto* tuple = s.as<TupleStructInfoNode>()) {
    KILN_CHECK(k < tuple->fields.size(), ErrorKind::kInternal,
               call_.op + ": the result has no field " + std::to_string(k));
    field = &tuple->fields[k];
  }
  const auto* t = field->as<TensorStructInfoNode>();
  KILN_CHECK(t != nullptr && t->shape.has_value() && !t->unknown_dtype(), ErrorKind::kInternal,
             call_.op + ": the result is not a tensor of known shape, got " + field->ToString());
  return *t;
}

std::vector<ir::Expr> LegalizeContext::OutShape(size_t k) { return Dims(*OutInfo(k).shape); }

DataType LegalizeContext::OutDType(size_t k) const { return OutInfo(k).dtype; }

Expr LegalizeContext::CallKernel(const std::string& name_hint, const std::vector<Tensor>& outputs,
                                 std::vector<StructInfo> out_sinfo) {
  // A second kernel would share this call's shape-variable copies with the first.
  KILN_CHECK(!kernel_made_, ErrorKind::kInternal, call_.op + ": a rule makes one kernel per call");
  kernel_made_ = true;
  if (out_sinfo.empty()) {
    if (const auto* tuple = call_.struct_info.as<TupleStructInfoNode>()) {
      out_sinfo = tuple->fields;
    } else {
      out_sinfo = {call_.struct_info};
    }
  }
  KILN_CHECK(out_sinfo.size() == outputs.size(), ErrorKind::kInternal,
             call_.op + ": " + std::to_string(outputs.size()) + " kernel outputs for " +
                 std::to_string(out_sinfo.size()) + " declared results");

  // The inputs the stages read, in argument order.
  auto reachable = ReachablePlaceholders(outputs);
  std::vector<const InputEntry*> used;
  for (const InputEntry& e : inputs_) {
    if (e.scalar.defined() || reachable.count(e.tensor.get())) used.push_back(&e);
  }
  std::stable_sort(used.begin(), used.end(), [](const InputEntry* a, const InputEntry* b) {
    return a->arg != b->arg ? a->arg < b->arg : a->field < b->field;
  });

  // Shape variables that are a whole dim of some parameter are bound by its tensor; the
  // others must be passed by value.
  std::vector<Tensor> tensors;
  std::vector<ir::Var> scalars;
  for (const InputEntry* e : used) {
    if (e->tensor.defined()) {
      tensors.push_back(e->tensor);
    } else {
      scalars.push_back(e->scalar);
    }
  }
  tensors.insert(tensors.end(), outputs.begin(), outputs.end());
  std::unordered_set<const ir::VarNode*> bound;
  for (const Tensor& t : tensors) {
    for (const ir::Expr& d : t.shape()) {
      if (const auto* v = d.as<ir::VarNode>()) bound.insert(v);
    }
  }
  std::vector<std::pair<ir::Var, PrimVar>> by_value;
  for (const auto& [copy, original] : copies_) {
    if (!bound.count(copy.get())) by_value.emplace_back(copy, original);
  }
  std::vector<ir::Var> all_scalars = scalars;
  for (const auto& [copy, original] : by_value) all_scalars.push_back(copy);

  std::string name = module_.UniqueName(name_hint);
  ir::PrimFunc f = compute::CreatePrimFunc(tensors, name, all_scalars);

  // Drop the by-value variables the kernel does not use, and put scalar inputs at their
  // argument positions: inputs, outputs, then the shape values (call_tir's convention).
  UsedVars uses;
  uses.VisitStmt(f->body);
  for (const auto& [param, buffer] : f->buffer_map) {
    for (const ir::Expr& d : buffer->shape) uses.VisitExpr(d);
  }
  std::vector<ir::Var> params;
  size_t tensor_param = 0;
  for (const InputEntry* e : used) {
    params.push_back(e->tensor.defined() ? f->params[tensor_param++] : e->scalar);
  }
  for (size_t k = 0; k < outputs.size(); ++k) params.push_back(f->params[tensor_param++]);
  std::vector<PrimExpr> tir_vars;
  for (const auto& [copy, original] : by_value) {
    if (!uses.vars.count(copy.get())) continue;
    params.push_back(copy);
    tir_vars.push_back(original);
  }
  f = ir::MakePrimFunc(name, std::move(params), f->buffer_map, f->body, f->attrs);
  GlobalVar gvar = module_.Add(name, f);

  std::vector<Expr> args;
  for (const InputEntry* e : used) args.push_back(e->value);
  return CallTIR(gvar, std::move(args), std::move(out_sinfo),
                 tir_vars.empty() ? Expr() : ShapeExpr(std::move(tir_vars)));
}

}  // namespace kiln::ir::relax::legalize
