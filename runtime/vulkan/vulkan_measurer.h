// The Vulkan measurer: a GpuMeasurer (runtime/gpu/gpu_measurer.h) with the "vulkan" codegen
// target (GLSL) and the kiln-vulkan-runner process. Registered as device kind "vulkan". It
// needs no Vulkan library itself: only the runner links the loader and shaderc.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_measurer.h"

namespace kiln::runtime::vulkan {

gpu::GpuDeviceSpec VulkanDeviceSpec();

// Throws kiln::Error(kUnsupported) "no vulkan device on this machine: ..." without one.
std::unique_ptr<Measurer> CreateVulkanMeasurer(const MeasureOptions& options);

}  // namespace kiln::runtime::vulkan
