// The limits of a GPU that code generation must respect: threads per block, extent per block
// axis, shared memory per block, and what the device can compute (fp16, fp64, int64). The
// runtime discovers them (runtime/gpu/device.h) and hands them to the target; the target
// refuses a function that does not fit with an error naming the loop or the buffer.
#pragma once

#include <array>
#include <cstdint>

namespace kiln::codegen::gpu {

struct GpuLimits {
  int64_t max_threads_per_block = 1024;
  std::array<int64_t, 3> max_block_extent = {1024, 1024, 64};
  std::array<int64_t, 3> max_grid_extent = {int64_t{1} << 31, 65535, 65535};
  int64_t max_shared_bytes = 48 * 1024;  // per block
  int64_t warp_size = 32;                // subgroup size: a hint for the search, not a limit
  // Buffers one kernel may bind: WebGPU's maxStorageBuffersPerShaderStage (8 unless the device
  // grants more); no bound elsewhere that Kiln's kernels reach.
  int64_t max_buffer_arguments = int64_t{1} << 20;
  bool fp16 = false;  // half arithmetic
  bool fp64 = true;
  bool int64 = true;
};

}  // namespace kiln::codegen::gpu
