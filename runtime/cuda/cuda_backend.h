// The CUDA device inside kiln-cuda-runner (runtime/gpu/gpu_backend.h): device 0 through the
// driver API (primary context), sources compiled by NVRTC for the device's architecture (a
// cubin, or PTX the driver compiles when the GPU is newer than the toolkit), device memory,
// launches with one 8-byte parameter per argument (codegen/cuda/cuda_emitter.h), and timing by
// CUDA events around a batch of launches.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_backend.h"

namespace kiln::runtime::cuda {

// Opens device 0; kiln::Error(kUnsupported) "no CUDA driver: ..." / "no CUDA device: ..." when
// this machine has none.
std::unique_ptr<gpu::GpuBackend> OpenCudaDevice();

}  // namespace kiln::runtime::cuda
