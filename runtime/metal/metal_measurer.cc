// MetalDeviceSpec: the pieces of the Metal device kind.
#include "runtime/metal/metal_measurer.h"

#include "codegen/metal/msl_emitter.h"

namespace kiln::runtime::metal {

gpu::GpuDeviceSpec MetalDeviceSpec() {
  gpu::GpuDeviceSpec spec;
  spec.device_kind = "metal";
#ifdef __APPLE__
  spec.runner_name = "kiln-metal-runner";
#else
  spec.runner_name = "kiln-metal-shim-runner";
#endif
#ifdef KILN_METAL_RUNNER_BUILD_PATH
  spec.runner_build_path = KILN_METAL_RUNNER_BUILD_PATH;
#endif
  spec.make_target = [](const codegen::gpu::GpuLimits& limits) {
    codegen::MslEmitOptions options;
    options.limits = limits;
    return std::make_unique<codegen::MetalTarget>(options);
  };
  return spec;
}

std::unique_ptr<Measurer> CreateMetalMeasurer(const MeasureOptions& options) {
  MeasureOptions o = options;
  if (o.target.empty() || o.target == "llvm") o.target = "metal";
  try {
    return std::make_unique<gpu::GpuMeasurer>(o, MetalDeviceSpec());
  } catch (const Error& e) {
    // No runner in this build is no device here, as for the other GPU kinds' discovery.
    if (e.kind() == ErrorKind::kIO) throw Error(ErrorKind::kUnsupported, e.what());
    throw;
  }
}

}  // namespace kiln::runtime::metal
