// How a Vulkan kernel receives its arguments: the contract between the GLSL emitter
// (codegen/vulkan/glsl_emitter.h) and the Vulkan runtime (runtime/vulkan/). It follows the
// slots of codegen/kernel_abi.h's KernelSignature:
//  - every buffer slot is a std430 storage buffer in descriptor set 0, at binding = its
//    position among the buffer slots; the function's workspace buffers (codegen/gpu/launch.h)
//    follow, workspace entry w at binding num_buffers + w;
//  - every other slot (scalar parameter, shape variable) is one member of the push-constant
//    block at offset 8 * its position among those slots, holding a 32-bit value (int32 or
//    float32) when the slot's dtype has at most 32 bits, else a 64-bit one (int64, float64).
#pragma once

#include <cstdint>
#include <vector>

#include "codegen/kernel_abi.h"

namespace kiln::codegen::vulkan {

struct VulkanArgLayout {
  // Per signature slot: the binding of a buffer slot, -1 otherwise.
  std::vector<int> binding;
  // Per signature slot: the push-constant offset of a scalar slot, -1 otherwise.
  std::vector<int> push_offset;
  int num_buffers = 0;
  uint32_t push_bytes = 0;  // size of the push-constant block (0: none)
};

VulkanArgLayout LayoutOf(const KernelSignature& signature);

// Whether a push-constant slot of `dtype` holds 64 bits.
inline bool IsWidePushSlot(ir::DataType dtype) { return dtype.bits() > 32; }

}  // namespace kiln::codegen::vulkan
