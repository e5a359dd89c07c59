// kiln-vulkan-runner: builds, runs and times one candidate's Vulkan kernels in its own
// process (runtime/gpu/gpu_backend.h). Usage: kiln-vulkan-runner REQUEST.json RESULT.json, or
// kiln-vulkan-runner describe DEVICE.json.
#include "runtime/gpu/gpu_backend.h"
#include "runtime/runner_asan_options.h"
#include "runtime/vulkan/vulkan_backend.h"

int main(int argc, char** argv) {
  return kiln::runtime::gpu::GpuRunnerMain(argc, argv, kiln::runtime::vulkan::OpenVulkanDevice);
}
