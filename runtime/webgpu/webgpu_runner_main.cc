// kiln-webgpu-runner: builds, runs and times one candidate's WGSL kernels on wgpu-native in its
// own process (runtime/gpu/gpu_backend.h). Usage: kiln-webgpu-runner REQUEST.json RESULT.json,
// or kiln-webgpu-runner describe DEVICE.json.
#include "runtime/gpu/gpu_backend.h"
#include "runtime/runner_asan_options.h"
#include "runtime/webgpu/webgpu_backend.h"

int main(int argc, char** argv) {
  return kiln::runtime::gpu::GpuRunnerMain(
      argc, argv, [] { return kiln::runtime::webgpu::OpenWebGpuDevice(); });
}
