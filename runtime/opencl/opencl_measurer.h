// The OpenCL measurer: a GpuMeasurer (runtime/gpu/gpu_measurer.h) with the "opencl" codegen
// target and the kiln-opencl-runner process. Registered as device kind "opencl".
#pragma once

#include <memory>

#include "runtime/gpu/gpu_measurer.h"

namespace kiln::runtime::opencl {

gpu::GpuDeviceSpec OpenCLDeviceSpec();

// Throws kiln::Error(kUnsupported) "no opencl device on this machine: ..." without one.
std::unique_ptr<Measurer> CreateOpenCLMeasurer(const MeasureOptions& options);

}  // namespace kiln::runtime::opencl
