// LayoutOf: bindings and push-constant offsets in argument order.
#include "codegen/vulkan/vulkan_abi.h"

namespace kiln::codegen::vulkan {

VulkanArgLayout LayoutOf(const std::vector<bool>& is_buffer) {
  VulkanArgLayout layout;
  int scalars = 0;
  for (bool buffer : is_buffer) {
    layout.binding.push_back(buffer ? layout.num_buffers++ : -1);
    layout.push_offset.push_back(buffer ? -1 : 8 * scalars++);
  }
  layout.push_bytes = static_cast<uint32_t>(8 * scalars);
  return layout;
}

std::string EntryMacro(const std::string& symbol) { return "KILN_ENTRY_" + symbol; }

}  // namespace kiln::codegen::vulkan
