// How a WebGPU kernel receives its arguments and is launched: the contract between the WGSL
// emitter (codegen/webgpu/wgsl_emitter.h) and the WebGPU runtime (runtime/webgpu/). The
// arguments are the GPU argument list of codegen/gpu/launch.h (one per KernelSignature slot,
// then one buffer per workspace entry), the same for every kernel of a function:
//  - each buffer argument is a `var<storage, read_write>` array in bind group 0, at binding =
//    its position among the buffer arguments;
//  - the other arguments (scalar parameters, shape variables) are the members of one uniform
//    struct at binding = the number of buffers, member k (the k-th such argument) at byte
//    offset 4 * k, a 32-bit value: i32 for signed integers (64-bit ones included: the host
//    refuses a value outside i32), u32 for unsigned integers and bool, f32 for floats. There is
//    no uniform binding when there are no such arguments. The runtime makes one explicit bind
//    group layout with exactly these bindings for every kernel of the function.
// One WGSL module holds every kernel; kernel SYMBOL is the entry point `SYMBOL`. Its workgroup
// size is the pipeline-overridable constants kWorkgroupSizeConstants (x, y, z) and its logical
// grid kGridConstants, both set from the kernel's ConcreteLaunch when its pipeline is made.
// The host dispatches DispatchOf(launch): the logical grid's blocks, numbered x fastest, folded
// into a grid whose every dimension fits the device's maxComputeWorkgroupsPerDimension; the
// kernel recovers its logical block from workgroup_id and num_workgroups and leaves when it is
// past the end (a whole workgroup at once, so barriers stay in uniform control flow).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "codegen/gpu/launch.h"
#include "codegen/gpu/limits.h"
#include "ir/dtype.h"

namespace kiln::codegen::webgpu {

inline constexpr std::array<const char*, 3> kWorkgroupSizeConstants = {"kiln_wg_x", "kiln_wg_y",
                                                                       "kiln_wg_z"};
inline constexpr std::array<const char*, 3> kGridConstants = {"kiln_grid_x", "kiln_grid_y",
                                                              "kiln_grid_z"};

// WebGPU's guaranteed limits (the spec's defaults, what a device gets without asking for
// more): the limits a kernel is tuned against unless a worker registers its device's own.
struct WebGpuLimits {
  gpu::GpuLimits gpu;  // threads, extents, workgroup storage, storage buffers, f16
  int64_t max_workgroups_per_dimension = 65535;  // maxComputeWorkgroupsPerDimension
  int64_t max_storage_buffer_binding_size = int64_t{128} << 20;
};
WebGpuLimits DefaultWebGpuLimits();

struct WebGpuArgLayout {
  std::vector<int> binding;         // per argument: its storage binding, -1 for a scalar
  std::vector<int> uniform_offset;  // per argument: its byte offset in the uniform, -1 for a buffer
  int num_buffers = 0;
  int uniform_binding = -1;    // binding of the uniform struct, -1 when there are no scalars
  uint32_t uniform_bytes = 0;  // size of the uniform struct (a multiple of 16; 0 when none)
};

// The layout of arguments whose kinds are `is_buffer` (in order).
WebGpuArgLayout LayoutOf(const std::vector<bool>& is_buffer);

// The WGSL type of a uniform member holding a scalar argument of `dtype` ("i32", "u32", "f32").
std::string UniformMemberType(ir::DataType dtype);

// The workgroup counts to dispatch for `launch` on a device allowing `max_per_dimension`
// workgroups per dimension. Throws kiln::Error(kUnsupported) when even the folded grid does
// not fit.
std::array<uint32_t, 3> DispatchOf(const gpu::ConcreteLaunch& launch, int64_t max_per_dimension);

}  // namespace kiln::codegen::webgpu
