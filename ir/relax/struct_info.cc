// Struct info builders, printing, comparison and hashing.
#include "ir/relax/struct_info.h"

#include "ir/functor.h"
#include "ir/relax/canonical.h"

namespace kiln::ir::relax {

namespace {

std::vector<PrimExpr> SimplifyDims(std::vector<PrimExpr> dims) {
  for (PrimExpr& d : dims) d = SimplifyDim(d);
  return dims;
}

std::string DtypeString(DataType t) { return "\"" + t.ToString() + "\""; }

std::string DimList(const std::vector<PrimExpr>& dims) {
  std::string s;
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + DimToString(dims[i]);
  return s;
}

class VarCollector : public IRVisitor {
 public:
  using IRVisitor::VisitExpr_;
  void VisitExpr_(const ir::VarNode* op) override {
    PrimVar v = GetRef<PrimVar>(op);
    for (const PrimVar& x : vars) {
      if (x.same_as(v)) return;
    }
    vars.push_back(v);
  }
  std::vector<PrimVar> vars;
};

void CollectVars(const StructInfo& s, VarCollector& c) {
  if (!s.defined()) return;
  auto dims = [&](const std::optional<std::vector<PrimExpr>>& d) {
    if (d) {
      for (const PrimExpr& e : *d) c.VisitExpr(e);
    }
  };
  if (const auto* t = s.as<TensorStructInfoNode>()) dims(t->shape);
  if (const auto* p = s.as<ShapeStructInfoNode>()) dims(p->values);
  if (const auto* p = s.as<PrimStructInfoNode>()) {
    if (p->value.defined()) c.VisitExpr(p->value);
  }
  if (const auto* t = s.as<TupleStructInfoNode>()) {
    for (const StructInfo& f : t->fields) CollectVars(f, c);
  }
  if (const auto* f = s.as<FuncStructInfoNode>()) {
    for (const StructInfo& p : f->params) CollectVars(p, c);
    CollectVars(f->ret, c);
  }
}

bool DimsEqual(const std::optional<std::vector<PrimExpr>>& a,
               const std::optional<std::vector<PrimExpr>>& b) {
  if (a.has_value() != b.has_value()) return false;
  if (!a) return true;
  if (a->size() != b->size()) return false;
  for (size_t i = 0; i < a->size(); ++i) {
    if (!ProveDimEqual((*a)[i], (*b)[i])) return false;
  }
  return true;
}

}  // namespace

std::string StructInfo::ToString() const {
  if (!defined()) return "<undefined>";
  switch (kind()) {
    case StructInfoKind::kObject:
      return "R.Object";
    case StructInfoKind::kPrim: {
      const auto* p = as<PrimStructInfoNode>();
      if (p->value.defined()) return "R.Prim(value=" + DimToString(p->value) + ")";
      return "R.Prim(" + DtypeString(p->dtype) + ")";
    }
    case StructInfoKind::kShape: {
      const auto* p = as<ShapeStructInfoNode>();
      if (p->values) return "R.Shape([" + DimList(*p->values) + "])";
      return "R.Shape(ndim=" + std::to_string(p->ndim) + ")";
    }
    case StructInfoKind::kTensor: {
      const auto* t = as<TensorStructInfoNode>();
      std::string dtype = t->unknown_dtype() ? "" : DtypeString(t->dtype);
      if (t->shape) {
        return "R.Tensor(" + DimsToString(*t->shape) + (dtype.empty() ? "" : ", " + dtype) + ")";
      }
      return "R.Tensor(" + (dtype.empty() ? "" : dtype + ", ") + "ndim=" + std::to_string(t->ndim) +
             ")";
    }
    case StructInfoKind::kTuple: {
      const auto* t = as<TupleStructInfoNode>();
      if (t->fields.empty()) return "R.Tuple";
      std::string s = "R.Tuple(";
      for (size_t i = 0; i < t->fields.size(); ++i) s += (i ? ", " : "") + t->fields[i].ToString();
      return s + ")";
    }
    case StructInfoKind::kFunc: {
      const auto* f = as<FuncStructInfoNode>();
      std::string s = "R.Callable((";
      for (size_t i = 0; i < f->params.size(); ++i) s += (i ? ", " : "") + f->params[i].ToString();
      if (f->params.size() == 1) s += ",";
      return s + "), " + f->ret.ToString() + ")";
    }
  }
  return "?";
}

StructInfo ObjectStructInfo() {
  static const StructInfo kObject(std::make_shared<const ObjectStructInfoNode>());
  return kObject;
}

StructInfo PrimStructInfo(DataType dtype) {
  auto n = std::make_shared<PrimStructInfoNode>();
  n->dtype = dtype;
  return StructInfo(std::move(n));
}

StructInfo PrimStructInfo(const PrimExpr& value) {
  auto n = std::make_shared<PrimStructInfoNode>();
  n->value = SimplifyDim(value);
  n->dtype = n->value.dtype();
  return StructInfo(std::move(n));
}

StructInfo ShapeStructInfo(std::vector<PrimExpr> values) {
  auto n = std::make_shared<ShapeStructInfoNode>();
  n->ndim = static_cast<int>(values.size());
  n->values = SimplifyDims(std::move(values));
  return StructInfo(std::move(n));
}

StructInfo ShapeStructInfo(int ndim) {
  KILN_CHECK(ndim >= kUnknownNDim, ErrorKind::kType,
             "R.Shape: ndim must be >= -1, got " + std::to_string(ndim));
  auto n = std::make_shared<ShapeStructInfoNode>();
  n->ndim = ndim;
  return StructInfo(std::move(n));
}

StructInfo TensorStructInfo(std::vector<PrimExpr> shape, DataType dtype) {
  shape = SimplifyDims(std::move(shape));
  for (size_t i = 0; i < shape.size(); ++i) {
    KILN_CHECK(shape[i].defined(), ErrorKind::kType,
               "R.Tensor: dim " + std::to_string(i) + " is undefined");
    auto v = AsConstInt(shape[i]);
    KILN_CHECK(
        !v || *v >= 0, ErrorKind::kType,
        "R.Tensor: dim " + std::to_string(i) + " of " + DimsToString(shape) + " is negative");
  }
  auto n = std::make_shared<TensorStructInfoNode>();
  n->dtype = dtype;
  n->ndim = static_cast<int>(shape.size());
  n->shape = std::move(shape);
  return StructInfo(std::move(n));
}

StructInfo TensorStructInfo(std::vector<PrimExpr> shape, std::string_view dtype) {
  auto t = DataType::Parse(dtype);
  KILN_CHECK(t.has_value(), ErrorKind::kType,
             "R.Tensor: unknown dtype \"" + std::string(dtype) + "\"");
  return TensorStructInfo(std::move(shape), *t);
}

StructInfo TensorStructInfo(DataType dtype, int ndim) {
  KILN_CHECK(ndim >= kUnknownNDim, ErrorKind::kType,
             "R.Tensor: ndim must be >= -1, got " + std::to_string(ndim));
  auto n = std::make_shared<TensorStructInfoNode>();
  n->dtype = dtype;
  n->ndim = ndim;
  return StructInfo(std::move(n));
}

StructInfo TupleStructInfo(std::vector<StructInfo> fields) {
  auto n = std::make_shared<TupleStructInfoNode>();
  n->fields = std::move(fields);
  return StructInfo(std::move(n));
}

StructInfo FuncStructInfo(std::vector<StructInfo> params, StructInfo ret) {
  auto n = std::make_shared<FuncStructInfoNode>();
  n->params = std::move(params);
  n->ret = std::move(ret);
  return StructInfo(std::move(n));
}

bool StructInfoEqual(const StructInfo& a, const StructInfo& b) {
  if (a.defined() != b.defined()) return false;
  if (!a.defined() || a.same_as(b)) return true;
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case StructInfoKind::kObject:
      return true;
    case StructInfoKind::kPrim: {
      const auto *x = a.as<PrimStructInfoNode>(), *y = b.as<PrimStructInfoNode>();
      if (x->dtype != y->dtype || x->value.defined() != y->value.defined()) return false;
      return !x->value.defined() || ProveDimEqual(x->value, y->value);
    }
    case StructInfoKind::kShape: {
      const auto *x = a.as<ShapeStructInfoNode>(), *y = b.as<ShapeStructInfoNode>();
      return x->ndim == y->ndim && DimsEqual(x->values, y->values);
    }
    case StructInfoKind::kTensor: {
      const auto *x = a.as<TensorStructInfoNode>(), *y = b.as<TensorStructInfoNode>();
      return x->dtype == y->dtype && x->ndim == y->ndim && DimsEqual(x->shape, y->shape);
    }
    case StructInfoKind::kTuple: {
      const auto *x = a.as<TupleStructInfoNode>(), *y = b.as<TupleStructInfoNode>();
      if (x->fields.size() != y->fields.size()) return false;
      for (size_t i = 0; i < x->fields.size(); ++i) {
        if (!StructInfoEqual(x->fields[i], y->fields[i])) return false;
      }
      return true;
    }
    case StructInfoKind::kFunc: {
      const auto *x = a.as<FuncStructInfoNode>(), *y = b.as<FuncStructInfoNode>();
      if (x->params.size() != y->params.size() || !StructInfoEqual(x->ret, y->ret)) return false;
      for (size_t i = 0; i < x->params.size(); ++i) {
        if (!StructInfoEqual(x->params[i], y->params[i])) return false;
      }
      return true;
    }
  }
  return false;
}

bool StructInfoStructuralEqual(const StructInfo& a, const StructInfo& b) {
  CanonicalStream ca, cb;
  ca.AddStructInfo(a);
  cb.AddStructInfo(b);
  return ca.tokens() == cb.tokens();
}

uint64_t StructInfoStructuralHash(const StructInfo& s) {
  CanonicalStream c;
  c.AddStructInfo(s);
  return c.Hash();
}

bool CanMatch(const StructInfo& pattern, const StructInfo& value) {
  if (!pattern.defined() || !value.defined()) return true;
  if (pattern.kind() == StructInfoKind::kObject || value.kind() == StructInfoKind::kObject) {
    return true;
  }
  if (pattern.kind() != value.kind()) return false;
  auto dims_can_match = [](const std::optional<std::vector<PrimExpr>>& p,
                           const std::optional<std::vector<PrimExpr>>& v) {
    if (!p || !v) return true;
    if (p->size() != v->size()) return false;
    for (size_t i = 0; i < p->size(); ++i) {
      if (ProveDimNotEqual((*p)[i], (*v)[i])) return false;
    }
    return true;
  };
  auto ndim_can_match = [](int p, int v) {
    return p == kUnknownNDim || v == kUnknownNDim || p == v;
  };
  switch (pattern.kind()) {
    case StructInfoKind::kTensor: {
      const auto *p = pattern.as<TensorStructInfoNode>(), *v = value.as<TensorStructInfoNode>();
      if (!p->unknown_dtype() && !v->unknown_dtype() && p->dtype != v->dtype) return false;
      return ndim_can_match(p->ndim, v->ndim) && dims_can_match(p->shape, v->shape);
    }
    case StructInfoKind::kShape: {
      const auto *p = pattern.as<ShapeStructInfoNode>(), *v = value.as<ShapeStructInfoNode>();
      return ndim_can_match(p->ndim, v->ndim) && dims_can_match(p->values, v->values);
    }
    case StructInfoKind::kPrim: {
      const auto *p = pattern.as<PrimStructInfoNode>(), *v = value.as<PrimStructInfoNode>();
      if (p->dtype != v->dtype) return false;
      return !p->value.defined() || !v->value.defined() || !ProveDimNotEqual(p->value, v->value);
    }
    case StructInfoKind::kTuple: {
      const auto *p = pattern.as<TupleStructInfoNode>(), *v = value.as<TupleStructInfoNode>();
      if (p->fields.size() != v->fields.size()) return false;
      for (size_t i = 0; i < p->fields.size(); ++i) {
        if (!CanMatch(p->fields[i], v->fields[i])) return false;
      }
      return true;
    }
    default:
      return true;
  }
}

std::vector<PrimVar> SymbolicVars(const StructInfo& s) {
  VarCollector c;
  CollectVars(s, c);
  return c.vars;
}

}  // namespace kiln::ir::relax
