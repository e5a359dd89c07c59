// WebGpuDeviceSpec: the pieces of the WebGPU device kind.
#include "runtime/webgpu/webgpu_measurer.h"

#include "codegen/webgpu/wgsl_emitter.h"

namespace kiln::runtime::webgpu {

gpu::GpuDeviceSpec WebGpuDeviceSpec() {
  gpu::GpuDeviceSpec spec;
  spec.device_kind = "webgpu";
  spec.runner_name = "kiln-webgpu-runner";
#ifdef KILN_WEBGPU_RUNNER_BUILD_PATH
  spec.runner_build_path = KILN_WEBGPU_RUNNER_BUILD_PATH;
#endif
  spec.make_target = [](const codegen::gpu::GpuLimits& limits) {
    // The device's limits (compute, storage buffers per stage) over WebGPU's defaults for the
    // rest (workgroups per dimension): the runner opens the device with the same.
    codegen::WgslEmitOptions options;
    options.limits.gpu = limits;
    return std::make_unique<codegen::WebGpuTarget>(options);
  };
  return spec;
}

std::unique_ptr<Measurer> CreateWebGpuMeasurer(const MeasureOptions& options) {
  MeasureOptions o = options;
  if (o.target.empty() || o.target == "llvm") o.target = "webgpu";
  return std::make_unique<gpu::GpuMeasurer>(o, WebGpuDeviceSpec());
}

}  // namespace kiln::runtime::webgpu
