// Index arithmetic shared by the legalization rules.
#include "ir/relax/transform/legalize/compute_util.h"

#include <algorithm>

#include "ir/relax/dim.h"

namespace kiln::ir::relax::legalize {

ir::Expr I64(int64_t value) { return ir::IntImm(DataType::Int(64), value); }

ir::Expr CastTo(DataType dtype, const ir::Expr& e) {
  if (e.dtype() == dtype) return e;
  if (auto v = AsConstInt(e); v && !dtype.is_bool()) {
    return ir::MakeConst(dtype, static_cast<double>(*v));
  }
  return ir::Cast(dtype, e);
}

ir::Expr AddConst(const ir::Expr& e, int64_t c) {
  if (c == 0) return e;
  if (auto v = AsConstInt(e)) return ir::IntImm(e.dtype(), *v + c);
  return c > 0 ? e + I64(c) : e - I64(-c);
}

ir::Expr MulConst(const ir::Expr& e, int64_t c) {
  if (c == 1) return e;
  if (auto v = AsConstInt(e)) return ir::IntImm(e.dtype(), *v * c);
  return e * I64(c);
}

std::vector<ir::Expr> AsExprs(const std::vector<ir::Var>& vars) {
  return std::vector<ir::Expr>(vars.begin(), vars.end());
}

std::vector<ir::Expr> BroadcastIndices(const Tensor& input, const std::vector<ir::Expr>& out,
                                       const std::vector<ir::Expr>& out_shape) {
  return BroadcastIndices(input.shape(), out, out_shape);
}

std::vector<ir::Expr> BroadcastIndices(const std::vector<ir::Expr>& shape,
                                       const std::vector<ir::Expr>& out,
                                       const std::vector<ir::Expr>& out_shape) {
  size_t offset = out.size() - shape.size();
  std::vector<ir::Expr> index;
  for (size_t d = 0; d < shape.size(); ++d) {
    const ir::Expr& want = out_shape[offset + d];
    if (ProveDimEqual(shape[d], want)) {
      index.push_back(out[offset + d]);
    } else if (IsConstInt(shape[d], 1)) {
      index.push_back(I64(0));
    } else {
      // Neither provably equal nor 1: which one it is shows only at run time.
      index.push_back(ir::Select(shape[d] == I64(1), I64(0), out[offset + d]));
    }
  }
  return index;
}

ir::Expr Ravel(const std::vector<ir::Expr>& index, const std::vector<ir::Expr>& shape) {
  ir::Expr flat = I64(0);
  bool first = true;
  for (size_t d = 0; d < index.size(); ++d) {
    if (first) {
      flat = index[d];
      first = false;
    } else if (IsConstInt(shape[d], 1)) {
      continue;
    } else {
      flat = flat * shape[d] + index[d];
    }
  }
  return flat;
}

std::vector<ir::Expr> Unravel(const ir::Expr& flat, const std::vector<ir::Expr>& shape) {
  std::vector<ir::Expr> index(shape.size());
  ir::Expr rest = flat;
  for (size_t k = shape.size(); k-- > 0;) {
    if (IsConstInt(shape[k], 1)) {
      index[k] = I64(0);
    } else if (k == 0) {
      index[k] = rest;
    } else {
      index[k] = ir::FloorMod(rest, shape[k]);
      rest = ir::FloorDiv(rest, shape[k]);
    }
  }
  return index;
}

ir::Expr ClampIndex(const ir::Expr& index, const ir::Expr& extent) {
  auto c = AsConstInt(extent);
  ir::Expr last = c ? I64(*c - 1) : extent - I64(1);
  return ir::Max(ir::Min(index, last), I64(0));
}

int NormalizeAxis(const LegalizeContext& ctx, int64_t axis, int ndim) {
  KILN_CHECK(axis >= -ndim && axis < ndim, ErrorKind::kType,
             ctx.op() + ": axis " + std::to_string(axis) + " is out of range for a " +
                 std::to_string(ndim) + "-D tensor");
  return static_cast<int>(axis < 0 ? axis + ndim : axis);
}

std::vector<int> ReduceAxesAttr(const LegalizeContext& ctx, const std::string& name, int ndim) {
  std::vector<int> axes;
  if (auto given = ctx.attrs().GetOptionalInts(name)) {
    for (int64_t a : *given) axes.push_back(NormalizeAxis(ctx, a, ndim));
  } else {
    for (int d = 0; d < ndim; ++d) axes.push_back(d);
  }
  std::sort(axes.begin(), axes.end());
  axes.erase(std::unique(axes.begin(), axes.end()), axes.end());
  return axes;
}

std::string StageName(const std::string& base) { return "T_" + base; }

}  // namespace kiln::ir::relax::legalize
