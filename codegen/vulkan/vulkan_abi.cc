// LayoutOf: bindings and push-constant offsets in signature order.
#include "codegen/vulkan/vulkan_abi.h"

namespace kiln::codegen::vulkan {

VulkanArgLayout LayoutOf(const KernelSignature& signature) {
  VulkanArgLayout layout;
  int scalars = 0;
  for (const ArgSlot& slot : signature.slots) {
    if (slot.kind == SlotKind::kBufferData) {
      layout.binding.push_back(layout.num_buffers++);
      layout.push_offset.push_back(-1);
    } else {
      layout.binding.push_back(-1);
      layout.push_offset.push_back(8 * scalars++);
    }
  }
  layout.push_bytes = static_cast<uint32_t>(8 * scalars);
  return layout;
}

}  // namespace kiln::codegen::vulkan
