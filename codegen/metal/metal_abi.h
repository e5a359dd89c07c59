// How a Metal kernel receives its arguments: the contract between the MSL emitter
// (codegen/metal/msl_emitter.h) and the runtimes that launch its kernels (the CPU shim in
// runtime/metal_shim/, the Apple worker in runtime/metal/). The arguments are the GPU argument
// list of codegen/gpu/launch.h (one per KernelSignature slot, then one buffer per workspace
// entry), the same for every kernel of a function:
//  - each buffer argument is a `device T*` parameter at [[buffer(i)]], i = its position among
//    the buffer arguments;
//  - the other arguments (scalar parameters, shape variables) are the members of one
//    `struct KilnArgs` passed as `constant KilnArgs& kiln_args [[buffer(N)]]`, N = the number
//    of buffer arguments (setBytes on the host). Member k sits at byte offset 8 * k (k = its
//    position among the scalars) and holds a 32-bit value (int, uint or float; bool as int 0
//    or 1, float16 as float) when its dtype has at most 32 bits, else a 64-bit integer (long
//    or ulong); float64 has no Metal type and is refused. The struct is absent when the
//    function has no scalars.
//  - each kernel also takes `uint3 kiln_group [[threadgroup_position_in_grid]]` and
//    `uint3 kiln_local [[thread_position_in_threadgroup]]`, last; the threadgroup size is the
//    launch's block extents (dispatchThreadgroups:threadsPerThreadgroup:).
// A Metal function has at most 31 entries in its buffer argument table, KilnArgs included.
// The source is compiled with fast math off (MTLCompileOptions.fastMathEnabled = NO, or
// MTLMathModeSafe): NaN propagation and the interpreter's results depend on it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "codegen/gpu/limits.h"
#include "ir/dtype.h"

namespace kiln::codegen::metal {

// Entries of a Metal function's buffer argument table (Apple GPUs, macOS and iOS alike).
inline constexpr int kMaxBufferArguments = 31;
// Bytes setBytes accepts for one argument; more scalars than fit are refused.
inline constexpr uint32_t kMaxArgsBytes = 4096;
inline constexpr int64_t kSimdgroupSize = 32;

// Every Metal GPU's: 1024 threads per threadgroup (maxTotalThreadsPerThreadgroup), 32 KiB of
// threadgroup memory, half arithmetic, 64-bit integers (long), no double.
codegen::gpu::GpuLimits MetalLimits();

struct MetalArgLayout {
  std::vector<int> buffer_index;  // per argument: its [[buffer(i)]], -1 for a scalar
  std::vector<int> args_offset;   // per argument: its offset in KilnArgs, -1 for a buffer
  int num_buffers = 0;
  uint32_t args_bytes = 0;  // sizeof(KilnArgs); 0: no scalars, no struct
  // [[buffer(i)]] of KilnArgs (== num_buffers), -1 without scalars.
  int args_index = -1;
  // Buffer argument table entries in use: num_buffers, plus one for KilnArgs.
  int table_entries() const { return num_buffers + (args_bytes > 0 ? 1 : 0); }
};

// The layout of arguments whose kinds are `is_buffer` (in order).
MetalArgLayout LayoutOf(const std::vector<bool>& is_buffer);

// Whether a KilnArgs member of `dtype` holds 64 bits.
inline bool IsWideArgSlot(ir::DataType dtype) { return dtype.bits() > 32; }

// Writes a scalar argument of `dtype` into its 8-byte KilnArgs slot at `slot` as the kernel
// reads it (int_value for integers and bool, float_value for floats).
void PackArgSlot(ir::DataType dtype, int64_t int_value, double float_value, uint8_t* slot);

}  // namespace kiln::codegen::metal
