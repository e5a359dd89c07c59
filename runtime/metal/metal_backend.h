// The Metal device inside kiln-metal-runner (Apple platforms only; UNTESTED until a Mac runs
// it): MTLCreateSystemDefaultDevice, the MSL source compiled with newLibraryWithSource (fast
// math off), one compute pipeline per kernel, shared-storage buffers, one dispatch per command
// buffer (a kernel's writes are complete before the next kernel starts), and timing by the
// command buffers' GPUStartTime / GPUEndTime. Arguments follow codegen/metal/metal_abi.h.
#pragma once

#include <memory>

#include "runtime/gpu/gpu_backend.h"

namespace kiln::runtime::metal {

// Opens the system default Metal device; kiln::Error(kUnsupported) when there is none.
std::unique_ptr<gpu::GpuBackend> OpenMetalDevice();

}  // namespace kiln::runtime::metal
