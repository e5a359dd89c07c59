// A Vulkan program: what the Vulkan sandbox runner (runtime/vulkan/vulkan_runner.h) builds and
// dispatches for one candidate. Each kernel is a GLSL compute shader with its dispatch size;
// a function that needs several launches is several kernels, run in order over the same
// arguments (codegen/vulkan/vulkan_abi.h) with a memory barrier between them. The JSON form
// travels as the file a SandboxRequest's source_path names; reading it validates every field.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace kiln::runtime::vulkan {

inline constexpr int kVulkanProgramVersion = 1;

struct VulkanKernelSpec {
  std::string name;                             // for messages: "kiln_matmul_kernel0"
  std::string glsl;                             // the complete compute shader
  std::array<uint32_t, 3> groups = {1, 1, 1};   // workgroups dispatched (x, y, z)
  std::array<uint32_t, 3> threads = {1, 1, 1};  // the shader's local size (x, y, z)
  uint32_t shared_bytes = 0;                    // workgroup memory the shader declares
};

struct VulkanProgram {
  std::vector<VulkanKernelSpec> kernels;
  // Scratch buffers private to one run (values one kernel writes and a later one reads),
  // bound after the signature's buffers, in this order (codegen/vulkan/vulkan_abi.h).
  std::vector<uint64_t> workspace_bytes;
};

std::string ProgramToJson(const VulkanProgram& program);
// `where` names the file in messages; kiln::Error(kParse) naming the field when malformed.
VulkanProgram ProgramFromJson(const std::string& text, const std::string& where);

}  // namespace kiln::runtime::vulkan
