// The WebGPU device inside kiln-webgpu-runner (runtime/gpu/gpu_backend.h), over wgpu-native
// loaded with dlopen (webgpu_api.h): its Vulkan adapter (lavapipe on machines without a GPU)
// opened with exactly the limits kernels are tuned against (webgpu_device.h) and timestamp
// queries where the adapter has them. Build makes the WGSL module (naga's messages are the
// build error) and checks each kernel's launch against the limits; the first run makes one
// explicit bind group layout for the function's arguments (codegen/webgpu/webgpu_abi.h), one
// pipeline per kernel with its override constants, and the uniform of scalars. A run records
// all kernels `n` times into one compute pass of one command encoder, timed by timestamps
// written inside the pass where the adapter allows it, by the pass's own timestamps otherwise,
// and by the host clock without timestamp queries. Validation errors, a lost device and a queue
// that does not drain are kiln::Error(kRuntime) naming the kernels.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_backend.h"
#include "runtime/webgpu/webgpu_device.h"

namespace kiln::runtime::webgpu {

// Opens the device; kiln::Error(kUnsupported) without wgpu-native (or at another version) or
// a Vulkan adapter. Fills `info` with the device's facts when given.
std::unique_ptr<gpu::GpuBackend> OpenWebGpuDevice(WebGpuDeviceInfo* info = nullptr);

}  // namespace kiln::runtime::webgpu
