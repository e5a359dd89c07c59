// Shared pieces of op struct info inference.
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax::op_util {

void Fail(const OpCall& call, const std::string& message) { Fail(call.op, message); }

void Fail(const std::string& op, const std::string& message) {
  throw Error(ErrorKind::kType, op + ": " + message);
}

const TensorStructInfoNode* TensorArg(const OpCall& call, size_t i) {
  const StructInfo& s = call.args.at(i).struct_info();
  const auto* t = s.as<TensorStructInfoNode>();
  if (t == nullptr) {
    Fail(call, "argument " + std::to_string(i) + " must be a tensor, got " + s.ToString());
  }
  return t;
}

const ShapeStructInfoNode* ShapeArg(const OpCall& call, size_t i) {
  const StructInfo& s = call.args.at(i).struct_info();
  const auto* t = s.as<ShapeStructInfoNode>();
  if (t == nullptr) {
    Fail(call, "argument " + std::to_string(i) + " must be a shape, got " + s.ToString());
  }
  return t;
}

const std::optional<std::vector<PrimExpr>>& ShapeOf(const OpCall& call, size_t i) {
  return TensorArg(call, i)->shape;
}

int NormalizeAxis(const OpCall& call, int64_t axis, int ndim) {
  if (axis < -ndim || axis >= ndim) {
    Fail(call, "axis " + std::to_string(axis) + " is out of range for a " + std::to_string(ndim) +
                   "-D tensor");
  }
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> NormalizeAxes(const OpCall& call, const std::vector<int64_t>& axes, int ndim) {
  std::vector<int> out;
  std::vector<bool> seen(ndim, false);
  for (int64_t a : axes) {
    int n = NormalizeAxis(call, a, ndim);
    if (seen[n]) Fail(call, "axis " + std::to_string(a) + " is repeated in " + IntsToString(axes));
    seen[n] = true;
    out.push_back(n);
  }
  return out;
}

DataType CommonDType(const OpCall& call, DataType a, DataType b) {
  if (a.is_void() || b.is_void()) return DataType::Void();
  if (a != b) Fail(call, "dtypes differ: " + a.ToString() + " vs " + b.ToString());
  return a;
}

void RequireFloat(const OpCall& call, const TensorStructInfoNode* t, size_t arg) {
  if (!t->unknown_dtype() && !t->dtype.is_float()) {
    Fail(call,
         "argument " + std::to_string(arg) + " must be a float tensor, got " + t->dtype.ToString());
  }
}

std::optional<std::vector<PrimExpr>> BroadcastShapes(const OpCall& call,
                                                     const std::vector<PrimExpr>& a,
                                                     const std::vector<PrimExpr>& b) {
  size_t n = std::max(a.size(), b.size());
  std::vector<PrimExpr> out(n);
  bool known = true;
  for (size_t i = 0; i < n; ++i) {
    // Aligned from the right, as numpy does.
    size_t ia = i + a.size(), ib = i + b.size();
    bool has_a = ia >= n, has_b = ib >= n;
    if (!has_a) {
      out[i] = b[ib - n];
      continue;
    }
    if (!has_b) {
      out[i] = a[ia - n];
      continue;
    }
    const PrimExpr& x = a[ia - n];
    const PrimExpr& y = b[ib - n];
    if (ProveDimEqual(x, y) || IsConstInt(y, 1)) {
      out[i] = x;
    } else if (IsConstInt(x, 1)) {
      out[i] = y;
    } else if (AsConstInt(x) && AsConstInt(y)) {
      Fail(call, "cannot broadcast dims " + DimsToString(a) + " and " + DimsToString(b) + ": dim " +
                     std::to_string(i) + " is " + DimToString(x) + " vs " + DimToString(y));
    } else if (ProveDimNotEqual(x, y)) {
      Fail(call, "cannot broadcast dims " + DimsToString(a) + " and " + DimsToString(b) + ": dim " +
                     std::to_string(i) + " is " + DimToString(x) + " vs " + DimToString(y) +
                     ", which differ");
    } else {
      known = false;
    }
  }
  if (!known) return std::nullopt;
  return out;
}

StructInfo MakeTensor(const std::optional<std::vector<PrimExpr>>& shape, int ndim, DataType dtype) {
  if (shape) return TensorStructInfo(*shape, dtype);
  return TensorStructInfo(dtype, ndim);
}

std::string IntsToString(const std::vector<int64_t>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

std::vector<int64_t> IntsOfLength(const OpCall& call, const std::string& name, size_t n) {
  std::vector<int64_t> v = call.attrs.GetInts(name);
  if (v.size() == 1 && n > 1) v.assign(n, v[0]);
  if (v.size() != n) {
    Fail(call, "attribute '" + name + "' needs " + std::to_string(n) + " values, got " +
                   IntsToString(call.attrs.GetInts(name)));
  }
  return v;
}

}  // namespace kiln::ir::relax::op_util
