// How a Vulkan kernel receives its arguments and is selected: the contract between the GLSL
// emitter (codegen/vulkan/glsl_emitter.h) and the Vulkan runtime (runtime/vulkan/). The
// arguments are the GPU argument list of codegen/gpu/launch.h (one per KernelSignature slot,
// then one buffer per workspace entry), the same for every kernel of a function:
//  - each buffer argument is a std430 storage buffer in descriptor set 0, at binding = its
//    position among the buffer arguments;
//  - each other argument (scalar parameter, shape variable) is one member of the
//    push-constant block at offset 8 * its position among those, holding a 32-bit value
//    (int32 or float32) when its dtype has at most 32 bits, else a 64-bit one.
// One GLSL source holds every kernel of a function; kernel SYMBOL's `main` is compiled when
// the macro EntryMacro(SYMBOL) is defined. The work group size is specialization constants
// 0, 1, 2 (x, y, z), set from the launch's block extents when the pipeline is made.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln::codegen::vulkan {

// The push-constant space every Vulkan device has (maxPushConstantsSize is at least 128): 16
// scalar arguments. A function with more is refused rather than tied to one device.
inline constexpr uint32_t kMaxPushConstantBytes = 128;

struct VulkanArgLayout {
  std::vector<int> binding;      // per argument: its binding, -1 for a scalar
  std::vector<int> push_offset;  // per argument: its push-constant offset, -1 for a buffer
  int num_buffers = 0;
  uint32_t push_bytes = 0;  // size of the push-constant block (0: none)
};

// The layout of arguments whose kinds are `is_buffer` (in order).
VulkanArgLayout LayoutOf(const std::vector<bool>& is_buffer);

// Whether a push-constant member of `dtype` holds 64 bits.
inline bool IsWidePushSlot(ir::DataType dtype) { return dtype.bits() > 32; }

// "KILN_ENTRY_" + symbol: the macro that selects kernel `symbol`'s main.
std::string EntryMacro(const std::string& symbol);

}  // namespace kiln::codegen::vulkan
