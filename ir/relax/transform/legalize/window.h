// Sliding windows over the spatial dims of NCHW tensors, shared by convolution and pooling:
// the stride, dilation and padding attributes, and the padding stage ("pad_temp") that
// topi puts in front of the window's reduction. Internal to ir/relax/transform/legalize.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/relax/transform/legalize/context.h"

namespace kiln::ir::relax::legalize {

struct Window {
  std::vector<int64_t> strides;   // per spatial dim
  std::vector<int64_t> dilation;  // per spatial dim
  std::vector<int64_t> pad;       // before for each spatial dim, then after for each
};

// The int-list attribute `name` with `n` values (one value means n equal ones).
std::vector<int64_t> IntsAttr(const LegalizeContext& ctx, const std::string& name, size_t n);
// strides, dilation and padding (1, 2 or 4 values: (top, left, bottom, right)) of a call
// over `spatial` spatial dims.
Window ReadWindow(const LegalizeContext& ctx, size_t spatial);

// `data` (N, C, spatial...) extended to `extents` along the spatial dims, with `before`
// elements of `value` in front; the elements past the data are `value` too. `data` itself
// when nothing is added.
Tensor PadSpatial(const Tensor& data, const std::vector<int64_t>& before,
                  const std::vector<ir::Expr>& extents, const ir::Expr& value,
                  const std::string& name);
// The same with the window's padding on both sides.
Tensor PadSpatial(const Tensor& data, const std::vector<int64_t>& pad, const ir::Expr& value,
                  const std::string& name);

}  // namespace kiln::ir::relax::legalize
