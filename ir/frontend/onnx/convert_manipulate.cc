// Shape manipulation: Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split, Slice,
// Gather, GatherElements, GatherND, Expand, Tile, Pad, DepthToSpace, SpaceToDepth, Trilu. Target
// shapes may hold symbolic dims (computed at import time from Shape); ops on values known at import
// time (shape vectors, constants) are evaluated instead of emitted.
#include <algorithm>
#include <cstring>
#include <limits>

#include "ir/frontend/onnx/convert_gnn_spmm.h"
#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

std::optional<std::vector<int64_t>> ConstDims(const std::optional<std::vector<PrimExpr>>& dims) {
  if (!dims) return std::nullopt;
  std::vector<int64_t> out;
  for (const PrimExpr& d : *dims) {
    auto v = AsConstInt(d);
    if (!v) return std::nullopt;
    out.push_back(*v);
  }
  return out;
}

// Applies a shape-only op (reshape, squeeze, expand_dims) to input 0. When its contents are
// known at import time, the registry's inference on a stand-in gives the result shape and the
// contents are reshaped here instead of emitting the op.
Value ShapeOnly(NodeContext& ctx, const std::string& op, std::vector<Expr> extra,
                relax::Attrs attrs = relax::Attrs()) {
  Value& v = ctx.InputValue(0);
  const auto* cnode = v.expr.as<relax::ConstantNode>();
  if (v.known || v.constant || cnode != nullptr) {
    std::vector<Expr> args = {relax::Var("stand_in", ValueInfo(v))};
    args.insert(args.end(), extra.begin(), extra.end());
    Expr call = relax::Call(op, args, attrs);
    const auto* t = call.struct_info().as<relax::TensorStructInfoNode>();
    if (auto shape = t != nullptr ? ConstDims(t->shape) : std::nullopt) {
      if (v.known) return SymReshape(*v.known, *shape);
      const HostTensor& data = v.constant ? *v.constant : cnode->data;
      int64_t count = 1;
      for (int64_t d : *shape) count = d == 0 || count == 0 ? 0 : count * d;
      if (count == data.numel()) {
        HostTensor out(data.dtype(), *shape);
        if (data.nbytes() > 0) std::memcpy(out.data(), data.data(), data.nbytes());
        return out;
      }
    }
  }
  std::vector<Expr> args = {ctx.Input(0)};
  args.insert(args.end(), extra.begin(), extra.end());
  return ctx.Call(op, args, attrs);
}

Outputs Reshape(NodeContext& ctx) {
  bool allowzero = ctx.Int("allowzero", 0) != 0;
  std::optional<SymTensor> target = ctx.Known(1);
  if (!target) {
    // A shape computed from run-time data: the result has a known rank only.
    if (ctx.InputDType(1) != DataType::Int(64)) ctx.Invalid("the shape must be int64");
    ctx.NoteRuntimeShape(1);
    Expr shape = ctx.Call("tensor_to_shape", {ctx.Input(1)});
    return {ctx.Call("reshape", {ctx.Input(0), shape})};
  }
  if (target->rank() != 1) ctx.Invalid("the shape must be 1-D, got " + target->ToString());
  std::vector<PrimExpr> dims = target->elems;
  auto in_shape = ctx.InputShape(0);
  int minus_one = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    auto c = AsConstInt(dims[i]);
    if (c && *c == -1) ++minus_one;
    if (c && *c < -1) ctx.Invalid("shape " + target->ToString() + " has a negative dim");
    if (!c || *c != 0 || allowzero) continue;
    // 0 copies the input's dim at the same position.
    if (!in_shape || i >= in_shape->size()) {
      ctx.Unsupported("shape " + target->ToString() + " copies input dim " + std::to_string(i) +
                      ", which is not known at import time");
    }
    dims[i] = (*in_shape)[i];
  }
  if (minus_one > 1) ctx.Invalid("shape " + target->ToString() + " has more than one -1");
  return {ShapeOnly(ctx, "reshape", {relax::ShapeExpr(dims)})};
}

Outputs Flatten(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  int64_t axis = ctx.Int("axis", 1);
  if (axis < -rank || axis > rank) {
    ctx.Invalid("axis " + std::to_string(axis) + " is out of range for a " + std::to_string(rank) +
                "-D tensor");
  }
  if (axis < 0) axis += rank;
  if (auto shape = ctx.InputShape(0)) {
    std::vector<PrimExpr> outer(shape->begin(), shape->begin() + axis);
    std::vector<PrimExpr> inner(shape->begin() + axis, shape->end());
    return {ShapeOnly(ctx, "reshape",
                      {relax::ShapeExpr({relax::DimProduct(outer), relax::DimProduct(inner)})})};
  }
  Expr x = ctx.Input(0);
  if (axis == 0 || axis == rank) {
    Expr flat = ctx.Call("flatten", {x});
    return {ctx.Call("expand_dims", {flat}, relax::Attrs().Set("axis", {axis == 0 ? 0 : 1}))};
  }
  Expr inner = ctx.Call("flatten", {x}, relax::Attrs().Set("start_axis", axis));
  return {ctx.Call("flatten", {inner}, relax::Attrs().Set("end_axis", axis - 1))};
}

// The axes of Squeeze and Unsqueeze: an attribute before opset 13, an input from it.
std::optional<std::vector<int64_t>> SqueezeAxes(NodeContext& ctx) {
  if (ctx.version() < 13) return ctx.OptInts("axes");
  if (!ctx.HasInput(1)) return std::nullopt;
  return ctx.RequireConstInts(1, "axes");
}

Outputs Squeeze(NodeContext& ctx) {
  relax::Attrs attrs;
  if (auto axes = SqueezeAxes(ctx)) attrs.Set("axis", *axes);
  return {ShapeOnly(ctx, "squeeze", {}, attrs)};
}

Outputs Unsqueeze(NodeContext& ctx) {
  std::optional<std::vector<int64_t>> axes = SqueezeAxes(ctx);
  if (!axes) ctx.Invalid("axes are required");
  return {ShapeOnly(ctx, "expand_dims", {}, relax::Attrs().Set("axis", *axes))};
}

Outputs Transpose(NodeContext& ctx) {
  std::optional<std::vector<int64_t>> perm = ctx.OptInts("perm");
  if (ctx.Known(0) && ctx.InputRank(0) <= 1) return {ctx.InputValue(0)};
  relax::Attrs attrs;
  if (perm) attrs.Set("axes", *perm);
  return {ctx.Call("permute_dims", {ctx.Input(0)}, attrs)};
}

Outputs Concat(NodeContext& ctx) {
  std::optional<int64_t> axis = ctx.OptInt("axis");
  if (!axis) ctx.Invalid("attribute 'axis' is required");
  if (ctx.num_inputs() == 0) ctx.Invalid("needs at least one input");
  int rank = ctx.InputRank(0);
  int a = NormalizeAxis(ctx, *axis, rank);
  if (ctx.AllInputsKnown()) {
    std::vector<SymTensor> parts;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) parts.push_back(*ctx.Known(i));
    if (auto folded = SymConcat(parts, a)) return {*folded};
  }
  // The inputs' other dims must be equal.
  std::vector<NodeContext::Operand> operands;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    operands.emplace_back(ctx.Input(i), "input " + std::to_string(i));
  }
  std::vector<NodeContext::DimGroup> groups;
  for (int d = 0; d < rank; ++d) {
    if (d == a) continue;
    NodeContext::DimGroup group;
    for (size_t i = 0; i < operands.size(); ++i) group.slots.emplace_back(i, d);
    groups.push_back(std::move(group));
  }
  std::vector<Expr> inputs = ctx.AgreeDims(operands, groups);
  return {ctx.Call("concat", {relax::Tuple(inputs)}, relax::Attrs().Set("axis", a))};
}

Outputs Split(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", 0), rank);
  size_t n = ctx.node().outputs.size();
  if (n == 0) ctx.Invalid("needs at least one output");
  std::optional<std::vector<int64_t>> sizes;
  if (ctx.version() < 13) {
    sizes = ctx.OptInts("split");
  } else if (ctx.HasInput(1)) {
    sizes = ctx.RequireConstInts(1, "split");
  }
  if (ctx.version() >= 18) {
    std::optional<int64_t> parts = ctx.OptInt("num_outputs");
    if (sizes.has_value() == parts.has_value()) {
      ctx.Invalid("exactly one of the split input and the num_outputs attribute must be given");
    }
    if (parts) {
      if (*parts < 1 || static_cast<size_t>(*parts) != n) {
        ctx.Invalid("num_outputs is " + std::to_string(*parts) + ", but the node has " +
                    std::to_string(n) + " outputs");
      }
      // Chunks of ceil(dim / n), the last one smaller when the dim is not divisible.
      auto shape = ctx.InputShape(0);
      auto dim = shape ? AsConstInt((*shape)[axis]) : std::nullopt;
      if (!dim) {
        if (!shape || !relax::DivideDimExact((*shape)[axis], relax::DimConst(*parts))) {
          ctx.Unsupported("num_outputs over a symbolic dim not known to be divisible by " +
                          std::to_string(*parts));
        }
      } else {
        int64_t chunk = (*dim + *parts - 1) / *parts;
        sizes.emplace();
        for (int64_t i = 0, left = *dim; i < *parts; ++i, left -= chunk) {
          sizes->push_back(std::max<int64_t>(0, std::min(chunk, left)));
        }
      }
    }
  }
  relax::Attrs attrs;
  attrs.Set("axis", axis);
  if (sizes) {
    if (sizes->size() != n) {
      ctx.Invalid("split has " + std::to_string(sizes->size()) + " sizes for " + std::to_string(n) +
                  " outputs");
    }
    std::vector<int64_t> indices;
    int64_t at = 0;
    for (int64_t s : *sizes) {
      if (s < 0 || s > (int64_t{1} << 40)) ctx.Invalid("split size " + std::to_string(s));
    }
    for (size_t i = 0; i + 1 < sizes->size(); ++i) {
      at += (*sizes)[i];
      indices.push_back(at);
    }
    auto shape = ctx.InputShape(0);
    if (auto dim = shape ? AsConstInt((*shape)[axis]) : std::nullopt;
        dim && at + sizes->back() != *dim) {
      ctx.Invalid("split sizes add up to " + std::to_string(at + sizes->back()) +
                  ", but the axis has " + std::to_string(*dim));
    }
    attrs.Set("indices_or_sections", indices);
  } else {
    attrs.Set("indices_or_sections", static_cast<int64_t>(n));
  }
  Expr parts = ctx.Call("split", {ctx.Input(0)}, attrs);
  Outputs outs;
  for (size_t i = 0; i < n; ++i) {
    outs.push_back(ctx.Emit(relax::TupleGetItem(parts, static_cast<int>(i))));
  }
  return outs;
}

// numpy's clamping of a slice's bounds along a dim of constant size.
void ClampSlice(int64_t dim, int64_t step, int64_t& begin, int64_t& end) {
  auto norm = [&](int64_t v) { return v < 0 ? (v < -dim ? -1 : v + dim) : v; };
  begin = norm(begin);
  end = norm(end);
  if (step > 0) {
    begin = std::clamp<int64_t>(begin, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
  } else {
    begin = std::clamp<int64_t>(begin, -1, dim - 1);
    end = std::clamp<int64_t>(end, -1, dim - 1);
  }
}

// Slice bounds at or past this are read as "to the end of the axis": exporters write 1e9,
// 2^31 - 1 or 2^63 - 1 for it. Kiln takes every dim to be below it, so that such an end is the
// dim itself rather than min(end, dim).
constexpr int64_t kSliceSentinel = 1000000000;

// Whether the dim expression `v` is provably >= 0 (true), provably < 0 (false), or neither.
std::optional<bool> DimSign(const PrimExpr& v) {
  if (auto c = AsConstInt(v)) return *c >= 0;
  if (relax::ProveDimEqual(relax::SimplifyDim(Max(v, relax::DimConst(0))), v)) return true;
  if (relax::ProveDimEqual(relax::SimplifyDim(Min(v, relax::DimConst(-1))), v)) return false;
  return std::nullopt;
}

// ONNX's clamping of one Slice bound `v` (a start, or an end when `is_end`) along an axis of
// size `dim`, as a dim expression: a negative bound counts from the end, then the bound is
// clamped into [0, dim] for a positive step and into [-1, dim - 1] for a negative one (numpy's
// rules, which ClampSlice applies to constant dims). A bound past kSliceSentinel is the end.
PrimExpr ClampSliceBound(const PrimExpr& v, const PrimExpr& dim, bool positive_step) {
  using relax::DimConst;
  PrimExpr lo = DimConst(positive_step ? 0 : -1);
  PrimExpr hi = positive_step ? dim : dim - DimConst(1);
  if (auto c = AsConstInt(v)) {
    if (*c >= kSliceSentinel) return relax::SimplifyDim(hi);
    if (*c <= -kSliceSentinel) return lo;
  }
  std::optional<bool> sign = DimSign(v);
  PrimExpr clamped;
  if (sign == true) {
    clamped = Min(v, hi);
  } else if (sign == false) {
    clamped = Max(dim + v, lo);
  } else {
    // The sign is known only at run time: v + dim when v < 0, with the test written in the
    // min/max arithmetic of dims (min(max(-v, 0), 1) is 1 exactly when v < 0).
    PrimExpr negative = Min(Max(DimConst(0) - v, DimConst(0)), DimConst(1));
    clamped = Min(Max(v + dim * negative, lo), hi);
  }
  return relax::SimplifyDim(clamped);
}

// A Slice's starts or ends: constants, or dims known at import time (ends = [sequence_length]
// from a Shape subgraph).
std::vector<PrimExpr> SliceBoundInput(NodeContext& ctx, size_t i, const char* what) {
  std::optional<SymTensor> k = ctx.Known(i);
  if (!k) {
    if (!ctx.InputDType(i).is_integral()) {
      ctx.Invalid(std::string("input ") + std::to_string(i) + " (" + what +
                  ") must be an integer tensor, got " + DTypeName(ctx.InputDType(i)));
    }
    ctx.RequireKnown(i, what);
  }
  if (k->rank() != 1) ctx.Invalid(std::string(what) + " must be 1-D, got " + k->ToString());
  return k->elems;
}

Outputs Slice(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  std::vector<PrimExpr> starts, ends;
  std::vector<int64_t> steps;
  std::optional<std::vector<int64_t>> axes;
  auto dims_of = [](const std::vector<int64_t>& v) {
    std::vector<PrimExpr> out;
    for (int64_t x : v) out.push_back(relax::DimConst(x));
    return out;
  };
  if (ctx.version() < 10) {
    starts = dims_of(ctx.Ints("starts"));
    ends = dims_of(ctx.Ints("ends"));
    axes = ctx.OptInts("axes");
  } else {
    ctx.RequireAllKnown({{1, "starts"}, {2, "ends"}, {3, "axes"}, {4, "steps"}});
    starts = SliceBoundInput(ctx, 1, "starts");
    ends = SliceBoundInput(ctx, 2, "ends");
    if (ctx.HasInput(3)) axes = ctx.RequireConstInts(3, "axes");
    if (ctx.HasInput(4)) steps = ctx.RequireConstInts(4, "steps");
  }
  if (!axes) {
    axes.emplace();
    for (size_t i = 0; i < starts.size(); ++i) axes->push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes->size() != starts.size() ||
      steps.size() != starts.size()) {
    ctx.Invalid("starts, ends, axes and steps differ in length");
  }
  std::vector<int> norm_axes;
  for (int64_t a : *axes) norm_axes.push_back(NormalizeAxis(ctx, a, rank, "axes entry"));
  for (int64_t s : steps) {
    if (s == 0) ctx.Invalid("steps must not be 0");
  }
  std::vector<int64_t> axes64(norm_axes.begin(), norm_axes.end());
  auto shape = ctx.InputShape(0);
  std::optional<std::vector<int64_t>> const_starts = SymTensor::Vector(starts).ConstValues();
  std::optional<std::vector<int64_t>> const_ends = SymTensor::Vector(ends).ConstValues();
  bool const_dims = shape.has_value();
  for (int a : norm_axes) const_dims &= shape && AsConstInt((*shape)[a]).has_value();
  if (const_starts && const_ends) {
    if (auto k = ctx.Known(0)) {
      std::vector<int64_t> b = *const_starts, e = *const_ends;
      for (size_t i = 0; i < norm_axes.size(); ++i) {
        ClampSlice(k->shape[norm_axes[i]], steps[i], b[i], e[i]);
      }
      if (auto folded = SymSlice(*k, norm_axes, b, e, steps)) return {*folded};
    }
  }
  if (const_starts && const_ends && (const_dims || !shape)) {
    // Bounds and dims known (or a shape only known at run time): int attributes, clamped as
    // numpy does where the dim is known.
    std::vector<int64_t> b = *const_starts, e = *const_ends;
    for (size_t i = 0; i < norm_axes.size(); ++i) {
      if (!shape) {
        // strided_slice reads bounds past +-2^31 as "to the end"; clamping keeps its length
        // arithmetic far from overflow.
        constexpr int64_t kToEnd = std::numeric_limits<int32_t>::max();
        b[i] = std::clamp<int64_t>(b[i], -kToEnd, kToEnd);
        e[i] = std::clamp<int64_t>(e[i], -kToEnd, kToEnd);
        steps[i] = std::clamp<int64_t>(steps[i], -kToEnd, kToEnd);
        continue;
      }
      int64_t dim = *AsConstInt((*shape)[norm_axes[i]]);
      // A step longer than the dim takes one element, as the dim itself does.
      int64_t longest = std::max<int64_t>(dim, 1);
      steps[i] = std::clamp<int64_t>(steps[i], -longest, longest);
      ClampSlice(dim, steps[i], b[i], e[i]);
      // -1 after clamping means "before index 0", which the op would read as the last index.
      if (steps[i] < 0 && e[i] == -1) e[i] = -dim - 1;
      if (steps[i] < 0 && b[i] == -1) b[i] = -dim - 1;
    }
    relax::Attrs attrs;
    attrs.Set("axes", axes64).Set("begin", b).Set("end", e).Set("strides", steps);
    return {ctx.Call("strided_slice", {ctx.Input(0)}, attrs)};
  }
  // A symbolic dim or bound: the bounds clamped as dim expressions, given to strided_slice as
  // shape arguments (already inside the axis).
  if (!shape) {
    ctx.Unsupported("symbolic bounds " + SymTensor::Vector(starts).ToString() + " to " +
                    SymTensor::Vector(ends).ToString() +
                    " over a tensor whose shape is not known at import time");
  }
  std::vector<PrimExpr> begin, end;
  for (size_t i = 0; i < norm_axes.size(); ++i) {
    const PrimExpr& dim = (*shape)[norm_axes[i]];
    // A step past every dim takes one element, as one of kSliceSentinel does.
    steps[i] = std::clamp<int64_t>(steps[i], -kSliceSentinel, kSliceSentinel);
    begin.push_back(ClampSliceBound(starts[i], dim, steps[i] > 0));
    end.push_back(ClampSliceBound(ends[i], dim, steps[i] > 0));
  }
  relax::Attrs attrs;
  attrs.Set("axes", axes64).Set("strides", steps);
  return {ctx.Call("strided_slice", {ctx.Input(0), relax::ShapeExpr(begin), relax::ShapeExpr(end)},
                   attrs)};
}

Outputs Gather(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", 0), rank);
  std::optional<SymTensor> data = ctx.Known(0);
  std::optional<SymTensor> indices = ctx.Known(1);
  auto shape = ctx.InputShape(0);
  int64_t dim = -1;  // -1: not known at import time
  if (shape) dim = AsConstInt((*shape)[axis]).value_or(-1);
  std::optional<std::vector<int64_t>> idx = indices ? indices->ConstValues() : std::nullopt;
  if (idx && dim >= 0) {
    for (int64_t& i : *idx) {
      if (i < -dim || i >= dim) {
        ctx.Invalid("index " + std::to_string(i) + " is out of range for a dim of " +
                    std::to_string(dim));
      }
      if (i < 0) i += dim;
    }
    if (data) {
      if (auto folded = SymGather(*data, *idx, indices->shape, axis)) return {*folded};
    }
    // Negative constant indices become positive here, so the op needs no wrap-around.
    HostTensor normalized =
        SymTensor::FromInts(*idx, indices->shape, indices->dtype).ToHostTensor();
    return {ctx.Call("take", {ctx.Input(0), relax::Constant(normalized)},
                     relax::Attrs().Set("axis", axis))};
  }
  return {ctx.Call("take", {ctx.Input(0), ctx.Input(1)}, relax::Attrs().Set("axis", axis))};
}

Outputs GatherElements(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", 0), rank);
  return {
      ctx.Call("gather_elements", {ctx.Input(0), ctx.Input(1)}, relax::Attrs().Set("axis", axis))};
}

Outputs GatherND(NodeContext& ctx) {
  int64_t batch_dims = ctx.version() >= 12 ? ctx.Int("batch_dims", 0) : 0;
  if (!ctx.InputDType(1).is_int()) {
    ctx.Invalid("indices must be an int64 tensor, got " + DTypeName(ctx.InputDType(1)));
  }
  int rank = ctx.InputRank(0), q = ctx.InputRank(1);
  if (batch_dims < 0 || batch_dims >= std::min(rank, q)) {
    ctx.Invalid("batch_dims " + std::to_string(batch_dims) + " must be in [0, min(" +
                std::to_string(rank) + ", " + std::to_string(q) + "))");
  }
  // The batch dims of data and indices must be equal.
  std::vector<NodeContext::DimGroup> groups;
  for (int d = 0; d < batch_dims; ++d) groups.push_back({{{0, d}, {1, d}}, false});
  std::vector<Expr> xi =
      ctx.AgreeDims({{ctx.Input(0), "input 0"}, {ctx.Input(1), "input 1"}}, groups);
  return {ctx.Call("gather_nd", xi, relax::Attrs().Set("batch_dims", batch_dims))};
}

Outputs Expand(NodeContext& ctx) {
  std::optional<SymTensor> target = ctx.Known(1);
  // Expand broadcasts both ways, so the result shape needs the target at import time.
  if (!target) ctx.RequireKnown(1, "shape");
  if (target->rank() != 1) ctx.Invalid("the shape must be 1-D");
  std::vector<PrimExpr> in = ctx.RequireShape(0);
  const std::vector<PrimExpr>& want = target->elems;
  // Dims of the input that cannot be proven to fit the target are checked at run time.
  Expr x = ctx.Known(0) ? Expr() : ctx.Input(0);
  if (x.defined()) {
    x = ctx.Broadcast(
        {{x, "input 0"}, NodeContext::Operand::Fixed("the shape (input 1)", want)})[0];
    in = *x.struct_info().as<relax::TensorStructInfoNode>()->shape;
  }
  size_t n = std::max(in.size(), want.size());
  std::vector<PrimExpr> out(n);
  for (size_t i = 0; i < n; ++i) {
    PrimExpr a = i + in.size() >= n ? in[i + in.size() - n] : relax::DimConst(1);
    PrimExpr b = i + want.size() >= n ? want[i + want.size() - n] : relax::DimConst(1);
    if (IsConstInt(b, 1)) {
      out[i] = a;
    } else if (IsConstInt(a, 1) || relax::ProveDimEqual(a, b)) {
      out[i] = b;
    } else if (relax::ProveDimNotEqual(a, b) && AsConstInt(a) && AsConstInt(b)) {
      ctx.Invalid("cannot expand " + relax::DimsToString(in) + " to " + target->ToString());
    } else {
      out[i] = a;  // a symbolic pair: they must agree at run time
    }
  }
  if (auto k = ctx.Known(0); k && ConstDims(out)) {
    if (auto folded = SymBroadcastTo(*k, *ConstDims(out))) return {*folded};
  }
  if (!x.defined()) x = ctx.Input(0);
  return {ctx.Call("broadcast_to", {x, relax::ShapeExpr(out)})};
}

Outputs Tile(NodeContext& ctx) {
  std::vector<int64_t> repeats = ctx.RequireConstInts(1, "repeats");
  if (static_cast<int>(repeats.size()) != ctx.InputRank(0)) {
    ctx.Invalid("repeats needs one value per input axis");
  }
  return {ctx.Call("tile", {ctx.Input(0)}, relax::Attrs().Set("repeats", repeats))};
}

// Pad's wrap mode: along each padded axis, output position i reads input (i - before) mod dim,
// a take with constant indices.
Expr WrapPad(NodeContext& ctx, const std::vector<int64_t>& pads, int rank) {
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  Expr y = ctx.Input(0);
  for (int a = 0; a < rank; ++a) {
    int64_t before = pads[a], after = pads[a + rank];
    if (before == 0 && after == 0) continue;
    auto dim = AsConstInt(shape[a]);
    if (!dim) ctx.Unsupported("wrap padding along a symbolic dim");
    if (*dim == 0) ctx.Invalid("wrap padding of an empty axis");
    if (before < 0 || after < 0 || before > (int64_t{1} << 24) || after > (int64_t{1} << 24)) {
      ctx.Unsupported("wrap padding by " + std::to_string(before) + ", " + std::to_string(after));
    }
    HostTensor index(DataType::Int(64), {*dim + before + after});
    for (int64_t i = 0; i < *dim + before + after; ++i) {
      index.SetDouble(i, static_cast<double>((((i - before) % *dim) + *dim) % *dim));
    }
    y = ctx.Call("take", {y, relax::Constant(index)}, relax::Attrs().Set("axis", a));
  }
  return y;
}

Outputs Pad(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  std::string mode = ctx.String("mode", "constant");
  bool wrap = mode == "wrap" && ctx.version() >= 19;
  if (mode != "constant" && mode != "edge" && mode != "reflect" && !wrap) {
    ctx.Invalid("mode '" + mode + "' is not one of constant, edge, reflect" +
                (ctx.version() >= 19 ? ", wrap" : ""));
  }
  std::vector<int64_t> pads;
  double value = 0;
  if (ctx.version() < 11) {
    pads = ctx.Ints("pads");
    value = ctx.Float("value", 0.0);
  } else {
    ctx.RequireAllKnown({{1, "pads"}, {2, "constant_value"}, {3, "axes"}});
    pads = ctx.RequireConstInts(1, "pads");
    if (ctx.HasInput(2)) {
      auto v = ctx.ConstScalar(2);
      if (!v) ctx.RequireKnown(2, "constant_value");
      value = *v;
    }
    if (ctx.HasInput(3)) {
      // From version 18: pads holds the begins, then the ends, of these axes only.
      std::vector<int64_t> axes = ctx.RequireConstInts(3, "axes");
      if (pads.size() != 2 * axes.size()) {
        ctx.Invalid("pads has " + std::to_string(pads.size()) + " values for " +
                    std::to_string(axes.size()) + " axes (2 per axis)");
      }
      std::vector<int64_t> full(2 * rank, 0);
      std::vector<bool> seen(rank, false);
      for (size_t i = 0; i < axes.size(); ++i) {
        int a = NormalizeAxis(ctx, axes[i], rank, "axes entry");
        if (seen[a]) ctx.Invalid("axes repeats axis " + std::to_string(a));
        seen[a] = true;
        full[a] = pads[i];
        full[a + rank] = pads[i + axes.size()];
      }
      pads = full;
    }
  }
  if (static_cast<int>(pads.size()) != 2 * rank) {
    ctx.Invalid("pads has " + std::to_string(pads.size()) + " values for a " +
                std::to_string(rank) + "-D input (2 per axis)");
  }
  if (wrap) return {WrapPad(ctx, pads, rank)};
  std::vector<int64_t> width;
  for (int i = 0; i < rank; ++i) {
    if (pads[i] < 0 || pads[i + rank] < 0) ctx.Unsupported("negative pads (cropping)");
    if (pads[i] > (int64_t{1} << 31) || pads[i + rank] > (int64_t{1} << 31)) {
      ctx.Unsupported("pads larger than 2^31");
    }
    width.push_back(pads[i]);
    width.push_back(pads[i + rank]);
  }
  relax::Attrs attrs;
  attrs.Set("pad_width", width).Set("pad_mode", mode).Set("pad_value", value);
  return {ctx.Call("nn.pad", {ctx.Input(0)}, attrs)};
}

// CenterCropPad (version 18): each of `axes` cropped or zero-padded to the given size around
// its centre (the extra element of an odd difference goes to the end).
Outputs CenterCropPad(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  std::vector<int64_t> sizes = ctx.RequireConstInts(1, "shape");
  std::vector<int64_t> axes;
  if (auto given = ctx.OptInts("axes")) {
    for (int64_t a : *given) axes.push_back(NormalizeAxis(ctx, a, rank, "axes entry"));
  } else {
    for (int i = 0; i < rank; ++i) axes.push_back(i);
  }
  if (sizes.size() != axes.size()) {
    ctx.Invalid("shape has " + std::to_string(sizes.size()) + " sizes for " +
                std::to_string(axes.size()) + " axes");
  }
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  Expr y = ctx.Input(0);
  std::vector<int64_t> width(2 * rank, 0);
  bool pad = false;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto dim = AsConstInt(shape[axes[i]]);
    if (!dim) ctx.Unsupported("a symbolic dim to crop or pad");
    int64_t want = sizes[i];
    if (want < 0 || want > (int64_t{1} << 31)) ctx.Invalid("size " + std::to_string(want));
    if (want < *dim) {
      int64_t begin = (*dim - want) / 2;
      relax::Attrs slice;
      slice.Set("axes", {axes[i]})
          .Set("begin", {begin})
          .Set("end", {begin + want})
          .Set("strides", {1});
      y = ctx.Call("strided_slice", {y}, slice);
    } else if (want > *dim) {
      width[2 * axes[i]] = (want - *dim) / 2;
      width[2 * axes[i] + 1] = want - *dim - (want - *dim) / 2;
      pad = true;
    }
  }
  if (!pad) return {y};
  relax::Attrs attrs;
  attrs.Set("pad_width", width).Set("pad_mode", std::string("constant")).Set("pad_value", 0.0);
  return {ctx.Call("nn.pad", {y}, attrs)};
}

// DepthToSpace and SpaceToDepth: a reshape, a transpose and a reshape.
Outputs BlockRearrange(NodeContext& ctx) {
  bool to_space = ctx.node().op_type == "DepthToSpace";
  std::optional<int64_t> block = ctx.OptInt("blocksize");
  if (!block || *block < 1) ctx.Invalid("attribute 'blocksize' (a positive int) is required");
  if (*block > (int64_t{1} << 20)) ctx.Unsupported("blocksize " + std::to_string(*block));
  // SpaceToDepth reads a mode from version 28.
  std::string mode = to_space || ctx.version() >= 28 ? ctx.String("mode", "DCR") : "DCR";
  if (mode != "DCR" && mode != "CRD") ctx.Invalid("mode '" + mode + "' is not DCR or CRD");
  if (ctx.InputRank(0) != 4) ctx.Invalid("the input must be 4-D (NCHW)");
  std::vector<PrimExpr> s = ctx.RequireShape(0);
  PrimExpr b = relax::DimConst(*block), bb = relax::DimConst(*block * *block);
  Expr x = ctx.Input(0);
  auto exact = [&](const PrimExpr& dim, const PrimExpr& by, const char* what) {
    auto q = relax::DivideDimExact(dim, by);
    if (!q) {
      ctx.Invalid(std::string(what) + " " + relax::DimToString(dim) + " is not divisible by " +
                  relax::DimToString(by));
    }
    return *q;
  };
  if (to_space) {
    PrimExpr c = exact(s[1], bb, "channels");
    bool dcr = mode == "DCR";
    std::vector<PrimExpr> split = dcr ? std::vector<PrimExpr>{s[0], b, b, c, s[2], s[3]}
                                      : std::vector<PrimExpr>{s[0], c, b, b, s[2], s[3]};
    std::vector<int64_t> perm =
        dcr ? std::vector<int64_t>{0, 3, 4, 1, 5, 2} : std::vector<int64_t>{0, 1, 4, 2, 5, 3};
    Expr y = ctx.Call("permute_dims", {ReshapeTo(ctx, x, split)}, relax::Attrs().Set("axes", perm));
    return {ReshapeTo(ctx, y, {s[0], c, s[2] * b, s[3] * b})};
  }
  PrimExpr h = exact(s[2], b, "height"), w = exact(s[3], b, "width");
  std::vector<int64_t> perm = mode == "DCR" ? std::vector<int64_t>{0, 3, 5, 1, 2, 4}
                                            : std::vector<int64_t>{0, 1, 3, 5, 2, 4};
  Expr y = ctx.Call("permute_dims", {ReshapeTo(ctx, x, {s[0], s[1], h, b, w, b})},
                    relax::Attrs().Set("axes", perm));
  return {ReshapeTo(ctx, y, {s[0], s[1] * bb, h, w})};
}

Outputs Trilu(NodeContext& ctx) {
  bool upper = ctx.Int("upper", 1) != 0;
  int64_t k = 0;
  if (ctx.HasInput(1)) {
    std::vector<int64_t> kv = ctx.RequireConstInts(1, "k");
    if (kv.size() != 1) ctx.Invalid("k must hold one value");
    k = kv[0];
  }
  return {ctx.Call(upper ? "triu" : "tril", {ctx.Input(0)}, relax::Attrs().Set("k", k))};
}

}  // namespace

void RegisterManipulateConverters(ConverterTable& t) {
  // Versions from 19 to 25 of Reshape, Flatten, Squeeze, Unsqueeze, Transpose and Pad add dtypes
  // only (float8, int4, float4, float8e8m0, int2), which Kiln refuses where a tensor is read.
  t.Add("Reshape", 5, Reshape, 25);
  t.Add("Flatten", 1, Flatten, 25);
  t.Add("Squeeze", 1, Squeeze, 25);
  t.Add("Unsqueeze", 1, Unsqueeze, 25);
  t.Add("Transpose", 1, Transpose, 25);
  t.Add("Concat", 4, Concat);
  t.Add("Split", 2, Split, 18);
  t.Add("Slice", 1, Slice);
  t.Add("Gather", 1, Gather);
  t.Add("GatherElements", 11, GatherElements);
  t.Add("Expand", 8, Expand);
  t.Add("Tile", 6, Tile);
  t.Add("Pad", 2, Pad, 25);  // 18: axes input; 19: wrap mode
  t.Add("DepthToSpace", 1, BlockRearrange, 28);
  t.Add("SpaceToDepth", 1, BlockRearrange, 28);  // 28: mode
  t.Add("Trilu", 14, Trilu);
  t.Add("CenterCropPad", 18, CenterCropPad, 18);
  t.Add("GatherND", 11, GatherND);  // 12: batch_dims
  // Only as GNN message passing (convert_gnn_spmm.h); the deprecated Scatter not at all.
  t.Add("ScatterElements", 11, ScatterElementsAsSpmm, 18);  // 16: reduction; 18: max, min
  t.Add("ScatterND", 11, ScatterNDAsSpmm, 18);
  t.AddUnsupported("Scatter", "Kiln's Relax ops have no scatter");
  for (const char* op : {"NonZero", "Compress", "Unique"}) {
    t.AddUnsupported(op, "its output shape depends on the input data");
  }
  t.AddUnsupported("TopK", "Kiln's Relax ops have no top-k");
  t.AddUnsupported("ReverseSequence", "Kiln's Relax ops have no reverse");
}

}  // namespace kiln::ir::frontend::onnx
