// The Metal argument layout and the packing of scalar arguments.
#include "codegen/metal/metal_abi.h"

#include <cstring>

namespace kiln::codegen::metal {

codegen::gpu::GpuLimits MetalLimits() {
  codegen::gpu::GpuLimits limits;
  limits.max_threads_per_block = 1024;
  limits.max_block_extent = {1024, 1024, 1024};
  // A threadgroup position is a uint; the kernels read it as an int.
  limits.max_grid_extent = {(int64_t{1} << 31) - 1, (int64_t{1} << 31) - 1, (int64_t{1} << 31) - 1};
  limits.max_shared_bytes = 32 * 1024;
  limits.max_buffer_arguments = kMaxBufferArguments;
  limits.warp_size = kSimdgroupSize;
  limits.fp16 = true;
  limits.fp64 = false;
  limits.int64 = true;
  return limits;
}

MetalArgLayout LayoutOf(const std::vector<bool>& is_buffer) {
  MetalArgLayout layout;
  int scalars = 0;
  for (bool buffer : is_buffer) {
    layout.buffer_index.push_back(buffer ? layout.num_buffers++ : -1);
    layout.args_offset.push_back(buffer ? -1 : 8 * scalars++);
  }
  layout.args_bytes = static_cast<uint32_t>(8 * scalars);
  if (scalars > 0) layout.args_index = layout.num_buffers;
  return layout;
}

void PackArgSlot(ir::DataType dtype, int64_t int_value, double float_value, uint8_t* slot) {
  std::memset(slot, 0, 8);
  if (dtype.is_float()) {
    float f = static_cast<float>(float_value);
    std::memcpy(slot, &f, sizeof f);
  } else if (IsWideArgSlot(dtype)) {
    std::memcpy(slot, &int_value, sizeof int_value);
  } else {
    // int, uint and bool: the low 32 bits (two's complement, as the kernel's int or uint).
    uint32_t v = static_cast<uint32_t>(dtype.is_bool() ? (int_value != 0) : int_value);
    std::memcpy(slot, &v, sizeof v);
  }
}

}  // namespace kiln::codegen::metal
