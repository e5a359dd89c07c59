// VulkanDeviceSpec: the pieces of the Vulkan device kind.
#include "runtime/vulkan/vulkan_measurer.h"

#include "codegen/vulkan/glsl_emitter.h"

namespace kiln::runtime::vulkan {

gpu::GpuDeviceSpec VulkanDeviceSpec() {
  gpu::GpuDeviceSpec spec;
  spec.device_kind = "vulkan";
  spec.runner_name = "kiln-vulkan-runner";
#ifdef KILN_VULKAN_RUNNER_BUILD_PATH
  spec.runner_build_path = KILN_VULKAN_RUNNER_BUILD_PATH;
#endif
  spec.make_target = [](const codegen::gpu::GpuLimits& limits) {
    codegen::GlslEmitOptions options;
    options.limits = limits;
    return std::make_unique<codegen::VulkanTarget>(options);
  };
  return spec;
}

std::unique_ptr<Measurer> CreateVulkanMeasurer(const MeasureOptions& options) {
  MeasureOptions o = options;
  if (o.target.empty() || o.target == "llvm") o.target = "vulkan";
  return std::make_unique<gpu::GpuMeasurer>(o, VulkanDeviceSpec());
}

}  // namespace kiln::runtime::vulkan
