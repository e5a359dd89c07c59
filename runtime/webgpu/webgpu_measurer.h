// The WebGPU measurer: a GpuMeasurer (runtime/gpu/gpu_measurer.h) with the "webgpu" codegen
// target (WGSL) and the kiln-webgpu-runner process. Registered as device kind "webgpu". It
// needs no WebGPU library itself: only the runner loads wgpu-native.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_measurer.h"

namespace kiln::runtime::webgpu {

gpu::GpuDeviceSpec WebGpuDeviceSpec();

// Throws kiln::Error(kUnsupported) "no webgpu device on this machine: ..." without one (no
// runner in this build, no wgpu-native, no adapter).
std::unique_ptr<Measurer> CreateWebGpuMeasurer(const MeasureOptions& options);

}  // namespace kiln::runtime::webgpu
