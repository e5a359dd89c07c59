// Window attributes of Conv, ConvTranspose and pooling, with auto_pad resolved to pads.
#include "ir/frontend/onnx/window.h"

namespace kiln::ir::frontend::onnx {

std::vector<int64_t> Window::Padding2D() const {
  if (rank() == 1) return {0, pads[0], 0, pads[1]};
  return pads;
}

std::vector<int64_t> Window::To2D(const std::vector<int64_t>& v, int64_t lead) {
  if (v.size() == 1) return {lead, v[0]};
  return v;
}

void RequireSpatialRank(NodeContext& ctx, int spatial_rank) {
  if (spatial_rank < 1) {
    ctx.Invalid("the input needs at least one spatial axis after batch and channels");
  }
  if (spatial_rank > 2) {
    ctx.Unsupported(std::to_string(spatial_rank) +
                    "-D windows are not supported (Kiln's Relax ops have 1-D and 2-D ones)");
  }
}

Window ReadWindow(NodeContext& ctx, const std::vector<int64_t>& kernel,
                  const std::vector<PrimExpr>& spatial, bool read_dilations) {
  size_t n = kernel.size();
  Window w;
  w.kernel = kernel;
  // Window sizes beyond 2^31 are not meaningful and would overflow the shape arithmetic.
  constexpr int64_t kMaxWindow = int64_t{1} << 31;
  for (int64_t k : kernel) {
    if (k < 1) ctx.Invalid("kernel dims must be positive, got " + std::to_string(k));
    if (k > kMaxWindow) ctx.Unsupported("kernel dim " + std::to_string(k) + " is too large");
  }
  auto read = [&](const char* name, std::vector<int64_t> def) {
    std::vector<int64_t> v = ctx.Ints(name, std::move(def));
    if (v.size() != n) {
      ctx.Invalid(std::string(name) + " has " + std::to_string(v.size()) + " values for " +
                  std::to_string(n) + " spatial axes");
    }
    for (int64_t x : v) {
      if (x < 1) ctx.Invalid(std::string(name) + " must be positive, got " + std::to_string(x));
      if (x > kMaxWindow)
        ctx.Unsupported(std::string(name) + " " + std::to_string(x) + " is too large");
    }
    return v;
  };
  w.strides = read("strides", std::vector<int64_t>(n, 1));
  w.dilations =
      read_dilations ? read("dilations", std::vector<int64_t>(n, 1)) : std::vector<int64_t>(n, 1);
  std::string auto_pad = ctx.String("auto_pad", "NOTSET");
  std::optional<std::vector<int64_t>> pads = ctx.OptInts("pads");
  if (auto_pad == "NOTSET") {
    w.pads = pads.value_or(std::vector<int64_t>(2 * n, 0));
    if (w.pads.size() != 2 * n) {
      ctx.Invalid("pads has " + std::to_string(w.pads.size()) + " values, expected " +
                  std::to_string(2 * n) + " (begin and end of each spatial axis)");
    }
    for (int64_t p : w.pads) {
      if (p < 0) ctx.Unsupported("negative pads (" + std::to_string(p) + ")");
      if (p > kMaxWindow) ctx.Unsupported("pads " + std::to_string(p) + " is too large");
    }
    return w;
  }
  w.pads.assign(2 * n, 0);
  if (auto_pad == "VALID") return w;
  if (auto_pad != "SAME_UPPER" && auto_pad != "SAME_LOWER") {
    ctx.Invalid("auto_pad '" + auto_pad + "' is not NOTSET, SAME_UPPER, SAME_LOWER or VALID");
  }
  for (size_t i = 0; i < n; ++i) {
    int64_t extent = (kernel[i] - 1) * w.dilations[i] + 1;
    int64_t total;
    if (w.strides[i] == 1) {
      total = extent - 1;
    } else {
      auto in = i < spatial.size() ? AsConstInt(spatial[i]) : std::nullopt;
      if (!in) {
        ctx.Unsupported("auto_pad " + auto_pad + " with stride " + std::to_string(w.strides[i]) +
                        " over a spatial dim not known at import time");
      }
      int64_t out = (*in + w.strides[i] - 1) / w.strides[i];
      total = std::max<int64_t>((out - 1) * w.strides[i] + extent - *in, 0);
    }
    int64_t small = total / 2, large = total - total / 2;
    w.pads[i] = auto_pad == "SAME_UPPER" ? small : large;
    w.pads[i + n] = auto_pad == "SAME_UPPER" ? large : small;
  }
  return w;
}

}  // namespace kiln::ir::frontend::onnx
