// The WebGPU argument layout and grid folding (codegen/webgpu/webgpu_abi.h).
#include "codegen/webgpu/webgpu_abi.h"

#include "support/error.h"

namespace kiln::codegen::webgpu {

WebGpuLimits DefaultWebGpuLimits() {
  WebGpuLimits limits;
  limits.gpu.max_threads_per_block = 256;        // maxComputeInvocationsPerWorkgroup
  limits.gpu.max_block_extent = {256, 256, 64};  // maxComputeWorkgroupSize{X,Y,Z}
  limits.gpu.max_grid_extent = {int64_t{1} << 31, int64_t{1} << 31, int64_t{1} << 31};
  limits.gpu.max_shared_bytes = 16 * 1024;  // maxComputeWorkgroupStorageSize
  limits.gpu.warp_size = 32;
  limits.gpu.max_buffer_arguments = 8;  // maxStorageBuffersPerShaderStage
  limits.gpu.fp16 = false;              // only with the shader-f16 feature
  limits.gpu.fp64 = false;
  limits.gpu.int64 = false;
  return limits;
}

WebGpuArgLayout LayoutOf(const std::vector<bool>& is_buffer) {
  WebGpuArgLayout layout;
  int scalars = 0;
  for (bool buffer : is_buffer) {
    layout.binding.push_back(buffer ? layout.num_buffers++ : -1);
    layout.uniform_offset.push_back(buffer ? -1 : 4 * scalars++);
  }
  if (scalars > 0) {
    layout.uniform_binding = layout.num_buffers;
    layout.uniform_bytes = static_cast<uint32_t>((4 * scalars + 15) / 16 * 16);
  }
  return layout;
}

std::string UniformMemberType(ir::DataType dtype) {
  if (dtype.is_float()) return "f32";
  if (dtype.is_uint() || dtype.is_bool()) return "u32";
  return "i32";
}

std::array<uint32_t, 3> DispatchOf(const gpu::ConcreteLaunch& launch, int64_t max_per_dimension) {
  int64_t total = launch.grid[0] * launch.grid[1] * launch.grid[2];
  int64_t x = std::min(total, max_per_dimension);
  int64_t y = (total + x - 1) / x;
  int64_t z = 1;
  if (y > max_per_dimension) {
    z = (y + max_per_dimension - 1) / max_per_dimension;
    y = max_per_dimension;
  }
  KILN_CHECK(z <= max_per_dimension, ErrorKind::kUnsupported,
             "kernel " + launch.symbol + ": " + std::to_string(total) +
                 " workgroups do not fit a grid of " + std::to_string(max_per_dimension) +
                 " per dimension");
  return {static_cast<uint32_t>(x), static_cast<uint32_t>(y), static_cast<uint32_t>(z)};
}

}  // namespace kiln::codegen::webgpu
