// Pooling: MaxPool and AveragePool (1-D lifted to the 2-D Relax ops; AveragePool dilated from
// version 19), GlobalAveragePool and
// GlobalMaxPool (a reduction over the spatial axes for ranks other than 4).
#include "ir/frontend/onnx/window.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

Outputs Pool(NodeContext& ctx) {
  bool is_max = ctx.node().op_type == "MaxPool";
  int rank = ctx.InputRank(0);
  RequireSpatialRank(ctx, rank - 2);
  std::optional<std::vector<int64_t>> kernel = ctx.OptInts("kernel_shape");
  if (!kernel) ctx.Invalid("attribute 'kernel_shape' is required");
  if (static_cast<int>(kernel->size()) != rank - 2) {
    ctx.Invalid("kernel_shape has " + std::to_string(kernel->size()) + " values for " +
                std::to_string(rank - 2) + " spatial axes");
  }
  std::vector<PrimExpr> shape = ctx.RequireShape(0);
  // AveragePool has dilations from version 19.
  Window w = ReadWindow(ctx, *kernel, std::vector<PrimExpr>(shape.begin() + 2, shape.end()),
                        is_max || ctx.version() >= 19);
  bool ceil_mode = ctx.Int("ceil_mode", 0) != 0;
  // storage_order only changes the Indices output, which is not supported.
  if (is_max) ctx.Ignore("storage_order");
  relax::Attrs attrs;
  attrs.Set("pool_size", Window::To2D(w.kernel, 1))
      .Set("strides", Window::To2D(w.strides, 1))
      .Set("padding", w.Padding2D())
      .Set("dilation", Window::To2D(w.dilations, 1))
      .Set("ceil_mode", ceil_mode);
  if (!is_max) attrs.Set("count_include_pad", ctx.Int("count_include_pad", 0) != 0);
  Expr x = ctx.Input(0);
  if (rank == 3) x = ctx.Call("expand_dims", {x}, relax::Attrs().Set("axis", {2}));
  Expr y = ctx.Call(is_max ? "nn.max_pool2d" : "nn.avg_pool2d", {x}, attrs);
  if (rank == 3) y = ctx.Call("squeeze", {y}, relax::Attrs().Set("axis", {2}));
  return {y};
}

Outputs GlobalPool(NodeContext& ctx) {
  bool is_max = ctx.node().op_type == "GlobalMaxPool";
  int rank = ctx.InputRank(0);
  if (rank < 3) ctx.Invalid("the input needs batch, channel and spatial axes");
  Expr x = ctx.Input(0);
  if (rank == 4 && !is_max) return {ctx.Call("nn.global_avg_pool2d", {x})};
  std::vector<int64_t> axes;
  for (int i = 2; i < rank; ++i) axes.push_back(i);
  return {ctx.Call(is_max ? "max" : "mean", {x}, AxisAttrs(axes, true))};
}

}  // namespace

void RegisterPoolConverters(ConverterTable& t) {
  // Version 22 of the pools added bfloat16 only.
  t.Add("MaxPool", 1, Pool, 22);
  t.Add("AveragePool", 1, Pool, 22);  // 19: dilations
  t.Add("GlobalAveragePool", 1, GlobalPool, 22);
  t.Add("GlobalMaxPool", 1, GlobalPool, 22);
  for (const char* op : {"LpPool", "GlobalLpPool"}) {
    t.AddUnsupported(op, "Kiln's Relax ops have no Lp pooling");
  }
  t.AddUnsupported("MaxUnpool", "Kiln's Relax ops have no unpooling (a scatter)");
  t.AddUnsupported("MaxRoiPool", "Kiln's Relax ops have no region-of-interest pooling");
  t.AddUnsupported("RoiAlign", "Kiln's Relax ops have no region-of-interest pooling");
}

}  // namespace kiln::ir::frontend::onnx
