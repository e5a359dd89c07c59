// 2-D pooling over NCHW, as TVM's topi writes it. max and avg pooling pad first ("pad_temp":
// the lowest value for max, 0 for avg; ceil_mode pads stride - 1 more at the end so the last
// partial window is inside), then reduce the window ("pool_max", "pool_sum"); avg divides by
// the window's size counted as topi does (with or without the padding, never past the padded
// input). Adaptive and global average pooling sum windows of computed bounds
// ("adaptive_pool_sum") and divide by their size ("adaptive_pool_avg").
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/relax/transform/legalize/compute_util.h"
#include "ir/relax/transform/legalize/window.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;

const std::vector<std::string> kAxes = {"ax0", "ax1", "ax2", "ax3"};

struct Pool {
  Window win;
  std::vector<int64_t> size;
  bool ceil_mode = false;
};

Pool ReadPool(const LegalizeContext& ctx) {
  Pool p;
  p.win = ReadWindow(ctx, 2);
  p.size = IntsAttr(ctx, "pool_size", 2);
  p.ceil_mode = ctx.attrs().GetBool("ceil_mode");
  return p;
}

Tensor PadForPool(const Tensor& data, const Pool& p, const ir::Expr& value) {
  std::vector<int64_t> before = {p.win.pad[0], p.win.pad[1]};
  std::vector<ir::Expr> extents;
  for (int i = 0; i < 2; ++i) {
    int64_t extra = p.ceil_mode ? p.win.strides[i] - 1 : 0;
    extents.push_back(AddConst(data.shape()[2 + i], p.win.pad[i] + p.win.pad[2 + i] + extra));
  }
  return PadSpatial(data, before, extents, value, "pad_temp");
}

// The window's reduction over `padded`: combine(padded[n, c, y * s + ry * d, x * s + rx * d]).
Tensor WindowReduce(const Tensor& padded, const Pool& p, const std::vector<ir::Expr>& shape,
                    compute::ReduceKind kind, const std::string& name) {
  ir::IterVar ry = compute::ReduceAxis(I64(p.size[0]), "rv0");
  ir::IterVar rx = compute::ReduceAxis(I64(p.size[1]), "rv1");
  return compute::Compute(
      shape,
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x) {
        ir::Expr v =
            padded(n, c, MulConst(y, p.win.strides[0]) + MulConst(ry.var, p.win.dilation[0]),
                   MulConst(x, p.win.strides[1]) + MulConst(rx.var, p.win.dilation[1]));
        return kind == compute::ReduceKind::kMax ? compute::Max(v, {ry, rx})
                                                 : compute::Sum(v, {ry, rx});
      },
      name, kAxes);
}

Expr MaxPool2d(LegalizeContext& ctx) {
  Tensor data = ctx.Input(0);
  Pool p = ReadPool(ctx);
  Tensor padded = PadForPool(data, p, compute::MinValue(data.dtype()));
  Tensor out = WindowReduce(padded, p, ctx.OutShape(), compute::ReduceKind::kMax, "pool_max");
  return ctx.CallKernel("max_pool2d", {out});
}

// The number of elements a window starting at output index `o` covers along spatial dim `i`.
ir::Expr WindowCount(const Pool& p, int i, const ir::Expr& o, const ir::Expr& in_extent,
                     bool count_include_pad) {
  int64_t s = p.win.strides[i], d = p.win.dilation[i], k = p.size[i];
  ir::Expr start = AddConst(MulConst(o, s), -p.win.pad[i]);
  ir::Expr end = AddConst(start, (k - 1) * d);
  if (count_include_pad) {
    end = ir::Min(end, AddConst(in_extent, p.win.pad[2 + i] - 1));
  } else {
    end = ir::Min(end, AddConst(in_extent, -1));
    // A window starting in the padding counts from its first element inside the data.
    start = ir::Select(start < I64(0), ir::FloorMod(start, I64(d)), start);
  }
  ir::Expr span = end - start;
  return AddConst(d == 1 ? span : ir::FloorDiv(span, I64(d)), 1);
}

Expr AvgPool2d(LegalizeContext& ctx) {
  Tensor data = ctx.Input(0);
  Pool p = ReadPool(ctx);
  bool include_pad = ctx.attrs().GetBool("count_include_pad");
  DataType dtype = data.dtype();
  std::vector<ir::Expr> shape = ctx.OutShape();
  Tensor padded = PadForPool(data, p, Const(dtype, 0));
  Tensor sum = WindowReduce(padded, p, shape, compute::ReduceKind::kSum, "pool_sum");
  Tensor out = compute::Compute(
      shape,
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x) {
        ir::Expr count = WindowCount(p, 0, y, data.shape()[2], include_pad) *
                         WindowCount(p, 1, x, data.shape()[3], include_pad);
        if (!include_pad) count = ir::Max(count, I64(1));
        return sum(n, c, y, x) / CastTo(dtype, count);
      },
      "pool_avg", kAxes);
  return ctx.CallKernel("avg_pool2d", {out});
}

// floor(o * in / out) and ceil((o + 1) * in / out): the bounds of adaptive window o.
ir::Expr AdaptiveStart(const ir::Expr& o, const ir::Expr& in, const ir::Expr& out) {
  return ir::FloorDiv(o * in, out);
}
ir::Expr AdaptiveEnd(const ir::Expr& o, const ir::Expr& in, const ir::Expr& out) {
  return ir::FloorDiv((o + I64(1)) * in + out - I64(1), out);
}

// The largest adaptive window along a dim: exact for constant sizes, else a bound.
ir::Expr MaxWindow(const ir::Expr& in, const ir::Expr& out) {
  auto i = AsConstInt(in), o = AsConstInt(out);
  if (i && o && *o > 0) {
    int64_t widest = 1;
    for (int64_t k = 0; k < *o; ++k) {
      int64_t start = k * *i / *o, end = ((k + 1) * *i + *o - 1) / *o;
      widest = std::max(widest, end - start);
    }
    return I64(widest);
  }
  return ir::FloorDiv(in + out - I64(1), out) + I64(1);
}

Expr AdaptiveAvgPool(LegalizeContext& ctx, const std::string& name) {
  Tensor data = ctx.Input(0);
  DataType dtype = data.dtype();
  std::vector<ir::Expr> shape = ctx.OutShape();
  const ir::Expr& h = data.shape()[2];
  const ir::Expr& w = data.shape()[3];
  bool global = IsConstInt(shape[2], 1) && IsConstInt(shape[3], 1);
  // Output (1, 1) reads whole planes: no bounds to compute.
  ir::IterVar ry = compute::ReduceAxis(global ? h : MaxWindow(h, shape[2]), "rv0");
  ir::IterVar rx = compute::ReduceAxis(global ? w : MaxWindow(w, shape[3]), "rv1");
  Tensor sum = compute::Compute(
      shape,
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x) {
        if (global) return compute::Sum(data(n, c, ry.var, rx.var), {ry, rx});
        ir::Expr y0 = AdaptiveStart(y, h, shape[2]), x0 = AdaptiveStart(x, w, shape[3]);
        ir::Expr inside =
            ry.var < AdaptiveEnd(y, h, shape[2]) - y0 && rx.var < AdaptiveEnd(x, w, shape[3]) - x0;
        return compute::Sum(data(n, c, ClampIndex(y0 + ry.var, h), ClampIndex(x0 + rx.var, w)),
                            {ry, rx}, inside);
      },
      "adaptive_pool_sum", kAxes);
  Tensor out = compute::Compute(
      shape,
      [&](ir::Var n, ir::Var c, ir::Var y, ir::Var x) {
        ir::Expr count = global ? h * w
                                : (AdaptiveEnd(y, h, shape[2]) - AdaptiveStart(y, h, shape[2])) *
                                      (AdaptiveEnd(x, w, shape[3]) - AdaptiveStart(x, w, shape[3]));
        return sum(n, c, y, x) / CastTo(dtype, count);
      },
      "adaptive_pool_avg", kAxes);
  return ctx.CallKernel(name, {out});
}

}  // namespace

void AddPoolRules(RuleTable& r) {
  r["nn.max_pool2d"] = MaxPool2d;
  r["nn.avg_pool2d"] = AvgPool2d;
  r["nn.adaptive_avg_pool2d"] = [](LegalizeContext& ctx) {
    return AdaptiveAvgPool(ctx, "adaptive_avg_pool2d");
  };
  r["nn.global_avg_pool2d"] = [](LegalizeContext& ctx) {
    return AdaptiveAvgPool(ctx, "global_avg_pool2d");
  };
}

}  // namespace kiln::ir::relax::legalize
