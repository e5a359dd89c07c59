// Running compiled Vulkan kernels: storage buffers in device memory (filled and read back
// through host-visible staging buffers), one compute pipeline per kernel of a program over
// one descriptor set and one push-constant block, dispatch, and timing with timestamp
// queries around back-to-back runs (a memory barrier between dispatches, as between the
// launches of one run). A driver error (a lost device, a refused pipeline) is a
// kiln::Error(kRuntime) naming the call and its VkResult.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/vulkan/vulkan_device.h"

namespace kiln::runtime::vulkan {

// One compiled kernel and its launch: `groups` work groups of `threads` invocations. The
// work group size reaches the shader as specialization constants 0, 1, 2
// (codegen/vulkan/vulkan_abi.h); a shader with a literal local size ignores them.
struct VulkanKernel {
  std::string name;  // for messages: "kiln_matmul_k0"
  std::vector<uint32_t> spirv;
  std::array<uint32_t, 3> groups = {1, 1, 1};
  std::array<uint32_t, 3> threads = {1, 1, 1};
};

// Empty when `kernel` fits the device; otherwise which limit it exceeds and by how much
// ("kernel k0: 2048 threads per workgroup (64 x 32 x 1) exceed the device's
// maxComputeWorkGroupInvocations 1024").
std::string LimitViolation(const VulkanDeviceInfo& device, const VulkanKernel& kernel);

class VulkanBuffer {
 public:
  // `bytes` may be 0 (a buffer of one word is made: Vulkan has no empty buffers).
  VulkanBuffer(const VulkanContext& context, uint64_t bytes);
  ~VulkanBuffer();
  VulkanBuffer(const VulkanBuffer&) = delete;
  VulkanBuffer& operator=(const VulkanBuffer&) = delete;

  VkBuffer handle() const { return buffer_; }
  uint64_t bytes() const { return bytes_; }
  // The first `bytes` (at most bytes()) of the buffer from or into host memory.
  void Upload(const void* data, uint64_t bytes);
  void Download(void* data, uint64_t bytes) const;

 private:
  const VulkanContext& context_;
  uint64_t bytes_ = 0;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
};

class VulkanExecutable {
 public:
  // Binds `buffers` at bindings 0, 1, ... and `push_constants` (empty: none). Throws
  // kiln::Error(kUnsupported) with LimitViolation's message when a kernel does not fit,
  // kRuntime when the driver refuses a shader module or pipeline.
  VulkanExecutable(const VulkanContext& context, const std::vector<VulkanKernel>& kernels,
                   const std::vector<const VulkanBuffer*>& buffers,
                   std::vector<uint8_t> push_constants);
  ~VulkanExecutable();
  VulkanExecutable(const VulkanExecutable&) = delete;
  VulkanExecutable& operator=(const VulkanExecutable&) = delete;

  // Runs the program `n` times back to back and waits for the device.
  void Run(int n);
  // Seconds the device took for `n` back-to-back runs, from timestamp queries before the
  // first and after the last dispatch. kiln::Error(kUnsupported) when the queue has no
  // timestamps.
  double TimeRuns(int n);

 private:
  void Record(VkCommandBuffer cmd, int n) const;
  // Destroys the handles made so far (the destructor, and a constructor that throws).
  void Release();
  const VulkanContext& context_;
  std::vector<std::array<uint32_t, 3>> groups_;
  std::vector<uint8_t> push_constants_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkDescriptorPool descriptor_pool_ = VK_NULL_HANDLE;
  VkDescriptorSet descriptor_set_ = VK_NULL_HANDLE;
  std::vector<VkShaderModule> modules_;
  std::vector<VkPipeline> pipelines_;
  VkQueryPool query_pool_ = VK_NULL_HANDLE;
};

}  // namespace kiln::runtime::vulkan
