// The CUDA measurer: a GpuMeasurer (runtime/gpu/gpu_measurer.h) with the "cuda" codegen target
// and the kiln-cuda-runner process, which compiles with NVRTC and runs through the driver API.
// Registered as device kind "cuda".
#pragma once

#include <memory>

#include "runtime/gpu/gpu_measurer.h"

namespace kiln::runtime::cuda {

gpu::GpuDeviceSpec CudaDeviceSpec();

// Throws kiln::Error(kUnsupported) naming the missing driver or device on a machine without a
// CUDA GPU.
std::unique_ptr<Measurer> CreateCudaMeasurer(const MeasureOptions& options);

}  // namespace kiln::runtime::cuda
