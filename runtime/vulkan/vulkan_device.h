// Vulkan instance and device: discovery of the compute devices the loader sees (name, the
// device key records are filed under, limits and features), and a context that owns one
// logical device with a compute queue, for running kernels (runtime/vulkan/vulkan_kernel.h).
// Without a loader or a device, discovery says so with kiln::Error(kUnsupported).
#pragma once

#include <vulkan/vulkan.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace kiln::runtime::vulkan {

struct VulkanDeviceInfo {
  int index = 0;             // among the loader's physical devices
  std::string name;          // "llvmpipe (LLVM 15.0.6, 256 bits)"
  std::string key;           // "vulkan-llvmpipe": what tuning records are keyed by
  std::string driver;        // "llvmpipe", "NVIDIA"
  std::string driver_info;   // "Mesa 22.3.6 (LLVM 15.0.6)"
  std::string type;          // "cpu", "discrete-gpu", "integrated-gpu", "virtual-gpu", "other"
  uint32_t api_version = 0;  // VK_MAKE_API_VERSION
  // Limits.
  uint32_t max_workgroup_invocations = 0;  // threads per block
  uint32_t max_workgroup_size[3] = {0, 0, 0};
  uint32_t max_workgroup_count[3] = {0, 0, 0};
  uint32_t max_shared_memory_bytes = 0;
  uint32_t max_push_constants_bytes = 0;
  uint64_t max_storage_buffer_bytes = 0;
  uint32_t subgroup_size = 0;  // warp size
  // Features (all as supported by the device; the context enables every one present).
  bool shader_float16 = false;
  bool shader_float64 = false;
  bool shader_int64 = false;
  bool shader_int16 = false;
  bool shader_int8 = false;
  bool storage_16bit = false;  // 16-bit types in storage buffers
  bool storage_8bit = false;   // 8-bit types in storage buffers
  bool timestamps = false;     // compute queue with timestamp queries
  double timestamp_period_ns = 0;
  uint32_t timestamp_valid_bits = 0;
  uint32_t compute_queue_family = 0;
};

// "vulkan-" + the device name lowercased, without its parenthesized part, runs of other
// characters than letters and digits turned into one '-': "llvmpipe (LLVM 15, 256 bits)" ->
// "vulkan-llvmpipe", "NVIDIA H100 PCIe" -> "vulkan-nvidia-h100-pcie".
std::string VulkanDeviceKey(const std::string& device_name);

// Every physical device with a compute queue. Throws kiln::Error(kUnsupported) when no
// Vulkan instance can be created or no device has a compute queue.
std::vector<VulkanDeviceInfo> DiscoverVulkanDevices();

// The device a measurer uses: KILN_VULKAN_DEVICE (an index) when set, else the first
// discrete or integrated GPU, else the first device. kiln::Error(kUnsupported) when none.
VulkanDeviceInfo DefaultVulkanDevice();

// One line per device: "0: llvmpipe (...) key=vulkan-llvmpipe threads<=1024 shared<=32768 ...".
std::string DescribeVulkanDevice(const VulkanDeviceInfo& info);

// An instance, one logical device with every optional feature above that the device has,
// its compute queue and a command pool. Not copyable; destroyed in reverse order.
class VulkanContext {
 public:
  // kiln::Error(kUnsupported) when the device index does not exist; kRuntime when the
  // driver refuses to create the device.
  static std::unique_ptr<VulkanContext> Create(int device_index);
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  const VulkanDeviceInfo& info() const { return info_; }
  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_device_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  VkCommandPool command_pool() const { return command_pool_; }
  // A memory type index with all of `required` (and, among those, `preferred` when one has
  // them) allowed by `type_bits`; kiln::Error(kRuntime) when none.
  uint32_t FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                          VkMemoryPropertyFlags preferred) const;

 private:
  VulkanContext() = default;
  VulkanDeviceInfo info_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkPhysicalDeviceMemoryProperties memory_ = {};
};

// Throws kiln::Error(kRuntime) naming `what` and the result ("VK_ERROR_DEVICE_LOST") unless
// `result` is VK_SUCCESS.
void CheckVk(VkResult result, const char* what);
// "VK_ERROR_DEVICE_LOST" for VK_ERROR_DEVICE_LOST; "VkResult N" for an unknown code.
std::string VkResultName(VkResult result);

}  // namespace kiln::runtime::vulkan
