// kiln-metal-runner: builds, runs and times one candidate's Metal kernels on this Mac's GPU in
// its own process (runtime/gpu/gpu_backend.h). Usage: kiln-metal-runner REQUEST.json
// RESULT.json, or kiln-metal-runner describe DEVICE.json. Apple platforms only; UNTESTED until
// a Mac runs it. The system call filter is Linux's: on macOS the lockdown applies its limits.
#include "runtime/gpu/gpu_backend.h"
#include "runtime/metal/metal_backend.h"

int main(int argc, char** argv) {
  @autoreleasepool {
    return kiln::runtime::gpu::GpuRunnerMain(argc, argv, kiln::runtime::metal::OpenMetalDevice,
                                             /*filter_system_calls=*/false);
  }
}
