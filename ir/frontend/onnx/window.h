// Sliding-window attributes shared by Conv, ConvTranspose and the pooling ops: kernel,
// strides, dilations and pads (with auto_pad resolved), and the lift of 1-D windows to the 2-D
// Relax ops (an extra spatial axis of size 1). Internal to ir/frontend/onnx.
#pragma once

#include <cstdint>
#include <vector>

#include "ir/frontend/onnx/converter.h"

namespace kiln::ir::frontend::onnx {

struct Window {
  std::vector<int64_t> kernel;
  std::vector<int64_t> strides;
  std::vector<int64_t> dilations;
  std::vector<int64_t> pads;  // ONNX order: every axis' begin, then every axis' end

  size_t rank() const { return kernel.size(); }
  // Relax's 2-D padding (top, left, bottom, right); a 1-D window gets 0 on the added axis.
  std::vector<int64_t> Padding2D() const;
  // The attribute as two values, a 1-D one led by `lead` (1 for strides, dilations, kernel).
  static std::vector<int64_t> To2D(const std::vector<int64_t>& v, int64_t lead);
};

// Reads strides, dilations, pads and auto_pad for a window of `kernel` over the spatial dims
// `spatial` (pads need constant spatial dims only for auto_pad SAME_* with strides > 1).
// Unsupported or Invalid with the reason when the attributes do not fit.
Window ReadWindow(NodeContext& ctx, const std::vector<int64_t>& kernel,
                  const std::vector<PrimExpr>& spatial, bool read_dilations = true);

// Spatial rank check shared by the window ops: 1-D and 2-D windows are supported.
void RequireSpatialRank(NodeContext& ctx, int spatial_rank);

}  // namespace kiln::ir::frontend::onnx
