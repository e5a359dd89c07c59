// SparseTIR's declarations and iterations in TVMScript text.
#include "ir/text/print_sparse.h"

#include "ir/arith/expr_compare.h"
#include "ir/text/print_util.h"

namespace kiln::ir {

std::unordered_set<const void*> SparseHandleParams(const PrimFuncNode& f) {
  std::unordered_set<const void*> out;
  for (const SparseBuffer& sb : f.sp_buffers) {
    if (sb.param.defined()) out.insert(sb.param.get());
  }
  std::unordered_set<const void*> seen;  // only the first axis to name a buffer made it
  auto implicit = [&](const Buffer& b, DataType idtype, const Expr& extent) {
    if (!b.defined() || !seen.insert(b.get()).second) return;
    const bool zero_offset = b->elem_offset.as<IntImmNode>() &&
                             b->elem_offset.dtype() == DataType::Int(32) &&
                             IsConstInt(b->elem_offset, 0);
    if (b->dtype != idtype || b.ndim() != 1 || !b->strides.empty() || b->scope != "global" ||
        b->align != 0 || !zero_offset || !arith::ExprDeepEqual(b->shape[0], extent)) {
      return;
    }
    for (const auto& [param, buffer] : f.buffer_map) {
      if (buffer.same_as(b) && b->data.defined() && b->data->name == param->name) {
        out.insert(param.get());
      }
    }
  };
  for (const Axis& axis : f.sp_axes) {
    if (!axis.parent().defined()) continue;
    Expr rows = NumPositions(axis.parent());
    if (axis->indptr.defined()) implicit(axis->indptr, axis->idtype, rows + 1);
    if (axis->kind == AxisKind::kSparseFixed) {
      implicit(axis->indices, axis->idtype, rows * axis->nnz);
    } else if (axis->indices.defined()) {
      implicit(axis->indices, axis->idtype, axis->nnz);
    }
  }
  return out;
}

std::string AxisDeclArgs(const Axis& axis, const AxisDeclNames& names) {
  std::string args;
  if (axis->kind == AxisKind::kDenseFixed) {
    args = names.expr(axis->length);
  } else {
    args = names.axis(axis.parent()) + ", (" + names.expr(axis->length) + ", " +
           names.expr(axis->nnz) + "), ";
    switch (axis->kind) {
      case AxisKind::kDenseVariable:
        args += names.buffer(axis->indptr);
        break;
      case AxisKind::kSparseFixed:
        args += names.buffer(axis->indices);
        break;
      default:
        args += "(" + names.buffer(axis->indptr) + ", " + names.buffer(axis->indices) + ")";
    }
  }
  if (axis->idtype != DataType::Int(32)) args += ", idtype=" + QuoteString(axis->idtype.ToString());
  if (axis.is_sparse() && !axis->sorted) args += ", sorted=False";
  return args;
}

std::string SpIterAxes(const SparseIterationNode& op,
                       const std::function<std::string(const Axis&)>& axis_name) {
  std::string axes;
  std::string kinds;
  for (size_t i = 0; i < op.iter_vars.size(); ++i) {
    const SpIterVar& iv = op.iter_vars[i];
    bool fused = iv.fuse_group >= 0;
    bool opens = fused && (i == 0 || op.iter_vars[i - 1].fuse_group != iv.fuse_group);
    bool closes =
        fused && (i + 1 == op.iter_vars.size() || op.iter_vars[i + 1].fuse_group != iv.fuse_group);
    if (i > 0) axes += ", ";
    if (opens) axes += "T.fuse(";
    axes += iv.attach.defined()
                ? "T.attach(" + axis_name(iv.axis) + ", " + axis_name(iv.attach) + ")"
                : axis_name(iv.axis);
    if (closes) axes += ")";
    kinds += iv.is_reduction ? 'R' : 'S';
  }
  return "[" + axes + "], " + QuoteString(kinds);
}

}  // namespace kiln::ir
