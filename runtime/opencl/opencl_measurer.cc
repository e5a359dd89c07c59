// OpenCLDeviceSpec: the pieces of the OpenCL device kind.
#include "runtime/opencl/opencl_measurer.h"

#include "codegen/opencl/opencl_emitter.h"

namespace kiln::runtime::opencl {

gpu::GpuDeviceSpec OpenCLDeviceSpec() {
  gpu::GpuDeviceSpec spec;
  spec.device_kind = "opencl";
  spec.runner_name = "kiln-opencl-runner";
#ifdef KILN_OPENCL_RUNNER_BUILD_PATH
  spec.runner_build_path = KILN_OPENCL_RUNNER_BUILD_PATH;
#endif
  spec.make_target = [](const codegen::gpu::GpuLimits& limits) {
    codegen::OpenCLEmitOptions options;
    options.limits = limits;
    return std::make_unique<codegen::OpenCLTarget>(options);
  };
  return spec;
}

std::unique_ptr<Measurer> CreateOpenCLMeasurer(const MeasureOptions& options) {
  MeasureOptions o = options;
  if (o.target.empty() || o.target == "llvm") o.target = "opencl";
  return std::make_unique<gpu::GpuMeasurer>(o, OpenCLDeviceSpec());
}

}  // namespace kiln::runtime::opencl
