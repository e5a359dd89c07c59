// Shape variable bindings, dim evaluation and run-time struct info checks.
#include "ir/relax/exec/shape_env.h"

#include <cmath>
#include <limits>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"

namespace kiln::ir::relax::exec {

namespace {

// Replaces bound shape variables by immediates; an unbound one is an error.
class DimEvaluator : public IRMutator {
 public:
  explicit DimEvaluator(const std::unordered_map<const ir::VarNode*, int64_t>& values)
      : values_(values) {}
  using IRMutator::VisitExpr_;
  PrimExpr VisitExpr_(const ir::VarNode* op) override {
    auto it = values_.find(op);
    if (it == values_.end()) {
      throw Error(ErrorKind::kRuntime, "shape variable " + op->name + " is not bound");
    }
    return IntImm(op->dtype, it->second);
  }

 private:
  const std::unordered_map<const ir::VarNode*, int64_t>& values_;
};

std::string DimsText(const std::vector<int64_t>& dims) {
  std::string s = "(";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
  return s + (dims.size() == 1 ? ",)" : ")");
}

// Pass 1: binds the unbound plain-variable dims of `pattern` from `actual`.
void BindDims(const std::vector<PrimExpr>& pattern, const std::vector<int64_t>& actual,
              ShapeEnv& env) {
  if (pattern.size() != actual.size()) return;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i].as<ir::VarNode>() == nullptr) continue;
    PrimVar v(pattern[i].ptr());
    if (!env.Lookup(v)) env.Bind(v, actual[i]);
  }
}

// Pass 2: every dim evaluates to the actual one.
std::string CompareDims(const std::vector<PrimExpr>& pattern, const std::vector<int64_t>& actual,
                        const ShapeEnv& env) {
  if (pattern.size() != actual.size()) {
    return "rank is " + std::to_string(actual.size()) + ", expected " +
           std::to_string(pattern.size());
  }
  for (size_t i = 0; i < pattern.size(); ++i) {
    int64_t want = env.Eval(pattern[i]);
    if (want == actual[i]) continue;
    std::string expected = std::to_string(want);
    if (!pattern[i].as<IntImmNode>()) expected = DimToString(pattern[i]) + " = " + expected;
    return "dim " + std::to_string(i) + " is " + std::to_string(actual[i]) + ", expected " +
           expected;
  }
  return "";
}

void BindPass(const StructInfo& sinfo, const Value& value, ShapeEnv& env) {
  if (!sinfo.defined() || !value.defined()) return;
  switch (sinfo.kind()) {
    case StructInfoKind::kTensor: {
      const auto* t = sinfo.as<TensorStructInfoNode>();
      if (value.is_tensor() && t->shape) BindDims(*t->shape, value.tensor().shape(), env);
      return;
    }
    case StructInfoKind::kShape: {
      const auto* s = sinfo.as<ShapeStructInfoNode>();
      if (value.is_shape() && s->values) BindDims(*s->values, value.shape(), env);
      return;
    }
    case StructInfoKind::kPrim: {
      const auto* p = sinfo.as<PrimStructInfoNode>();
      if (value.is_prim() && p->value.defined() && !value.prim().dtype.is_float()) {
        BindDims({p->value}, {value.prim().int_value}, env);
      }
      return;
    }
    case StructInfoKind::kTuple: {
      const auto* t = sinfo.as<TupleStructInfoNode>();
      if (!value.is_tuple()) return;
      for (size_t i = 0; i < t->fields.size() && i < value.fields().size(); ++i) {
        BindPass(t->fields[i], value.fields()[i], env);
      }
      return;
    }
    default:
      return;
  }
}

std::string ComparePass(const StructInfo& sinfo, const Value& value, const ShapeEnv& env) {
  if (!sinfo.defined()) return "";
  auto kind_mismatch = [&](const char* wanted) {
    return std::string("expected a ") + wanted + ", got a " + ValueKindName(value.kind());
  };
  switch (sinfo.kind()) {
    case StructInfoKind::kObject:
      return "";
    case StructInfoKind::kFunc:
      return "a function value was expected";
    case StructInfoKind::kTensor: {
      if (!value.is_tensor()) return kind_mismatch("tensor");
      const auto* t = sinfo.as<TensorStructInfoNode>();
      const HostTensor& x = value.tensor();
      if (!t->unknown_dtype() && t->dtype != x.dtype()) {
        return "dtype is " + x.dtype().ToString() + ", expected " + t->dtype.ToString();
      }
      if (!t->unknown_ndim() && static_cast<size_t>(t->ndim) != x.shape().size()) {
        return "rank is " + std::to_string(x.shape().size()) + ", expected " +
               std::to_string(t->ndim);
      }
      return t->shape ? CompareDims(*t->shape, x.shape(), env) : "";
    }
    case StructInfoKind::kShape: {
      if (!value.is_shape()) return kind_mismatch("shape");
      const auto* s = sinfo.as<ShapeStructInfoNode>();
      if (s->ndim != kUnknownNDim && static_cast<size_t>(s->ndim) != value.shape().size()) {
        return "rank is " + std::to_string(value.shape().size()) + ", expected " +
               std::to_string(s->ndim);
      }
      return s->values ? CompareDims(*s->values, value.shape(), env) : "";
    }
    case StructInfoKind::kPrim: {
      if (!value.is_prim()) return kind_mismatch("scalar");
      const auto* p = sinfo.as<PrimStructInfoNode>();
      const PrimScalar& x = value.prim();
      if (p->dtype != x.dtype) {
        return "dtype is " + x.dtype.ToString() + ", expected " + p->dtype.ToString();
      }
      if (p->value.defined() && !x.dtype.is_float()) {
        int64_t want = env.Eval(p->value);
        if (want != x.int_value) {
          return "value is " + std::to_string(x.int_value) + ", expected " + DimToString(p->value) +
                 " = " + std::to_string(want);
        }
      }
      return "";
    }
    case StructInfoKind::kTuple: {
      if (!value.is_tuple()) return kind_mismatch("tuple");
      const auto* t = sinfo.as<TupleStructInfoNode>();
      if (t->fields.size() != value.fields().size()) {
        return "the tuple has " + std::to_string(value.fields().size()) + " fields, expected " +
               std::to_string(t->fields.size());
      }
      for (size_t i = 0; i < t->fields.size(); ++i) {
        std::string why = ComparePass(t->fields[i], value.fields()[i], env);
        if (!why.empty()) return "field " + std::to_string(i) + ": " + why;
      }
      return "";
    }
  }
  return "";
}

}  // namespace

std::optional<int64_t> ShapeEnv::Lookup(const PrimVar& var) const {
  auto it = values_.find(var.get());
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

void ShapeEnv::Bind(const PrimVar& var, int64_t value) {
  KILN_CHECK(var.defined() && var.dtype().is_int(), ErrorKind::kInternal,
             "ShapeEnv::Bind: a shape variable must be an integer variable");
  bool added = values_.emplace(var.get(), value).second;
  KILN_CHECK(added, ErrorKind::kInternal,
             "ShapeEnv::Bind: shape variable " + var.name() + " is bound twice");
  order_.push_back(var);
}

int64_t ShapeEnv::Eval(const PrimExpr& dim) const {
  if (auto c = AsConstInt(dim)) return *c;
  PrimExpr folded = arith::ConstantFold(DimEvaluator(values_).VisitExpr(dim));
  auto value = AsConstInt(folded);
  if (!value) {
    throw Error(ErrorKind::kRuntime, "the dim " + DimToString(dim) +
                                         " does not evaluate to an integer (" +
                                         DimToString(folded) + ")");
  }
  return *value;
}

std::vector<int64_t> ShapeEnv::Eval(const std::vector<PrimExpr>& dims) const {
  std::vector<int64_t> out;
  out.reserve(dims.size());
  for (const PrimExpr& d : dims) out.push_back(Eval(d));
  return out;
}

void BindValue(const StructInfo& sinfo, const Value& value, ShapeEnv& env) {
  BindPass(sinfo, value, env);
}

std::string CheckValue(const StructInfo& sinfo, const Value& value, const ShapeEnv& env) {
  try {
    return ComparePass(sinfo, value, env);
  } catch (const Error& e) {
    return e.what();
  }
}

std::string MatchValue(const StructInfo& sinfo, const Value& value, ShapeEnv& env) {
  BindValue(sinfo, value, env);
  return CheckValue(sinfo, value, env);
}

HostTensor AllocateOutput(const StructInfo& sinfo, const ShapeEnv& env) {
  const auto* t = sinfo.as<TensorStructInfoNode>();
  KILN_CHECK(t != nullptr && !t->unknown_dtype() && t->shape.has_value(), ErrorKind::kRuntime,
             "an output must be a tensor of known shape and dtype, got " + sinfo.ToString());
  std::vector<int64_t> shape = env.Eval(*t->shape);
  for (size_t i = 0; i < shape.size(); ++i) {
    KILN_CHECK(shape[i] >= 0, ErrorKind::kRuntime,
               "output " + sinfo.ToString() + " has the negative shape " + DimsText(shape));
  }
  HostTensor out(t->dtype, std::move(shape));
  for (int64_t i = 0; i < out.numel() * t->dtype.lanes(); ++i) {
    if (t->dtype.is_float()) {
      out.SetDouble(i, std::numeric_limits<double>::quiet_NaN());
    } else if (!t->dtype.is_bool()) {
      out.SetInt(i, static_cast<int64_t>(0xA5A5A5A5A5A5A5A5ULL));
    }
  }
  return out;
}

}  // namespace kiln::ir::relax::exec
