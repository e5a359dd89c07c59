// Shape manipulation: reshape (with -1 inferred over symbolic dims), permute_dims, flatten,
// squeeze, expand_dims, concat, split (into a tuple), strided_slice, take, gather_elements,
// gather_nd, broadcast_to, tile.
#include <algorithm>
#include <limits>
#include <numeric>

#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

StructInfo InferReshape(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const ShapeStructInfoNode* target = ShapeArg(call, 1);
  if (!target->values) return TensorStructInfo(x->dtype, target->ndim);
  std::vector<PrimExpr> dims = *target->values;
  int infer_at = -1;
  for (size_t i = 0; i < dims.size(); ++i) {
    auto v = AsConstInt(dims[i]);
    if (!v || *v >= 0) continue;
    if (*v != -1)
      Fail(call, "dim " + std::to_string(i) + " of " + DimsToString(dims) + " is negative");
    if (infer_at >= 0) Fail(call, "more than one -1 in " + DimsToString(dims));
    infer_at = static_cast<int>(i);
  }
  if (!x->shape) {
    if (infer_at >= 0) return TensorStructInfo(x->dtype, static_cast<int>(dims.size()));
    return TensorStructInfo(dims, x->dtype);
  }
  PrimExpr total = DimProduct(*x->shape);
  std::vector<PrimExpr> known;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (static_cast<int>(i) != infer_at) known.push_back(dims[i]);
  }
  PrimExpr known_total = DimProduct(known);
  auto fail = [&] {
    Fail(call, DimToString(total) + " elements cannot become " + DimsToString(dims) + " (input " +
                   DimsToString(*x->shape) + ")");
  };
  if (infer_at < 0) {
    if (ProveDimNotEqual(total, known_total)) fail();
    return TensorStructInfo(dims, x->dtype);
  }
  if (IsConstInt(known_total, 0)) fail();
  std::optional<PrimExpr> inferred = DivideDimExact(total, known_total);
  if (!inferred) {
    if (AsConstInt(total) && AsConstInt(known_total)) fail();
    inferred = FloorDiv(total, known_total);
  }
  dims[infer_at] = *inferred;
  return TensorStructInfo(dims, x->dtype);
}

StructInfo InferPermuteDims(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  auto axes = call.attrs.GetOptionalInts("axes");
  if (x->unknown_ndim()) {
    return TensorStructInfo(x->dtype, axes ? static_cast<int>(axes->size()) : kUnknownNDim);
  }
  std::vector<int> perm;
  if (axes) {
    if (static_cast<int>(axes->size()) != x->ndim) {
      Fail(call, "axes " + IntsToString(*axes) + " do not permute a " + std::to_string(x->ndim) +
                     "-D tensor");
    }
    perm = NormalizeAxes(call, *axes, x->ndim);
  } else {
    for (int i = x->ndim - 1; i >= 0; --i) perm.push_back(i);
  }
  if (!x->shape) return TensorStructInfo(x->dtype, x->ndim);
  std::vector<PrimExpr> out;
  for (int a : perm) out.push_back((*x->shape)[a]);
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferFlatten(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  if (x->unknown_ndim()) return TensorStructInfo(x->dtype, kUnknownNDim);
  if (x->ndim == 0) return TensorStructInfo({DimConst(1)}, x->dtype);
  int start = NormalizeAxis(call, call.attrs.GetInt("start_axis"), x->ndim);
  int end = NormalizeAxis(call, call.attrs.GetInt("end_axis"), x->ndim);
  if (start > end) {
    Fail(call, "start_axis " + std::to_string(start) + " is after end_axis " + std::to_string(end));
  }
  if (!x->shape) return TensorStructInfo(x->dtype, x->ndim - (end - start));
  const std::vector<PrimExpr>& xs = *x->shape;
  std::vector<PrimExpr> out(xs.begin(), xs.begin() + start);
  out.push_back(DimProduct(std::vector<PrimExpr>(xs.begin() + start, xs.begin() + end + 1)));
  out.insert(out.end(), xs.begin() + end + 1, xs.end());
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferSqueeze(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  auto axes = call.attrs.GetOptionalInts("axis");
  if (x->unknown_ndim()) return TensorStructInfo(x->dtype, kUnknownNDim);
  std::vector<bool> drop(x->ndim, false);
  if (axes) {
    for (int a : NormalizeAxes(call, *axes, x->ndim)) {
      if (x->shape && ProveDimNotEqual((*x->shape)[a], DimConst(1))) {
        Fail(call, "dim " + std::to_string(a) + " is " + DimToString((*x->shape)[a]) +
                       ", not 1 (shape " + DimsToString(*x->shape) + ")");
      }
      drop[a] = true;
    }
  } else if (x->shape) {
    // Only dims known to be 1 go; a symbolic dim stays, as it may not be 1 at run time.
    for (int i = 0; i < x->ndim; ++i) drop[i] = IsConstInt((*x->shape)[i], 1);
  } else {
    return TensorStructInfo(x->dtype, kUnknownNDim);
  }
  int out_ndim = static_cast<int>(std::count(drop.begin(), drop.end(), false));
  if (!x->shape) return TensorStructInfo(x->dtype, out_ndim);
  std::vector<PrimExpr> out;
  for (int i = 0; i < x->ndim; ++i) {
    if (!drop[i]) out.push_back((*x->shape)[i]);
  }
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferExpandDims(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const std::vector<int64_t>& axes = call.attrs.GetInts("axis");
  if (x->unknown_ndim()) return TensorStructInfo(x->dtype, kUnknownNDim);
  int out_ndim = x->ndim + static_cast<int>(axes.size());
  std::vector<bool> inserted(out_ndim, false);
  for (int a : NormalizeAxes(call, axes, out_ndim)) inserted[a] = true;
  if (!x->shape) return TensorStructInfo(x->dtype, out_ndim);
  std::vector<PrimExpr> out;
  size_t next = 0;
  for (int i = 0; i < out_ndim; ++i) out.push_back(inserted[i] ? DimConst(1) : (*x->shape)[next++]);
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferConcat(const OpCall& call) {
  const auto* tuple = call.args[0].struct_info().as<TupleStructInfoNode>();
  if (tuple == nullptr) {
    Fail(call, "expects a tuple of tensors, got " + call.args[0].struct_info().ToString());
  }
  if (tuple->fields.empty()) Fail(call, "needs at least one tensor");
  std::vector<const TensorStructInfoNode*> inputs;
  for (size_t i = 0; i < tuple->fields.size(); ++i) {
    const auto* t = tuple->fields[i].as<TensorStructInfoNode>();
    if (t == nullptr) {
      Fail(call, "input " + std::to_string(i) + " is not a tensor: " + tuple->fields[i].ToString());
    }
    inputs.push_back(t);
  }
  DataType dtype = inputs[0]->dtype;
  int ndim = kUnknownNDim;
  for (size_t i = 0; i < inputs.size(); ++i) {
    dtype = CommonDType(call, dtype, inputs[i]->dtype);
    if (inputs[i]->unknown_ndim()) continue;
    if (ndim != kUnknownNDim && ndim != inputs[i]->ndim) {
      Fail(call, "input " + std::to_string(i) + " is " + std::to_string(inputs[i]->ndim) +
                     "-D, input 0 is " + std::to_string(ndim) + "-D");
    }
    ndim = inputs[i]->ndim;
  }
  if (ndim == kUnknownNDim) return TensorStructInfo(dtype, kUnknownNDim);
  int axis = NormalizeAxis(call, call.attrs.GetInt("axis"), ndim);
  std::vector<PrimExpr> out;
  std::vector<PrimExpr> along;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i]->shape) return TensorStructInfo(dtype, ndim);
    const std::vector<PrimExpr>& s = *inputs[i]->shape;
    if (i == 0) out = s;
    for (int d = 0; d < ndim; ++d) {
      if (d != axis && ProveDimNotEqual(s[d], out[d])) {
        Fail(call, "dim " + std::to_string(d) + " of input " + std::to_string(i) + " is " +
                       DimToString(s[d]) + ", input 0 has " + DimToString(out[d]) + " (shapes " +
                       DimsToString(out) + " and " + DimsToString(s) + ")");
      }
    }
    along.push_back(s[axis]);
  }
  PrimExpr sum = DimConst(0);
  for (const PrimExpr& d : along) sum = sum + d;
  out[axis] = sum;
  return TensorStructInfo(out, dtype);
}

StructInfo InferSplit(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  // TVM's indices_or_sections: an int is a number of equal sections, a list split indices.
  const AttrValue& what = *call.attrs.Find("indices_or_sections");
  bool has_sections = TypeOf(what) == AttrType::kInt;
  if (x->unknown_ndim()) Fail(call, "needs a tensor of known rank");
  int axis = NormalizeAxis(call, call.attrs.GetInt("axis"), x->ndim);
  std::vector<PrimExpr> parts;
  PrimExpr dim = x->shape ? (*x->shape)[axis] : PrimExpr();
  if (has_sections) {
    int64_t n = call.attrs.GetInt("indices_or_sections");
    if (n < 1) {
      Fail(call, "indices_or_sections as a number of sections must be positive, got " +
                     std::to_string(n));
    }
    if (dim.defined()) {
      if (auto exact = DivideDimExact(dim, DimConst(n))) {
        parts.assign(n, *exact);
      } else if (AsConstInt(dim)) {
        Fail(call, "dim " + DimToString(dim) + " is not divisible into " + std::to_string(n) +
                       " sections");
      } else {
        // Like numpy's array_split: ceil-sized parts, the last one takes the rest.
        PrimExpr part = FloorDiv(dim + DimConst(n - 1), DimConst(n));
        parts.assign(n - 1, part);
        parts.push_back(dim - part * DimConst(n - 1));
      }
    } else {
      parts.assign(n, PrimExpr());
    }
  } else {
    const std::vector<int64_t>& idx = call.attrs.GetInts("indices_or_sections");
    int64_t prev = 0;
    for (size_t i = 0; i < idx.size(); ++i) {
      if (idx[i] < prev) Fail(call, "indices " + IntsToString(idx) + " must be increasing");
      auto d = dim.defined() ? AsConstInt(dim) : std::nullopt;
      if (d && idx[i] > *d) {
        Fail(call, "index " + std::to_string(idx[i]) + " is past dim " + std::to_string(*d));
      }
      parts.push_back(DimConst(idx[i] - prev));
      prev = idx[i];
    }
    parts.push_back(dim.defined() ? dim - DimConst(prev) : PrimExpr());
  }
  std::vector<StructInfo> fields;
  for (const PrimExpr& p : parts) {
    if (!x->shape || !p.defined()) {
      fields.push_back(TensorStructInfo(x->dtype, x->ndim));
      continue;
    }
    std::vector<PrimExpr> s = *x->shape;
    s[axis] = p;
    fields.push_back(TensorStructInfo(s, x->dtype));
  }
  return TupleStructInfo(fields);
}

// Length of python's range(dim)[begin:end:stride] for a constant dim.
int64_t SliceLength(int64_t dim, int64_t begin, int64_t end, int64_t stride) {
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v += dim;
    return std::clamp(v, lo, hi);
  };
  int64_t b, e;
  if (stride > 0) {
    b = clamp(begin, 0, dim);
    e = clamp(end, 0, dim);
    return e > b ? (e - b + stride - 1) / stride : 0;
  }
  b = clamp(begin, -1, dim - 1);
  e = clamp(end, -1, dim - 1);
  return b > e ? (b - e - stride - 1) / -stride : 0;
}

// The same for a symbolic dim, assuming begin and end fall inside it (as exported models'
// slices do); ends at or past INT32_MAX mean "to the end".
PrimExpr SymbolicSliceLength(const PrimExpr& dim, int64_t begin, int64_t end, int64_t stride) {
  constexpr int64_t kToEnd = std::numeric_limits<int32_t>::max();
  auto bound = [&](int64_t v) { return v < 0 ? dim + DimConst(v) : DimConst(v); };
  if (stride > 0) {
    PrimExpr b = bound(begin);
    PrimExpr e = end >= kToEnd ? dim : bound(end);
    return FloorDiv(e - b + DimConst(stride - 1), DimConst(stride));
  }
  PrimExpr b = begin >= kToEnd ? dim - DimConst(1) : bound(begin);
  PrimExpr e = end <= -kToEnd ? DimConst(-1) : bound(end);
  return FloorDiv(b - e + DimConst(-stride - 1), DimConst(-stride));
}

// Whether lo <= hi provably: by the dims' analysis, or because lo is min(x, hi) or hi is
// max(x, lo), the forms clamped slice bounds take (which the analysis leaves open).
bool ProveDimAtMost(const PrimExpr& lo, const PrimExpr& hi) {
  if (const auto* m = lo.as<MinNode>()) {
    if (ProveDimEqual(m->a, hi) || ProveDimEqual(m->b, hi)) return true;
  }
  if (const auto* m = hi.as<MaxNode>()) {
    if (ProveDimEqual(m->a, lo) || ProveDimEqual(m->b, lo)) return true;
  }
  return ProveDimEqual(SimplifyDim(Min(lo, hi)), lo);
}

// The length of range(dim)[begin:end:stride] for bounds already inside the axis (the argument
// form of strided_slice): ceil((end - begin) / stride), or 0 when that is negative.
PrimExpr InBoundSliceLength(const PrimExpr& begin, const PrimExpr& end, int64_t stride) {
  PrimExpr lo = stride > 0 ? begin : end, hi = stride > 0 ? end : begin;
  PrimExpr span = hi - lo;
  int64_t step = stride > 0 ? stride : -stride;
  PrimExpr length = step == 1 ? span : FloorDiv(span + DimConst(step - 1), DimConst(step));
  // No clamp where the bounds are provably in order (min(1, n) <= n).
  if (ProveDimAtMost(lo, hi)) return SimplifyDim(length);
  return SimplifyDim(Max(length, DimConst(0)));
}

StructInfo InferStridedSlice(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const std::vector<int64_t>& axes = call.attrs.GetInts("axes");
  std::vector<int64_t> strides =
      call.attrs.GetOptionalInts("strides").value_or(std::vector<int64_t>(axes.size(), 1));
  // The bounds: int attributes, or shape-valued arguments of dims already inside the axis.
  bool by_args = call.args.size() > 1;
  if (call.args.size() == 2)
    Fail(call, "takes begin and end as arguments together, not begin alone");
  std::vector<int64_t> begin, end;
  std::optional<std::vector<PrimExpr>> begin_dims, end_dims;
  size_t num_begin = 0, num_end = 0;
  if (by_args) {
    if (call.attrs.Has("begin") || call.attrs.Has("end")) {
      Fail(call, "begin and end are given both as arguments and as attributes");
    }
    const ShapeStructInfoNode* b = ShapeArg(call, 1);
    const ShapeStructInfoNode* e = ShapeArg(call, 2);
    begin_dims = b->values;
    end_dims = e->values;
    num_begin = b->ndim == kUnknownNDim ? axes.size() : static_cast<size_t>(b->ndim);
    num_end = e->ndim == kUnknownNDim ? axes.size() : static_cast<size_t>(e->ndim);
  } else {
    if (!call.attrs.Has("begin") || !call.attrs.Has("end")) {
      Fail(call, "needs begin and end, as attributes or as arguments");
    }
    begin = call.attrs.GetInts("begin");
    end = call.attrs.GetInts("end");
    num_begin = begin.size();
    num_end = end.size();
  }
  if (num_begin != axes.size() || num_end != axes.size() || strides.size() != axes.size()) {
    auto text = [&](const std::vector<int64_t>& ints,
                    const std::optional<std::vector<PrimExpr>>& dims) {
      if (!by_args) return IntsToString(ints);
      return dims ? DimsToString(*dims) : std::string("(?)");
    };
    Fail(call, "axes, begin, end and strides differ in length: " + IntsToString(axes) + ", " +
                   text(begin, begin_dims) + ", " + text(end, end_dims) + ", " +
                   IntsToString(strides));
  }
  for (size_t i = 0; i < axes.size(); ++i) {
    if (strides[i] == 0) Fail(call, "stride on axis " + std::to_string(axes[i]) + " is 0");
  }
  if (x->unknown_ndim()) return TensorStructInfo(x->dtype, kUnknownNDim);
  std::vector<int> norm = NormalizeAxes(call, axes, x->ndim);
  if (!x->shape || (by_args && (!begin_dims || !end_dims))) {
    return TensorStructInfo(x->dtype, x->ndim);
  }
  std::vector<PrimExpr> out = *x->shape;
  for (size_t i = 0; i < norm.size(); ++i) {
    const PrimExpr& d = out[norm[i]];
    if (by_args) {
      out[norm[i]] = InBoundSliceLength((*begin_dims)[i], (*end_dims)[i], strides[i]);
    } else if (auto c = AsConstInt(d)) {
      out[norm[i]] = DimConst(SliceLength(*c, begin[i], end[i], strides[i]));
    } else {
      out[norm[i]] = SymbolicSliceLength(d, begin[i], end[i], strides[i]);
    }
  }
  return TensorStructInfo(out, x->dtype);
}

void RequireIndices(const OpCall& call, const TensorStructInfoNode* indices) {
  if (!indices->unknown_dtype() && !indices->dtype.is_int() && !indices->dtype.is_uint()) {
    Fail(call, "indices must be an integer tensor, got " + indices->dtype.ToString());
  }
}

StructInfo InferTake(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* indices = TensorArg(call, 1);
  RequireIndices(call, indices);
  if (x->unknown_ndim() || indices->unknown_ndim()) {
    return TensorStructInfo(x->dtype, kUnknownNDim);
  }
  int axis = NormalizeAxis(call, call.attrs.GetInt("axis"), x->ndim);
  const std::string& mode = call.attrs.GetString("mode");
  if (mode != "fast" && mode != "clip" && mode != "wrap") {
    Fail(call, "mode \"" + mode + "\" is not one of \"fast\", \"clip\", \"wrap\"");
  }
  int out_ndim = x->ndim - 1 + indices->ndim;
  if (!x->shape || !indices->shape) return TensorStructInfo(x->dtype, out_ndim);
  const std::vector<PrimExpr>& xs = *x->shape;
  std::vector<PrimExpr> out(xs.begin(), xs.begin() + axis);
  out.insert(out.end(), indices->shape->begin(), indices->shape->end());
  out.insert(out.end(), xs.begin() + axis + 1, xs.end());
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferGatherElements(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* indices = TensorArg(call, 1);
  RequireIndices(call, indices);
  if (!x->unknown_ndim() && !indices->unknown_ndim()) {
    if (x->ndim != indices->ndim) {
      Fail(call, "indices are " + std::to_string(indices->ndim) + "-D, data is " +
                     std::to_string(x->ndim) + "-D");
    }
    NormalizeAxis(call, call.attrs.GetInt("axis"), x->ndim);
  }
  return MakeTensor(indices->shape, indices->ndim, x->dtype);
}

// gather_nd(data, indices, batch_dims): each row of the last axis of `indices` (k entries,
// known statically) picks a slice of `data` after its first batch_dims axes; the result is
// indices.shape[:-1] + data.shape[batch_dims + k:].
StructInfo InferGatherND(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const TensorStructInfoNode* indices = TensorArg(call, 1);
  RequireIndices(call, indices);
  int64_t batch_dims = call.attrs.GetInt("batch_dims");
  if (batch_dims < 0) Fail(call, "batch_dims " + std::to_string(batch_dims) + " is negative");
  if (!indices->unknown_ndim() && indices->ndim < 1) Fail(call, "indices must be at least 1-D");
  if (x->unknown_ndim() || indices->unknown_ndim()) {
    return TensorStructInfo(x->dtype, kUnknownNDim);
  }
  if (batch_dims >= std::min(x->ndim, indices->ndim)) {
    Fail(call, "batch_dims " + std::to_string(batch_dims) +
                   " must be less than the ranks of data (" + std::to_string(x->ndim) +
                   ") and indices (" + std::to_string(indices->ndim) + ")");
  }
  if (!indices->shape) return TensorStructInfo(x->dtype, kUnknownNDim);
  std::optional<int64_t> k = AsConstInt(indices->shape->back());
  if (!k) {
    Fail(call,
         "the last dim of indices " + DimsToString(*indices->shape) + " must be known statically");
  }
  if (*k < 1 || *k > x->ndim - batch_dims) {
    Fail(call, "indices of length " + std::to_string(*k) + " cannot index a " +
                   std::to_string(x->ndim) + "-D tensor after " + std::to_string(batch_dims) +
                   " batch dims");
  }
  int out_ndim = indices->ndim - 1 + x->ndim - static_cast<int>(batch_dims + *k);
  if (!x->shape) return TensorStructInfo(x->dtype, out_ndim);
  for (int64_t d = 0; d < batch_dims; ++d) {
    if (ProveDimNotEqual((*x->shape)[d], (*indices->shape)[d])) {
      Fail(call, "batch dim " + std::to_string(d) + " differs: data " + DimsToString(*x->shape) +
                     ", indices " + DimsToString(*indices->shape));
    }
  }
  std::vector<PrimExpr> out(indices->shape->begin(), indices->shape->end() - 1);
  out.insert(out.end(), x->shape->begin() + batch_dims + *k, x->shape->end());
  return TensorStructInfo(out, x->dtype);
}

StructInfo InferBroadcastTo(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const ShapeStructInfoNode* target = ShapeArg(call, 1);
  if (!target->values) return TensorStructInfo(x->dtype, target->ndim);
  const std::vector<PrimExpr>& t = *target->values;
  if (!x->unknown_ndim() && x->ndim > static_cast<int>(t.size())) {
    Fail(call, "cannot broadcast a " + std::to_string(x->ndim) + "-D tensor to " + DimsToString(t));
  }
  if (x->shape) {
    for (size_t i = 0; i < x->shape->size(); ++i) {
      const PrimExpr& from = (*x->shape)[i];
      const PrimExpr& to = t[t.size() - x->shape->size() + i];
      if (!IsConstInt(from, 1) && ProveDimNotEqual(from, to)) {
        Fail(call, "cannot broadcast " + DimsToString(*x->shape) + " to " + DimsToString(t) +
                       ": dim " + DimToString(from) + " vs " + DimToString(to));
      }
    }
  }
  return TensorStructInfo(t, x->dtype);
}

StructInfo InferTile(const OpCall& call) {
  const TensorStructInfoNode* x = TensorArg(call, 0);
  const std::vector<int64_t>& reps = call.attrs.GetInts("repeats");
  for (int64_t r : reps) {
    if (r < 0) Fail(call, "repeats " + IntsToString(reps) + " must not be negative");
  }
  if (x->unknown_ndim()) return TensorStructInfo(x->dtype, kUnknownNDim);
  int out_ndim = std::max(x->ndim, static_cast<int>(reps.size()));
  if (!x->shape) return TensorStructInfo(x->dtype, out_ndim);
  std::vector<PrimExpr> dims(out_ndim - x->ndim, DimConst(1));
  dims.insert(dims.end(), x->shape->begin(), x->shape->end());
  std::vector<int64_t> r(out_ndim - reps.size(), 1);
  r.insert(r.end(), reps.begin(), reps.end());
  for (int i = 0; i < out_ndim; ++i) dims[i] = dims[i] * DimConst(r[i]);
  return TensorStructInfo(dims, x->dtype);
}

}  // namespace

void RegisterManipulateOps(OpRegistry& r) {
  r.Register(OpInfo{"reshape", 2, 2, {}, InferReshape});
  r.Register(
      OpInfo{"permute_dims", 1, 1, {{"axes", AttrType::kIntList, std::nullopt}}, InferPermuteDims});
  r.Register(OpInfo{"flatten",
                    1,
                    1,
                    {{"start_axis", AttrType::kInt, AttrValue(int64_t{0})},
                     {"end_axis", AttrType::kInt, AttrValue(int64_t{-1})}},
                    InferFlatten});
  r.Register(OpInfo{"squeeze", 1, 1, {{"axis", AttrType::kIntList, std::nullopt}}, InferSqueeze});
  r.Register(OpInfo{
      "expand_dims", 1, 1, {{"axis", AttrType::kIntList, std::nullopt, true}}, InferExpandDims});
  r.Register(
      OpInfo{"concat", 1, 1, {{"axis", AttrType::kInt, AttrValue(int64_t{0})}}, InferConcat});
  r.Register(OpInfo{"split",
                    1,
                    1,
                    {{"indices_or_sections", AttrType::kIntList, std::nullopt, true, true},
                     {"axis", AttrType::kInt, AttrValue(int64_t{0})}},
                    InferSplit});
  // strided_slice(x, axes=, begin=, end=, strides=): python slicing of each of `axes`, with
  // negative bounds counted from the end and every bound clamped into the axis. Bounds known
  // only as dims (a slice up to sequence_length) are given as two shape-valued arguments
  // instead, strided_slice(x, begin, end, axes=, strides=), one dim per axis, already inside
  // it: 0 <= begin, end <= dim for a positive stride, -1 <= end, begin <= dim - 1 for a
  // negative one (python's bounds after its clamping). A front end computes them with min/max.
  r.Register(OpInfo{"strided_slice",
                    1,
                    3,
                    {{"axes", AttrType::kIntList, std::nullopt, true},
                     {"begin", AttrType::kIntList, std::nullopt},
                     {"end", AttrType::kIntList, std::nullopt},
                     {"strides", AttrType::kIntList, std::nullopt},
                     // Kiln clamps begin and end to the dims either way, so assuming them in
                     // bounds (TVM's assume_inbound=True) changes no in-bound result.
                     {"assume_inbound", AttrType::kBool, AttrValue(false)}},
                    InferStridedSlice});
  // mode: "fast" (Kiln reads a negative index from the end and clamps the rest, which agrees
  // with TVM wherever TVM's unchecked read is defined), "clip" (clamped) or "wrap" (modulo).
  r.Register(OpInfo{"take",
                    2,
                    2,
                    {{"axis", AttrType::kInt, AttrValue(int64_t{0})},
                     {"mode", AttrType::kString, AttrValue(std::string("fast"))}},
                    InferTake});
  r.Register(OpInfo{"gather_elements",
                    2,
                    2,
                    {{"axis", AttrType::kInt, AttrValue(int64_t{0})}},
                    InferGatherElements});
  r.Register(OpInfo{
      "gather_nd", 2, 2, {{"batch_dims", AttrType::kInt, AttrValue(int64_t{0})}}, InferGatherND});
  r.Register(OpInfo{"broadcast_to", 2, 2, {}, InferBroadcastTo});
  r.Register(
      OpInfo{"tile", 1, 1, {{"repeats", AttrType::kIntList, std::nullopt, true}}, InferTile});
  r.SetPattern({"reshape", "permute_dims", "flatten", "squeeze", "expand_dims", "concat", "split",
                "strided_slice", "take", "gather_elements", "gather_nd", "broadcast_to", "tile"},
               OpPattern::kInjective);
}

}  // namespace kiln::ir::relax
