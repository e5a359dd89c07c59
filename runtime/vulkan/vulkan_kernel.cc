// Vulkan buffers, pipelines, dispatch and timestamp timing.
#include "runtime/vulkan/vulkan_kernel.h"

#include <cstring>
#include <utility>

#include "support/error.h"

namespace kiln::runtime::vulkan {
namespace {

// Allocates and begins a one-time command buffer, lets `record` fill it, submits it and
// waits for the device. A hang is not caught here: the sandbox's wall-clock limit ends it.
template <typename Record>
void Submit(const VulkanContext& context, Record record) {
  VkCommandBufferAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  alloc.commandPool = context.command_pool();
  alloc.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  alloc.commandBufferCount = 1;
  VkCommandBuffer cmd = VK_NULL_HANDLE;
  CheckVk(vkAllocateCommandBuffers(context.device(), &alloc, &cmd), "vkAllocateCommandBuffers");
  VkFence fence = VK_NULL_HANDLE;
  struct Cleanup {
    const VulkanContext& context;
    VkCommandBuffer& cmd;
    VkFence& fence;
    ~Cleanup() {
      if (fence != VK_NULL_HANDLE) vkDestroyFence(context.device(), fence, nullptr);
      vkFreeCommandBuffers(context.device(), context.command_pool(), 1, &cmd);
    }
  } cleanup{context, cmd, fence};

  VkCommandBufferBeginInfo begin{};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  CheckVk(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
  record(cmd);
  CheckVk(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  CheckVk(vkCreateFence(context.device(), &fence_info, nullptr, &fence), "vkCreateFence");
  VkSubmitInfo submit{};
  submit.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &cmd;
  CheckVk(vkQueueSubmit(context.queue(), 1, &submit, fence), "vkQueueSubmit");
  CheckVk(vkWaitForFences(context.device(), 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
}

// A buffer with bound memory; the caller owns both.
std::pair<VkBuffer, VkDeviceMemory> MakeBuffer(const VulkanContext& context, uint64_t bytes,
                                               VkBufferUsageFlags usage,
                                               VkMemoryPropertyFlags required,
                                               VkMemoryPropertyFlags preferred) {
  VkBufferCreateInfo info{};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = bytes;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkBuffer buffer = VK_NULL_HANDLE;
  CheckVk(vkCreateBuffer(context.device(), &info, nullptr, &buffer), "vkCreateBuffer");
  VkMemoryRequirements needs{};
  vkGetBufferMemoryRequirements(context.device(), buffer, &needs);
  VkMemoryAllocateInfo alloc{};
  alloc.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc.allocationSize = needs.size;
  VkDeviceMemory memory = VK_NULL_HANDLE;
  try {
    alloc.memoryTypeIndex = context.FindMemoryType(needs.memoryTypeBits, required, preferred);
    CheckVk(vkAllocateMemory(context.device(), &alloc, nullptr, &memory), "vkAllocateMemory");
    CheckVk(vkBindBufferMemory(context.device(), buffer, memory, 0), "vkBindBufferMemory");
  } catch (...) {
    if (memory != VK_NULL_HANDLE) vkFreeMemory(context.device(), memory, nullptr);
    vkDestroyBuffer(context.device(), buffer, nullptr);
    throw;
  }
  return {buffer, memory};
}

// A host-visible buffer for one copy to or from a device buffer.
class Staging {
 public:
  Staging(const VulkanContext& context, uint64_t bytes) : context_(context) {
    std::tie(buffer_, memory_) = MakeBuffer(
        context, bytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0);
    CheckVk(vkMapMemory(context.device(), memory_, 0, VK_WHOLE_SIZE, 0, &mapped_), "vkMapMemory");
  }
  ~Staging() {
    vkUnmapMemory(context_.device(), memory_);
    vkFreeMemory(context_.device(), memory_, nullptr);
    vkDestroyBuffer(context_.device(), buffer_, nullptr);
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  VkBuffer buffer() const { return buffer_; }
  void* mapped() const { return mapped_; }

 private:
  const VulkanContext& context_;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  void* mapped_ = nullptr;
};

std::string Triple(const std::array<uint32_t, 3>& v) {
  return std::to_string(v[0]) + " x " + std::to_string(v[1]) + " x " + std::to_string(v[2]);
}

}  // namespace

std::string LimitViolation(const VulkanDeviceInfo& device, const VulkanKernel& kernel) {
  const char* axis[] = {"x", "y", "z"};
  uint64_t invocations = uint64_t{kernel.threads[0]} * kernel.threads[1] * kernel.threads[2];
  std::string where = "kernel " + kernel.name + ": ";
  if (invocations > device.max_workgroup_invocations) {
    return where + std::to_string(invocations) + " threads per workgroup (" +
           Triple(kernel.threads) + ") exceed the device's maxComputeWorkGroupInvocations " +
           std::to_string(device.max_workgroup_invocations);
  }
  for (int d = 0; d < 3; ++d) {
    if (kernel.threads[d] > device.max_workgroup_size[d]) {
      return where + std::to_string(kernel.threads[d]) + " threads along " + axis[d] +
             " exceed the device's maxComputeWorkGroupSize[" + std::to_string(d) + "] " +
             std::to_string(device.max_workgroup_size[d]);
    }
    if (kernel.groups[d] > device.max_workgroup_count[d]) {
      return where + std::to_string(kernel.groups[d]) + " workgroups along " + axis[d] +
             " exceed the device's maxComputeWorkGroupCount[" + std::to_string(d) + "] " +
             std::to_string(device.max_workgroup_count[d]);
    }
  }
  return "";
}

VulkanBuffer::VulkanBuffer(const VulkanContext& context, uint64_t bytes)
    : context_(context), bytes_(bytes) {
  KILN_CHECK(bytes <= context.info().max_storage_buffer_bytes, ErrorKind::kUnsupported,
             "a buffer of " + std::to_string(bytes) +
                 " bytes exceeds the device's maxStorageBufferRange " +
                 std::to_string(context.info().max_storage_buffer_bytes));
  uint64_t size = bytes == 0 ? 4 : (bytes + 3) / 4 * 4;
  std::tie(buffer_, memory_) =
      MakeBuffer(context, size,
                 VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                     VK_BUFFER_USAGE_TRANSFER_DST_BIT,
                 0, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT);
}

VulkanBuffer::~VulkanBuffer() {
  vkFreeMemory(context_.device(), memory_, nullptr);
  vkDestroyBuffer(context_.device(), buffer_, nullptr);
}

void VulkanBuffer::Upload(const void* data, uint64_t bytes) {
  KILN_CHECK(
      bytes <= bytes_, ErrorKind::kInternal,
      "upload of " + std::to_string(bytes) + " bytes into a buffer of " + std::to_string(bytes_));
  if (bytes == 0) return;
  Staging staging(context_, bytes);
  std::memcpy(staging.mapped(), data, bytes);
  Submit(context_, [&](VkCommandBuffer cmd) {
    VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, staging.buffer(), buffer_, 1, &region);
  });
}

void VulkanBuffer::Download(void* data, uint64_t bytes) const {
  KILN_CHECK(
      bytes <= bytes_, ErrorKind::kInternal,
      "download of " + std::to_string(bytes) + " bytes from a buffer of " + std::to_string(bytes_));
  if (bytes == 0) return;
  Staging staging(context_, bytes);
  Submit(context_, [&](VkCommandBuffer cmd) {
    VkBufferCopy region{0, 0, bytes};
    vkCmdCopyBuffer(cmd, buffer_, staging.buffer(), 1, &region);
  });
  std::memcpy(data, staging.mapped(), bytes);
}

VulkanExecutable::VulkanExecutable(const VulkanContext& context,
                                   const std::vector<VulkanKernel>& kernels,
                                   const std::vector<const VulkanBuffer*>& buffers,
                                   std::vector<uint8_t> push_constants)
    : context_(context), push_constants_(std::move(push_constants)) {
  KILN_CHECK(!kernels.empty(), ErrorKind::kInternal, "a Vulkan program without kernels");
  for (const VulkanKernel& k : kernels) {
    std::string violation = LimitViolation(context.info(), k);
    KILN_CHECK(violation.empty(), ErrorKind::kUnsupported, violation);
    groups_.push_back(k.groups);
  }
  KILN_CHECK(push_constants_.size() <= context.info().max_push_constants_bytes,
             ErrorKind::kUnsupported,
             std::to_string(push_constants_.size()) +
                 " bytes of scalar arguments exceed the device's maxPushConstantsSize " +
                 std::to_string(context.info().max_push_constants_bytes));
  VkDevice device = context.device();
  // The destructor releases whatever was made if a later step throws.
  struct Undo {
    VulkanExecutable* self;
    bool done = false;
    ~Undo() {
      if (!done) self->Release();
    }
  } undo{this};

  std::vector<VkDescriptorSetLayoutBinding> bindings(buffers.size());
  for (size_t i = 0; i < buffers.size(); ++i) {
    bindings[i].binding = static_cast<uint32_t>(i);
    bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    bindings[i].descriptorCount = 1;
    bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  }
  VkDescriptorSetLayoutCreateInfo set_info{};
  set_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO;
  set_info.bindingCount = static_cast<uint32_t>(bindings.size());
  set_info.pBindings = bindings.data();
  CheckVk(vkCreateDescriptorSetLayout(device, &set_info, nullptr, &set_layout_),
          "vkCreateDescriptorSetLayout");

  VkPushConstantRange range{};
  range.stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
  range.size = static_cast<uint32_t>(push_constants_.size());
  VkPipelineLayoutCreateInfo layout_info{};
  layout_info.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  layout_info.setLayoutCount = 1;
  layout_info.pSetLayouts = &set_layout_;
  layout_info.pushConstantRangeCount = push_constants_.empty() ? 0 : 1;
  layout_info.pPushConstantRanges = &range;
  CheckVk(vkCreatePipelineLayout(device, &layout_info, nullptr, &pipeline_layout_),
          "vkCreatePipelineLayout");

  if (!buffers.empty()) {
    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                   static_cast<uint32_t>(buffers.size())};
    VkDescriptorPoolCreateInfo pool_info{};
    pool_info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    pool_info.maxSets = 1;
    pool_info.poolSizeCount = 1;
    pool_info.pPoolSizes = &pool_size;
    CheckVk(vkCreateDescriptorPool(device, &pool_info, nullptr, &descriptor_pool_),
            "vkCreateDescriptorPool");
  }
  if (descriptor_pool_ != VK_NULL_HANDLE) {
    VkDescriptorSetAllocateInfo alloc{};
    alloc.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
    alloc.descriptorPool = descriptor_pool_;
    alloc.descriptorSetCount = 1;
    alloc.pSetLayouts = &set_layout_;
    CheckVk(vkAllocateDescriptorSets(device, &alloc, &descriptor_set_), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos(buffers.size());
    std::vector<VkWriteDescriptorSet> writes(buffers.size());
    for (size_t i = 0; i < buffers.size(); ++i) {
      infos[i] = {buffers[i]->handle(), 0, VK_WHOLE_SIZE};
      writes[i].sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET;
      writes[i].dstSet = descriptor_set_;
      writes[i].dstBinding = static_cast<uint32_t>(i);
      writes[i].descriptorCount = 1;
      writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
      writes[i].pBufferInfo = &infos[i];
    }
    vkUpdateDescriptorSets(device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
  }

  for (const VulkanKernel& k : kernels) {
    VkShaderModuleCreateInfo module_info{};
    module_info.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
    module_info.codeSize = k.spirv.size() * sizeof(uint32_t);
    module_info.pCode = k.spirv.data();
    VkShaderModule module = VK_NULL_HANDLE;
    CheckVk(vkCreateShaderModule(device, &module_info, nullptr, &module), "vkCreateShaderModule");
    modules_.push_back(module);
    VkComputePipelineCreateInfo pipeline_info{};
    pipeline_info.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
    pipeline_info.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
    pipeline_info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    pipeline_info.stage.module = module;
    pipeline_info.stage.pName = "main";
    VkSpecializationMapEntry entries[3];
    for (uint32_t d = 0; d < 3; ++d) {
      entries[d] = {d, static_cast<uint32_t>(d * sizeof(uint32_t)), sizeof(uint32_t)};
    }
    VkSpecializationInfo specialization{3, entries, sizeof k.threads, k.threads.data()};
    pipeline_info.stage.pSpecializationInfo = &specialization;
    pipeline_info.layout = pipeline_layout_;
    VkPipeline pipeline = VK_NULL_HANDLE;
    CheckVk(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &pipeline_info, nullptr, &pipeline),
            "vkCreateComputePipelines");
    pipelines_.push_back(pipeline);
  }

  if (context.info().timestamps) {
    VkQueryPoolCreateInfo query_info{};
    query_info.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO;
    query_info.queryType = VK_QUERY_TYPE_TIMESTAMP;
    query_info.queryCount = 2;
    CheckVk(vkCreateQueryPool(device, &query_info, nullptr, &query_pool_), "vkCreateQueryPool");
  }
  undo.done = true;
}

VulkanExecutable::~VulkanExecutable() { Release(); }

void VulkanExecutable::Release() {
  VkDevice device = context_.device();
  if (query_pool_ != VK_NULL_HANDLE) vkDestroyQueryPool(device, query_pool_, nullptr);
  for (VkPipeline p : pipelines_) vkDestroyPipeline(device, p, nullptr);
  for (VkShaderModule m : modules_) vkDestroyShaderModule(device, m, nullptr);
  if (descriptor_pool_ != VK_NULL_HANDLE) {
    vkDestroyDescriptorPool(device, descriptor_pool_, nullptr);
  }
  if (pipeline_layout_ != VK_NULL_HANDLE) {
    vkDestroyPipelineLayout(device, pipeline_layout_, nullptr);
  }
  if (set_layout_ != VK_NULL_HANDLE) vkDestroyDescriptorSetLayout(device, set_layout_, nullptr);
  query_pool_ = VK_NULL_HANDLE;
  pipelines_.clear();
  modules_.clear();
  descriptor_pool_ = VK_NULL_HANDLE;
  pipeline_layout_ = VK_NULL_HANDLE;
  set_layout_ = VK_NULL_HANDLE;
}

void VulkanExecutable::Record(VkCommandBuffer cmd, int n) const {
  if (descriptor_set_ != VK_NULL_HANDLE) {
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1,
                            &descriptor_set_, 0, nullptr);
  }
  if (!push_constants_.empty()) {
    vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push_constants_.size()), push_constants_.data());
  }
  VkMemoryBarrier barrier{};
  barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  bool first = true;
  for (int run = 0; run < n; ++run) {
    for (size_t k = 0; k < pipelines_.size(); ++k) {
      // Each launch sees what the one before wrote, as a kernel sees its own earlier stores.
      if (!first) {
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, nullptr, 0,
                             nullptr);
      }
      first = false;
      vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_[k]);
      vkCmdDispatch(cmd, groups_[k][0], groups_[k][1], groups_[k][2]);
    }
  }
}

void VulkanExecutable::Run(int n) {
  Submit(context_, [&](VkCommandBuffer cmd) { Record(cmd, n); });
}

double VulkanExecutable::TimeRuns(int n) {
  KILN_CHECK(query_pool_ != VK_NULL_HANDLE, ErrorKind::kUnsupported,
             "the Vulkan device " + context_.info().name +
                 " has no timestamp queries on its compute queue");
  Submit(context_, [&](VkCommandBuffer cmd) {
    vkCmdResetQueryPool(cmd, query_pool_, 0, 2);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, query_pool_, 0);
    Record(cmd, n);
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, query_pool_, 1);
  });
  uint64_t stamps[2] = {0, 0};
  CheckVk(
      vkGetQueryPoolResults(context_.device(), query_pool_, 0, 2, sizeof stamps, stamps,
                            sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
      "vkGetQueryPoolResults");
  uint32_t bits = context_.info().timestamp_valid_bits;
  uint64_t mask = bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
  uint64_t ticks = ((stamps[1] & mask) - (stamps[0] & mask)) & mask;
  return static_cast<double>(ticks) * context_.info().timestamp_period_ns * 1e-9;
}

}  // namespace kiln::runtime::vulkan
