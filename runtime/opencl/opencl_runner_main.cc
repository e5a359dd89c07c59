// kiln-opencl-runner: builds, runs and times one candidate's OpenCL kernels in its own
// process (runtime/gpu/gpu_backend.h). Usage: kiln-opencl-runner REQUEST.json RESULT.json, or
// kiln-opencl-runner describe DEVICE.json.
#include "runtime/gpu/gpu_backend.h"
#include "runtime/opencl/opencl_backend.h"
#include "runtime/runner_asan_options.h"

int main(int argc, char** argv) {
  return kiln::runtime::gpu::GpuRunnerMain(argc, argv, kiln::runtime::opencl::OpenOpenCLDevice);
}
