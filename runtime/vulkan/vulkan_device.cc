// Vulkan discovery and the device context.
#include "runtime/vulkan/vulkan_device.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "runtime/gpu/device.h"
#include "support/error.h"

namespace kiln::runtime::vulkan {
namespace {

// The instance owns nothing but itself; discovery makes a short-lived one.
struct InstanceHolder {
  VkInstance instance = VK_NULL_HANDLE;
  ~InstanceHolder() {
    if (instance != VK_NULL_HANDLE) vkDestroyInstance(instance, nullptr);
  }
};

uint32_t InstanceApiVersion() {
  uint32_t version = VK_API_VERSION_1_0;
  auto enumerate = reinterpret_cast<PFN_vkEnumerateInstanceVersion>(
      vkGetInstanceProcAddr(nullptr, "vkEnumerateInstanceVersion"));
  if (enumerate != nullptr && enumerate(&version) != VK_SUCCESS) version = VK_API_VERSION_1_0;
  return std::min<uint32_t>(version, VK_API_VERSION_1_3);
}

VkInstance CreateInstance() {
  uint32_t api = InstanceApiVersion();
  KILN_CHECK(api >= VK_API_VERSION_1_1, ErrorKind::kUnsupported,
             "the Vulkan loader supports only Vulkan 1.0; Kiln needs 1.1 or newer");
  VkApplicationInfo app{};
  app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  app.pApplicationName = "kiln";
  app.pEngineName = "kiln";
  app.apiVersion = api;
  VkInstanceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  create.pApplicationInfo = &app;
  VkInstance instance = VK_NULL_HANDLE;
  VkResult result = vkCreateInstance(&create, nullptr, &instance);
  KILN_CHECK(result == VK_SUCCESS, ErrorKind::kUnsupported,
             "no Vulkan instance: vkCreateInstance returned " + VkResultName(result) +
                 " (is a Vulkan driver installed? lavapipe: mesa-vulkan-drivers)");
  return instance;
}

std::vector<VkPhysicalDevice> PhysicalDevices(VkInstance instance) {
  uint32_t count = 0;
  CheckVk(vkEnumeratePhysicalDevices(instance, &count, nullptr), "vkEnumeratePhysicalDevices");
  std::vector<VkPhysicalDevice> devices(count);
  CheckVk(vkEnumeratePhysicalDevices(instance, &count, devices.data()),
          "vkEnumeratePhysicalDevices");
  devices.resize(count);
  return devices;
}

bool HasExtension(VkPhysicalDevice device, const char* name) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, nullptr) != VK_SUCCESS) {
    return false;
  }
  std::vector<VkExtensionProperties> extensions(count);
  if (vkEnumerateDeviceExtensionProperties(device, nullptr, &count, extensions.data()) !=
      VK_SUCCESS) {
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    if (std::strcmp(extensions[i].extensionName, name) == 0) return true;
  }
  return false;
}

// The optional feature structs, chained for a query or for device creation.
struct FeatureChain {
  VkPhysicalDeviceFeatures2 features2{};
  VkPhysicalDevice16BitStorageFeatures storage16{};
  VkPhysicalDevice8BitStorageFeatures storage8{};
  VkPhysicalDeviceShaderFloat16Int8Features float16_int8{};
  bool has_storage8 = false;
  bool has_float16_int8 = false;

  FeatureChain(VkPhysicalDevice device, uint32_t device_api, uint32_t instance_api) {
    bool core12 = device_api >= VK_API_VERSION_1_2 && instance_api >= VK_API_VERSION_1_2;
    has_storage8 = core12 || HasExtension(device, VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
    has_float16_int8 = core12 || HasExtension(device, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    features2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    storage16.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES;
    storage8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES;
    float16_int8.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES;
    void** next = &features2.pNext;
    *next = &storage16;
    next = &storage16.pNext;
    if (has_storage8) {
      *next = &storage8;
      next = &storage8.pNext;
    }
    if (has_float16_int8) {
      *next = &float16_int8;
      next = &float16_int8.pNext;
    }
  }
  FeatureChain(const FeatureChain&) = delete;
};

const char* DeviceTypeName(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated-gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual-gpu";
    default:
      return "other";
  }
}

// Fills `info` for `device`; false when it has no compute queue.
bool Describe(VkPhysicalDevice device, int index, uint32_t instance_api, VulkanDeviceInfo& info) {
  VkPhysicalDeviceSubgroupProperties subgroup{};
  subgroup.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES;
  VkPhysicalDeviceDriverProperties driver{};
  driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  VkPhysicalDeviceProperties2 props2{};
  props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
  props2.pNext = &subgroup;
  VkPhysicalDeviceProperties plain{};
  vkGetPhysicalDeviceProperties(device, &plain);
  bool has_driver_props =
      (plain.apiVersion >= VK_API_VERSION_1_2 && instance_api >= VK_API_VERSION_1_2) ||
      HasExtension(device, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
  if (has_driver_props) subgroup.pNext = &driver;
  vkGetPhysicalDeviceProperties2(device, &props2);
  const VkPhysicalDeviceProperties& p = props2.properties;
  const VkPhysicalDeviceLimits& l = p.limits;

  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(device, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(device, &family_count, families.data());
  int compute_family = -1;
  for (uint32_t i = 0; i < family_count; ++i) {
    if (!(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) continue;
    // Prefer a family that can time (timestamps), then the first.
    if (compute_family < 0 ||
        (families[i].timestampValidBits > 0 && families[compute_family].timestampValidBits == 0)) {
      compute_family = static_cast<int>(i);
    }
  }
  if (compute_family < 0) return false;

  FeatureChain chain(device, p.apiVersion, instance_api);
  vkGetPhysicalDeviceFeatures2(device, &chain.features2);

  info.index = index;
  info.name = p.deviceName;
  info.key = VulkanDeviceKey(info.name);
  info.driver = has_driver_props ? driver.driverName : "";
  info.driver_info = has_driver_props ? driver.driverInfo : "";
  info.type = DeviceTypeName(p.deviceType);
  info.api_version = p.apiVersion;
  info.max_workgroup_invocations = l.maxComputeWorkGroupInvocations;
  for (int d = 0; d < 3; ++d) {
    info.max_workgroup_size[d] = l.maxComputeWorkGroupSize[d];
    info.max_workgroup_count[d] = l.maxComputeWorkGroupCount[d];
  }
  info.max_shared_memory_bytes = l.maxComputeSharedMemorySize;
  info.max_push_constants_bytes = l.maxPushConstantsSize;
  info.max_storage_buffer_bytes = l.maxStorageBufferRange;
  info.subgroup_size = subgroup.subgroupSize;
  info.shader_float64 = chain.features2.features.shaderFloat64;
  info.shader_int64 = chain.features2.features.shaderInt64;
  info.shader_int16 = chain.features2.features.shaderInt16;
  info.shader_float16 = chain.has_float16_int8 && chain.float16_int8.shaderFloat16;
  info.shader_int8 = chain.has_float16_int8 && chain.float16_int8.shaderInt8;
  info.storage_16bit = chain.storage16.storageBuffer16BitAccess;
  info.storage_8bit = chain.has_storage8 && chain.storage8.storageBuffer8BitAccess;
  info.timestamp_valid_bits = families[compute_family].timestampValidBits;
  info.timestamps = l.timestampComputeAndGraphics && info.timestamp_valid_bits > 0;
  info.timestamp_period_ns = l.timestampPeriod;
  info.compute_queue_family = static_cast<uint32_t>(compute_family);
  return true;
}

std::vector<VulkanDeviceInfo> DescribeAll(VkInstance instance, uint32_t instance_api,
                                          std::vector<VkPhysicalDevice>* handles) {
  std::vector<VulkanDeviceInfo> infos;
  std::vector<VkPhysicalDevice> devices = PhysicalDevices(instance);
  for (size_t i = 0; i < devices.size(); ++i) {
    VulkanDeviceInfo info;
    if (!Describe(devices[i], static_cast<int>(i), instance_api, info)) continue;
    infos.push_back(info);
    if (handles) handles->push_back(devices[i]);
  }
  KILN_CHECK(!infos.empty(), ErrorKind::kUnsupported,
             "no Vulkan device with a compute queue (the loader found " +
                 std::to_string(devices.size()) +
                 " devices; lavapipe comes with mesa-vulkan-drivers)");
  return infos;
}

}  // namespace

std::string VkResultName(VkResult result) {
  switch (result) {
#define KILN_VK_CASE(name) \
  case name:               \
    return #name;
    KILN_VK_CASE(VK_SUCCESS)
    KILN_VK_CASE(VK_NOT_READY)
    KILN_VK_CASE(VK_TIMEOUT)
    KILN_VK_CASE(VK_INCOMPLETE)
    KILN_VK_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    KILN_VK_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    KILN_VK_CASE(VK_ERROR_INITIALIZATION_FAILED)
    KILN_VK_CASE(VK_ERROR_DEVICE_LOST)
    KILN_VK_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    KILN_VK_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    KILN_VK_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    KILN_VK_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    KILN_VK_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    KILN_VK_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    KILN_VK_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    KILN_VK_CASE(VK_ERROR_FRAGMENTED_POOL)
    KILN_VK_CASE(VK_ERROR_UNKNOWN)
    KILN_VK_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    KILN_VK_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    KILN_VK_CASE(VK_ERROR_INVALID_SHADER_NV)
#undef KILN_VK_CASE
    default:
      return "VkResult " + std::to_string(static_cast<int>(result));
  }
}

void CheckVk(VkResult result, const char* what) {
  KILN_CHECK(result == VK_SUCCESS, ErrorKind::kRuntime,
             std::string(what) + " failed: " + VkResultName(result));
}

std::string VulkanDeviceKey(const std::string& device_name) {
  return gpu::DeviceKey("vulkan", device_name.substr(0, device_name.find('(')));
}

std::vector<VulkanDeviceInfo> DiscoverVulkanDevices() {
  InstanceHolder holder;
  holder.instance = CreateInstance();
  return DescribeAll(holder.instance, InstanceApiVersion(), nullptr);
}

namespace {

// The index DefaultVulkanDevice picks among `infos`.
const VulkanDeviceInfo& PickDefault(const std::vector<VulkanDeviceInfo>& infos) {
  if (const char* env = std::getenv("KILN_VULKAN_DEVICE"); env != nullptr && *env != '\0') {
    char* end = nullptr;
    long index = std::strtol(env, &end, 10);
    KILN_CHECK(end != nullptr && *end == '\0', ErrorKind::kUnsupported,
               std::string("KILN_VULKAN_DEVICE='") + env + "' is not a device index");
    for (const VulkanDeviceInfo& info : infos) {
      if (info.index == index) return info;
    }
    throw Error(ErrorKind::kUnsupported,
                std::string("KILN_VULKAN_DEVICE=") + env + ": no Vulkan device with that index");
  }
  for (const VulkanDeviceInfo& info : infos) {
    if (info.type == "discrete-gpu" || info.type == "integrated-gpu") return info;
  }
  return infos.front();
}

}  // namespace

VulkanDeviceInfo DefaultVulkanDevice() { return PickDefault(DiscoverVulkanDevices()); }

std::string DescribeVulkanDevice(const VulkanDeviceInfo& info) {
  std::ostringstream s;
  s << info.index << ": " << info.name << " key=" << info.key << " type=" << info.type
    << " api=" << VK_API_VERSION_MAJOR(info.api_version) << "."
    << VK_API_VERSION_MINOR(info.api_version) << " threads<=" << info.max_workgroup_invocations
    << " shared<=" << info.max_shared_memory_bytes << " subgroup=" << info.subgroup_size
    << " fp16=" << info.shader_float16 << " int64=" << info.shader_int64
    << " timestamps=" << info.timestamps << " period_ns=" << info.timestamp_period_ns;
  return s.str();
}

std::unique_ptr<VulkanContext> VulkanContext::Create(int device_index) {
  std::unique_ptr<VulkanContext> context(new VulkanContext());
  context->instance_ = CreateInstance();
  uint32_t instance_api = InstanceApiVersion();
  std::vector<VkPhysicalDevice> handles;
  std::vector<VulkanDeviceInfo> infos = DescribeAll(context->instance_, instance_api, &handles);
  size_t pick = infos.size();
  for (size_t i = 0; i < infos.size(); ++i) {
    if (infos[i].index == device_index) pick = i;
  }
  KILN_CHECK(pick < infos.size(), ErrorKind::kUnsupported,
             "no Vulkan device with index " + std::to_string(device_index));
  context->info_ = infos[pick];
  context->physical_device_ = handles[pick];
  VkPhysicalDevice physical = context->physical_device_;

  VkPhysicalDeviceProperties props{};
  vkGetPhysicalDeviceProperties(physical, &props);
  // Enable every optional feature the device has: a kernel uses what its dtypes need.
  FeatureChain chain(physical, props.apiVersion, instance_api);
  vkGetPhysicalDeviceFeatures2(physical, &chain.features2);
  VkPhysicalDeviceFeatures wanted{};
  wanted.shaderFloat64 = chain.features2.features.shaderFloat64;
  wanted.shaderInt64 = chain.features2.features.shaderInt64;
  wanted.shaderInt16 = chain.features2.features.shaderInt16;
  chain.features2.features = wanted;
  std::vector<const char*> extensions;
  bool core12 = props.apiVersion >= VK_API_VERSION_1_2 && instance_api >= VK_API_VERSION_1_2;
  if (!core12 && chain.has_storage8) extensions.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
  if (!core12 && chain.has_float16_int8) {
    extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
  }

  float priority = 1.0f;
  VkDeviceQueueCreateInfo queue{};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = context->info_.compute_queue_family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkDeviceCreateInfo create{};
  create.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  create.pNext = &chain.features2;
  create.queueCreateInfoCount = 1;
  create.pQueueCreateInfos = &queue;
  create.enabledExtensionCount = static_cast<uint32_t>(extensions.size());
  create.ppEnabledExtensionNames = extensions.data();
  CheckVk(vkCreateDevice(physical, &create, nullptr, &context->device_), "vkCreateDevice");
  vkGetDeviceQueue(context->device_, context->info_.compute_queue_family, 0, &context->queue_);

  VkCommandPoolCreateInfo pool{};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pool.queueFamilyIndex = context->info_.compute_queue_family;
  CheckVk(vkCreateCommandPool(context->device_, &pool, nullptr, &context->command_pool_),
          "vkCreateCommandPool");
  vkGetPhysicalDeviceMemoryProperties(physical, &context->memory_);
  return context;
}

VulkanContext::~VulkanContext() {
  if (device_ != VK_NULL_HANDLE) {
    vkDeviceWaitIdle(device_);
    if (command_pool_ != VK_NULL_HANDLE) vkDestroyCommandPool(device_, command_pool_, nullptr);
    vkDestroyDevice(device_, nullptr);
  }
  if (instance_ != VK_NULL_HANDLE) vkDestroyInstance(instance_, nullptr);
}

uint32_t VulkanContext::FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required,
                                       VkMemoryPropertyFlags preferred) const {
  int found = -1;
  for (uint32_t i = 0; i < memory_.memoryTypeCount; ++i) {
    if (!(type_bits & (1u << i))) continue;
    VkMemoryPropertyFlags flags = memory_.memoryTypes[i].propertyFlags;
    if ((flags & required) != required) continue;
    if ((flags & preferred) == preferred) return i;
    if (found < 0) found = static_cast<int>(i);
  }
  KILN_CHECK(found >= 0, ErrorKind::kRuntime,
             "the Vulkan device has no memory type with the properties a buffer needs");
  return static_cast<uint32_t>(found);
}

}  // namespace kiln::runtime::vulkan
