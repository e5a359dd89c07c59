// Shape variable binding and substitution over struct info.
#include "ir/relax/struct_info_util.h"

#include "ir/functor.h"

namespace kiln::ir::relax {

namespace {

class DimSubstituter : public IRMutator {
 public:
  explicit DimSubstituter(const DimBindings& b) : bindings_(b) {}
  using IRMutator::VisitExpr_;
  PrimExpr VisitExpr_(const ir::VarNode* op) override {
    PrimVar v = GetRef<PrimVar>(op);
    const PrimExpr* value = bindings_.Find(v);
    return value != nullptr ? *value : PrimExpr(v);
  }

 private:
  const DimBindings& bindings_;
};

void BindDims(const std::optional<std::vector<PrimExpr>>& pattern,
              const std::optional<std::vector<PrimExpr>>& value, DimBindings& bindings) {
  if (!pattern || !value || pattern->size() != value->size()) return;
  for (size_t i = 0; i < pattern->size(); ++i) {
    const PrimExpr& p = (*pattern)[i];
    if (p.as<ir::VarNode>() == nullptr) continue;
    PrimVar v(p.ptr());
    if (bindings.Find(v) == nullptr) bindings.pairs.emplace_back(v, (*value)[i]);
  }
}

std::optional<std::vector<PrimExpr>> SubstituteAll(const std::optional<std::vector<PrimExpr>>& dims,
                                                   const DimBindings& bindings) {
  if (!dims) return std::nullopt;
  std::vector<PrimExpr> out;
  for (const PrimExpr& d : *dims) out.push_back(SubstituteDim(d, bindings));
  return out;
}

}  // namespace

const PrimExpr* DimBindings::Find(const PrimVar& v) const {
  for (const auto& [var, value] : pairs) {
    if (var.same_as(v)) return &value;
  }
  return nullptr;
}

void BindSymbolicDims(const StructInfo& pattern, const StructInfo& value, DimBindings& bindings) {
  if (!pattern.defined() || !value.defined() || pattern.kind() != value.kind()) return;
  switch (pattern.kind()) {
    case StructInfoKind::kTensor:
      BindDims(pattern.as<TensorStructInfoNode>()->shape, value.as<TensorStructInfoNode>()->shape,
               bindings);
      break;
    case StructInfoKind::kShape:
      BindDims(pattern.as<ShapeStructInfoNode>()->values, value.as<ShapeStructInfoNode>()->values,
               bindings);
      break;
    case StructInfoKind::kPrim: {
      const auto *p = pattern.as<PrimStructInfoNode>(), *v = value.as<PrimStructInfoNode>();
      if (p->value.defined() && v->value.defined()) {
        BindDims(std::vector<PrimExpr>{p->value}, std::vector<PrimExpr>{v->value}, bindings);
      }
      break;
    }
    case StructInfoKind::kTuple: {
      const auto *p = pattern.as<TupleStructInfoNode>(), *v = value.as<TupleStructInfoNode>();
      for (size_t i = 0; i < p->fields.size() && i < v->fields.size(); ++i) {
        BindSymbolicDims(p->fields[i], v->fields[i], bindings);
      }
      break;
    }
    default:
      break;
  }
}

PrimExpr SubstituteDim(const PrimExpr& e, const DimBindings& bindings) {
  if (bindings.pairs.empty()) return e;
  return SimplifyDim(DimSubstituter(bindings).VisitExpr(e));
}

StructInfo SubstituteDims(const StructInfo& s, const DimBindings& bindings) {
  if (!s.defined() || bindings.pairs.empty()) return s;
  switch (s.kind()) {
    case StructInfoKind::kTensor: {
      const auto* t = s.as<TensorStructInfoNode>();
      if (!t->shape) return s;
      return TensorStructInfo(*SubstituteAll(t->shape, bindings), t->dtype);
    }
    case StructInfoKind::kShape: {
      const auto* p = s.as<ShapeStructInfoNode>();
      if (!p->values) return s;
      return ShapeStructInfo(*SubstituteAll(p->values, bindings));
    }
    case StructInfoKind::kPrim: {
      const auto* p = s.as<PrimStructInfoNode>();
      if (!p->value.defined()) return s;
      return PrimStructInfo(SubstituteDim(p->value, bindings));
    }
    case StructInfoKind::kTuple: {
      std::vector<StructInfo> fields;
      for (const StructInfo& f : s.as<TupleStructInfoNode>()->fields) {
        fields.push_back(SubstituteDims(f, bindings));
      }
      return TupleStructInfo(std::move(fields));
    }
    case StructInfoKind::kFunc: {
      const auto* f = s.as<FuncStructInfoNode>();
      std::vector<StructInfo> params;
      for (const StructInfo& p : f->params) params.push_back(SubstituteDims(p, bindings));
      return FuncStructInfo(std::move(params), SubstituteDims(f->ret, bindings));
    }
    default:
      return s;
  }
}

}  // namespace kiln::ir::relax
