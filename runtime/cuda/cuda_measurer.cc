// CudaDeviceSpec: the pieces of the CUDA device kind.
#include "runtime/cuda/cuda_measurer.h"

#include "codegen/cuda/cuda_emitter.h"

namespace kiln::runtime::cuda {

gpu::GpuDeviceSpec CudaDeviceSpec() {
  gpu::GpuDeviceSpec spec;
  spec.device_kind = "cuda";
  spec.runner_name = "kiln-cuda-runner";
#ifdef KILN_CUDA_RUNNER_BUILD_PATH
  spec.runner_build_path = KILN_CUDA_RUNNER_BUILD_PATH;
#endif
  spec.make_target = [](const codegen::gpu::GpuLimits& limits) {
    codegen::CudaEmitOptions options;
    options.limits = limits;
    return std::make_unique<codegen::CudaTarget>(options);
  };
  return spec;
}

std::unique_ptr<Measurer> CreateCudaMeasurer(const MeasureOptions& options) {
  MeasureOptions o = options;
  if (o.target.empty() || o.target == "llvm") o.target = "cuda";
  return std::make_unique<gpu::GpuMeasurer>(o, CudaDeviceSpec());
}

}  // namespace kiln::runtime::cuda
