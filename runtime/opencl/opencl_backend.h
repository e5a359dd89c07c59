// The OpenCL device inside kiln-opencl-runner: the first platform's first device (a GPU when
// one exists; PoCL's CPU device on machines without), a profiling command queue, programs
// built with clBuildProgram at run time, buffers, launches, and timing by profiling events
// (from the first kernel's start to the last one's end of a batch).
#pragma once

#include <memory>

#include "runtime/gpu/gpu_backend.h"

namespace kiln::runtime::opencl {

// Opens the device; kiln::Error(kUnsupported) when no OpenCL platform or device exists.
std::unique_ptr<gpu::GpuBackend> OpenOpenCLDevice();

}  // namespace kiln::runtime::opencl
