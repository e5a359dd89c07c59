// Reductions: ReduceSum/Mean/Max/Min/Prod and the composed L1, L2, LogSum, LogSumExp and
// SumSquare, with axes as an attribute or an input (ReduceSum from version 13, the others from
// version 18); ArgMax, ArgMin and CumSum. A sum or product of a known shape (an element count)
// is evaluated at import time; a reduction over an empty axis is its identity element.
#include <algorithm>
#include <cmath>
#include <limits>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

// The reduced axes (normalized; empty = all), or nullopt for a no-op (noop_with_empty_axes).
std::optional<std::vector<int64_t>> ReduceAxes(NodeContext& ctx, int rank) {
  const std::string& op = ctx.node().op_type;
  bool axes_input = ctx.version() >= (op == "ReduceSum" ? 13 : 18);
  std::vector<int64_t> axes;
  if (axes_input) {
    if (ctx.HasInput(1)) axes = ctx.RequireConstInts(1, "axes");
    if (ctx.Int("noop_with_empty_axes", 0) != 0 && axes.empty()) return std::nullopt;
  } else {
    axes = ctx.Ints("axes");
  }
  for (int64_t& a : axes) a = NormalizeAxis(ctx, a, rank, "axes entry");
  std::sort(axes.begin(), axes.end());
  if (std::adjacent_find(axes.begin(), axes.end()) != axes.end()) {
    ctx.Invalid("axes repeats an axis");
  }
  return axes;
}

// Sum, product, max or min of a known tensor over all axes.
std::optional<SymTensor> FoldReduce(const std::string& op, const SymTensor& k,
                                    const std::vector<int64_t>& axes, bool keepdims) {
  if (!axes.empty() && static_cast<int>(axes.size()) != k.rank()) return std::nullopt;
  if (k.elems.empty()) return std::nullopt;
  PrimExpr acc = k.elems[0];
  for (size_t i = 1; i < k.elems.size(); ++i) {
    const PrimExpr& e = k.elems[i];
    auto a = AsConstInt(acc), b = AsConstInt(e);
    if (op == "ReduceSum") {
      acc = acc + e;
    } else if (op == "ReduceProd") {
      acc = acc * e;
    } else if (op == "ReduceMax") {
      acc = a && b ? relax::DimConst(std::max(*a, *b)) : Max(acc, e);
    } else if (op == "ReduceMin") {
      acc = a && b ? relax::DimConst(std::min(*a, *b)) : Min(acc, e);
    } else {
      return std::nullopt;
    }
  }
  SymTensor out = SymTensor::Scalar(acc, k.dtype);
  if (keepdims) out.shape.assign(k.rank(), 1);
  return out;
}

// A reduction over an axis of size 0 is the reduction's identity (0 for a sum, 1 for a product,
// -inf for a max, ...): a constant of the output shape, which Relax's reductions cannot
// compute (a reduce loop must have a positive extent). Floating-point and bool inputs with a
// constant output shape; nullopt otherwise, and when no reduced axis is empty.
std::optional<Expr> EmptyReduction(NodeContext& ctx, const std::vector<int64_t>& axes,
                                   bool keepdims) {
  std::optional<std::vector<PrimExpr>> shape = ctx.InputShape(0);
  if (!shape) return std::nullopt;
  bool empty = false;
  std::vector<int64_t> out;
  for (size_t i = 0; i < shape->size(); ++i) {
    bool reduced = axes.empty() || std::count(axes.begin(), axes.end(), i) > 0;
    std::optional<int64_t> dim = AsConstInt((*shape)[i]);
    if (reduced && dim == 0) empty = true;
    if (!reduced && !dim) return std::nullopt;
    if (!reduced) out.push_back(*dim);
    if (reduced && keepdims) out.push_back(1);
  }
  DataType dtype = ctx.InputDType(0);
  if (!empty || !(dtype.is_float() || dtype.is_bool())) return std::nullopt;
  int64_t numel = 1;
  for (int64_t d : out) {
    if (d > (int64_t{1} << 24) || numel * d > (int64_t{1} << 24)) return std::nullopt;
    numel *= d;
  }
  const std::string& op = ctx.node().op_type;
  double inf = std::numeric_limits<double>::infinity();
  double value = 0;
  if (op == "ReduceProd") {
    value = 1;
  } else if (op == "ReduceMax") {
    value = dtype.is_bool() ? 0 : -inf;
  } else if (op == "ReduceMin") {
    value = dtype.is_bool() ? 1 : inf;
  } else if (op == "ReduceLogSum" || op == "ReduceLogSumExp") {
    value = -inf;
  } else if (op == "ReduceMean") {
    value = std::numeric_limits<double>::quiet_NaN();
  }
  if (dtype.is_bool() && !std::isfinite(value)) return std::nullopt;
  HostTensor fill(dtype, out);
  for (int64_t i = 0; i < fill.numel(); ++i) fill.SetDouble(i, value);
  return relax::Constant(fill);
}

// ReduceMax (ReduceMin) of floats. Relax's max starts from the lowest finite value, as TVM's
// does (and Kiln keeps its kernels equal to TVM's): a slice of -inf only, such as an attention
// row masked whole, would give that where ONNX gives -inf. The slices with another value are
// found alongside (the max of x != -inf) and the others set to -inf.
Expr FloatExtremum(NodeContext& ctx, const Expr& x, const relax::Attrs& attrs, bool max) {
  DataType dtype = ctx.InputDType(0);
  double inf = std::numeric_limits<double>::infinity();
  Expr extremum = ctx.Call(max ? "max" : "min", {x}, attrs);
  Expr bound = ctx.Scalar(max ? -inf : inf, dtype);
  Expr other = AsType(ctx, ctx.Call("not_equal", {x, bound}), DataType::Int(8));
  Expr none = ctx.Call("equal", {ctx.Call("max", {other}, attrs), ctx.Scalar(0, DataType::Int(8))});
  return ctx.Call("where", {none, bound, extremum});
}

Outputs Reduce(NodeContext& ctx) {
  const std::string& op = ctx.node().op_type;
  int rank = ctx.InputRank(0);
  bool keepdims = ctx.Int("keepdims", 1) != 0;
  std::optional<std::vector<int64_t>> axes = ReduceAxes(ctx, rank);
  if (!axes) return {ctx.InputValue(0)};
  if (auto k = ctx.Known(0)) {
    if (auto folded = FoldReduce(op, *k, *axes, keepdims)) return {*folded};
  }
  if (auto empty = EmptyReduction(ctx, *axes, keepdims)) return {*empty};
  relax::Attrs attrs;
  if (!axes->empty()) attrs.Set("axis", *axes);
  attrs.Set("keepdims", keepdims);
  Expr x = ctx.Input(0);
  if (ctx.InputDType(0).is_bool() && (op == "ReduceMax" || op == "ReduceMin")) {
    // Any and all: the extremum of the values as 0 and 1.
    Expr as_int = ctx.Call("astype", {x}, relax::Attrs().Set("dtype", DataType::Int(8)));
    Expr r = ctx.Call(op == "ReduceMax" ? "max" : "min", {as_int}, attrs);
    return {ctx.Call("astype", {r}, relax::Attrs().Set("dtype", DataType::Bool()))};
  }
  if (ctx.InputDType(0).is_float() && (op == "ReduceMax" || op == "ReduceMin")) {
    return {FloatExtremum(ctx, x, attrs, op == "ReduceMax")};
  }
  static const std::map<std::string, const char*> kDirect = {
      {"ReduceSum", "sum"}, {"ReduceMean", "mean"}, {"ReduceMax", "max"},
      {"ReduceMin", "min"}, {"ReduceProd", "prod"},
  };
  if (auto it = kDirect.find(op); it != kDirect.end()) return {ctx.Call(it->second, {x}, attrs)};
  if (op == "ReduceL1") return {ctx.Call("sum", {ctx.Call("abs", {x})}, attrs)};
  if (op == "ReduceSumSquare") return {ctx.Call("sum", {ctx.Call("multiply", {x, x})}, attrs)};
  RequireFloatInput(ctx, 0);
  if (op == "ReduceL2") {
    return {ctx.Call("sqrt", {ctx.Call("sum", {ctx.Call("multiply", {x, x})}, attrs)})};
  }
  if (op == "ReduceLogSum") return {ctx.Call("log", {ctx.Call("sum", {x}, attrs)})};
  // LogSumExp, shifted by the maximum so that large inputs do not overflow exp.
  relax::Attrs keep = attrs;
  keep.Set("keepdims", true);
  Expr m = ctx.Call("max", {x}, keep);
  Expr s = ctx.Call("sum", {ctx.Call("exp", {ctx.Call("subtract", {x, m})})}, keep);
  Expr y = ctx.Call("add", {ctx.Call("log", {s}), m});
  if (!keepdims) {
    relax::Attrs squeeze;
    if (!axes->empty()) squeeze.Set("axis", *axes);
    if (axes->empty()) {
      std::vector<int64_t> all;
      for (int i = 0; i < rank; ++i) all.push_back(i);
      squeeze.Set("axis", all);
    }
    y = ctx.Call("squeeze", {y}, squeeze);
  }
  return {y};
}

Outputs ArgReduce(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  int axis = NormalizeAxis(ctx, ctx.Int("axis", 0), rank);
  bool keepdims = ctx.Int("keepdims", 1) != 0;
  bool last = ctx.Int("select_last_index", 0) != 0;
  const char* op = ctx.node().op_type == "ArgMax" ? "argmax" : "argmin";
  relax::Attrs attrs = relax::Attrs().Set("axis", axis).Set("keepdims", keepdims);
  if (!last) return {ctx.Call(op, {ctx.Input(0)}, attrs)};
  // The last extremum is the first one of the reversed input, counted from the end.
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  auto dim = AsConstInt(shape[axis]);
  if (!dim) ctx.Unsupported("select_last_index=1 over a symbolic dim");
  Expr first = ctx.Call(op, {Reverse(ctx, ctx.Input(0), axis)}, attrs);
  return {
      ctx.Call("subtract", {ctx.Scalar(static_cast<double>(*dim - 1), DataType::Int(64)), first})};
}

// CumSum, and CumProd (version 26).
Outputs CumSum(NodeContext& ctx) {
  int rank = ctx.InputRank(0);
  std::vector<int64_t> axis = ctx.RequireConstInts(1, "axis");
  if (axis.size() != 1) ctx.Invalid("axis must hold one value");
  bool reverse = ctx.Int("reverse", 0) != 0;
  int a = NormalizeAxis(ctx, axis[0], rank);
  relax::Attrs attrs;
  attrs.Set("axis", a).Set("exclusive", ctx.Int("exclusive", 0) != 0);
  const char* op = ctx.node().op_type == "CumProd" ? "cumprod" : "cumsum";
  if (!reverse) return {ctx.Call(op, {ctx.Input(0)}, attrs)};
  // Scanning from the end: reverse, scan forward, reverse back.
  Expr scanned = ctx.Call(op, {Reverse(ctx, ctx.Input(0), a)}, attrs);
  return {Reverse(ctx, scanned, a)};
}

}  // namespace

void RegisterReduceConverters(ConverterTable& t) {
  // Version 18 takes axes as an input (ReduceSum did from 13); 20 adds bool to ReduceMax and
  // ReduceMin; 28 drops integers from ReduceLogSum and ReduceLogSumExp.
  t.Add("ReduceSum", 1, Reduce, 13);
  for (const char* op : {"ReduceMean", "ReduceProd", "ReduceL1", "ReduceL2", "ReduceSumSquare"}) {
    t.Add(op, 1, Reduce, 18);
  }
  for (const char* op : {"ReduceMax", "ReduceMin"}) t.Add(op, 1, Reduce, 20);
  for (const char* op : {"ReduceLogSum", "ReduceLogSumExp"}) t.Add(op, 1, Reduce, 28);
  t.Add("ArgMax", 1, ArgReduce);
  t.Add("ArgMin", 1, ArgReduce);
  t.Add("CumSum", 11, CumSum);
  t.Add("CumProd", 26, CumSum, 26);
}

}  // namespace kiln::ir::frontend::onnx
