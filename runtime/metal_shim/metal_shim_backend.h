// The Metal device of this machine when it has none: Kiln's MSL compiled as C++20 with the
// metal_stdlib shim (runtime/metal_shim/metal_stdlib) by the host's g++ into a shared object,
// loaded with dlopen, and run on the CPU, each threadgroup's threads as fibers
// (threadgroup_executor.h). It checks that the emitted MSL means what the interpreter
// computes, on a machine without a Mac; it is an emulation, says so in its description
// (`emulated`, the name "Metal (CPU shim)", a device key no Metal GPU has), and its times are
// the CPU's, never a Mac's. The compiler is g++ (KILN_METAL_SHIM_CXX overrides it); objects
// go through the content-addressed build cache (runtime/cpu_builder.h).
#pragma once

#include <memory>
#include <string>

#include "runtime/gpu/gpu_backend.h"

namespace kiln::runtime::metal_shim {

// The translation unit that Build compiles for `msl` holding `kernels`: the shim, the MSL
// (its `#include <metal_stdlib>` satisfied by the shim) and one C entry point per kernel.
std::string ShimTranslationUnit(const std::string& msl, const std::vector<std::string>& kernels);

// The C++ compiler the shim uses.
std::string ShimCompiler();

// Opens the emulated device; kiln::Error(kUnsupported) when no C++ compiler runs.
std::unique_ptr<gpu::GpuBackend> OpenMetalShimDevice();

}  // namespace kiln::runtime::metal_shim
