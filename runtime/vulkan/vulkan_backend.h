// The Vulkan device inside kiln-vulkan-runner (runtime/gpu/gpu_backend.h): the device
// DefaultVulkanDevice picks (lavapipe on machines without a GPU), each kernel of the emitted
// GLSL compiled to SPIR-V with shaderc under its entry macro, storage buffers, pipelines made
// at the first run (when the arguments fix the descriptor layout and push constants), and
// timing by timestamp queries around the batch.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_backend.h"
#include "runtime/vulkan/vulkan_device.h"

namespace kiln::runtime::vulkan {

// The device's description for the measurer and the worker: key, limits, features.
gpu::DeviceDescription DescribeForGpu(const VulkanDeviceInfo& info);

// Opens DefaultVulkanDevice(); kiln::Error(kUnsupported) without a Vulkan device.
std::unique_ptr<gpu::GpuBackend> OpenVulkanDevice();

}  // namespace kiln::runtime::vulkan
