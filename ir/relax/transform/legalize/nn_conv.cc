// 2-D convolution (NCHW data, OIHW weight) and transposed convolution (IOHW weight), as
// TVM's topi writes them: a padding stage ("pad_temp", left out when there is no padding)
// and a reduction over input channels and the kernel window, with strides, dilation and
// groups. The transposed convolution dilates and pads its input by the strides in one stage
// ("data_pad") and convolves that with the flipped kernel.
#include "ir/compute/math.h"
#include "ir/compute/reduce.h"
#include "ir/relax/transform/legalize/compute_util.h"
#include "ir/relax/transform/legalize/window.h"

namespace kiln::ir::relax::legalize {

namespace {

using compute::Const;

const std::vector<std::string> kNCHW = {"nn", "ff", "yy", "xx"};

// Channels per group: `channels` / `groups`, folded when constant.
ir::Expr PerGroup(const ir::Expr& channels, int64_t groups) {
  if (groups == 1) return channels;
  if (auto c = AsConstInt(channels)) return I64(*c / groups);
  return ir::FloorDiv(channels, I64(groups));
}

Expr Conv2d(LegalizeContext& ctx) {
  Tensor data = ctx.Input(0), weight = ctx.Input(1);
  Window win = ReadWindow(ctx, 2);
  int64_t groups = ctx.attrs().GetInt("groups");
  DataType dtype = ctx.OutDType();
  std::vector<ir::Expr> out_shape = ctx.OutShape();
  Tensor padded = PadSpatial(data, win.pad, Const(data.dtype(), 0), "pad_temp");

  ir::Expr in_per_group = weight.shape()[1];
  ir::Expr out_per_group = PerGroup(weight.shape()[0], groups);
  ir::IterVar rc = compute::ReduceAxis(in_per_group, "rc");
  ir::IterVar ry = compute::ReduceAxis(weight.shape()[2], "ry");
  ir::IterVar rx = compute::ReduceAxis(weight.shape()[3], "rx");
  Tensor out = compute::Compute(
      out_shape,
      [&](ir::Var n, ir::Var f, ir::Var y, ir::Var x) {
        ir::Expr channel = rc.var;
        if (groups != 1) channel = ir::FloorDiv(f, out_per_group) * in_per_group + rc.var;
        ir::Expr iy = MulConst(y, win.strides[0]) + MulConst(ry.var, win.dilation[0]);
        ir::Expr ix = MulConst(x, win.strides[1]) + MulConst(rx.var, win.dilation[1]);
        return compute::Sum(CastTo(dtype, padded(n, channel, iy, ix)) *
                                CastTo(dtype, weight(f, rc.var, ry.var, rx.var)),
                            {rc, ry, rx});
      },
      groups == 1 ? "conv2d_nchw" : "group_conv2d_nchw", kNCHW);
  return ctx.CallKernel("conv2d", {out});
}

Expr Conv2dTranspose(LegalizeContext& ctx) {
  Tensor data = ctx.Input(0), weight = ctx.Input(1);
  Window win = ReadWindow(ctx, 2);
  int64_t groups = ctx.attrs().GetInt("groups");
  DataType dtype = ctx.OutDType();
  std::vector<ir::Expr> out_shape = ctx.OutShape();
  auto kh = AsConstInt(weight.shape()[2]), kw = AsConstInt(weight.shape()[3]);
  if (!kh || !kw) ctx.Unsupported("the kernel's height and width must be constants");
  std::vector<int64_t> kernel = {*kh, *kw};

  // data_pad[z] is data[(z - front) / stride] where that divides exactly, else 0; front is
  // the padding that makes the flipped kernel line up with the first output.
  std::vector<int64_t> front(2);
  std::vector<ir::Expr> pad_shape = {data.shape()[0], data.shape()[1]};
  for (int i = 0; i < 2; ++i) {
    front[i] = win.dilation[i] * (kernel[i] - 1) - win.pad[i];
    pad_shape.push_back(AddConst(out_shape[2 + i], win.dilation[i] * (kernel[i] - 1)));
  }
  Tensor data_pad = compute::Compute(
      pad_shape,
      [&](ir::Var n, ir::Var c, ir::Var z, ir::Var u) {
        std::vector<ir::Expr> pos = {AddConst(z, -front[0]), AddConst(u, -front[1])};
        std::vector<ir::Expr> index = {n, c};
        ir::Expr on_grid;
        for (int i = 0; i < 2; ++i) {
          if (win.strides[i] == 1) {
            index.push_back(pos[i]);
            continue;
          }
          index.push_back(ir::FloorDiv(pos[i], I64(win.strides[i])));
          ir::Expr hit = ir::FloorMod(pos[i], I64(win.strides[i])) == I64(0);
          on_grid = on_grid.defined() ? (on_grid && hit) : hit;
        }
        ir::Expr value = compute::PaddedLoad(data, index, Const(data.dtype(), 0));
        if (!on_grid.defined()) return value;
        return ir::Select(on_grid, value, Const(data.dtype(), 0));
      },
      "data_pad", {"i0", "i1", "i2", "i3"});

  ir::Expr out_per_group = weight.shape()[1];
  ir::Expr in_per_group = PerGroup(data.shape()[1], groups);
  ir::IterVar rc = compute::ReduceAxis(in_per_group, "rc");
  ir::IterVar ry = compute::ReduceAxis(weight.shape()[2], "ry");
  ir::IterVar rx = compute::ReduceAxis(weight.shape()[3], "rx");
  Tensor out = compute::Compute(
      out_shape,
      [&](ir::Var n, ir::Var f, ir::Var y, ir::Var x) {
        ir::Expr channel = rc.var;
        ir::Expr f_in_group = f;
        if (groups != 1) {
          channel = ir::FloorDiv(f, out_per_group) * in_per_group + rc.var;
          f_in_group = ir::FloorMod(f, out_per_group);
        }
        ir::Expr iy = y + MulConst(ry.var, win.dilation[0]);
        ir::Expr ix = x + MulConst(rx.var, win.dilation[1]);
        ir::Expr ky = I64(kernel[0] - 1) - ry.var, kx = I64(kernel[1] - 1) - rx.var;
        return compute::Sum(CastTo(dtype, data_pad(n, channel, iy, ix)) *
                                CastTo(dtype, weight(channel, f_in_group, ky, kx)),
                            {rc, ry, rx});
      },
      "conv2d_transpose_nchw", kNCHW);
  return ctx.CallKernel("conv2d_transpose", {out});
}

}  // namespace

void AddConvRules(RuleTable& r) {
  r["nn.conv2d"] = Conv2d;
  r["nn.conv2d_transpose"] = Conv2dTranspose;
}

}  // namespace kiln::ir::relax::legalize
