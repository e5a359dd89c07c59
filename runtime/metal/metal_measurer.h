// The Metal measurer: a GpuMeasurer (runtime/gpu/gpu_measurer.h) with the "metal" codegen
// target (codegen/metal/msl_emitter.h). Registered as device kind "metal". Its runner is
// kiln-metal-runner on Apple platforms (runtime/metal/, a real Metal device) and
// kiln-metal-shim-runner elsewhere (runtime/metal_shim/, the CPU emulation, whose device
// description says `emulated`); KILN_METAL_RUNNER names another.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_measurer.h"

namespace kiln::runtime::metal {

gpu::GpuDeviceSpec MetalDeviceSpec();

// Throws kiln::Error(kUnsupported) saying why when the machine has no Metal runner or device.
std::unique_ptr<Measurer> CreateMetalMeasurer(const MeasureOptions& options);

}  // namespace kiln::runtime::metal
