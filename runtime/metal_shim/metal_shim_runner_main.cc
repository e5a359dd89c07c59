// kiln-metal-shim-runner: builds, runs and times one candidate's Metal kernels on the CPU
// through the MSL shim (runtime/metal_shim/metal_shim_backend.h) in its own process
// (runtime/gpu/gpu_backend.h). Usage: kiln-metal-shim-runner REQUEST.json RESULT.json, or
// kiln-metal-shim-runner describe DEVICE.json. The compiler runs in Build, before the runner
// locks itself down for the timing.
#include "runtime/gpu/gpu_backend.h"
#include "runtime/metal_shim/metal_shim_backend.h"
#include "runtime/runner_asan_options.h"

int main(int argc, char** argv) {
  return kiln::runtime::gpu::GpuRunnerMain(argc, argv,
                                           kiln::runtime::metal_shim::OpenMetalShimDevice);
}
