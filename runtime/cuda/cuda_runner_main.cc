// kiln-cuda-runner: builds (NVRTC), runs and times one candidate's CUDA kernels in its own
// process (runtime/gpu/gpu_backend.h), so that a crash, a hang or a lost device ends only this
// process. Usage: kiln-cuda-runner REQUEST.json RESULT.json, or kiln-cuda-runner describe
// DEVICE.json. Without a driver or a GPU it exits with kNoDeviceExitStatus and says why.
// Its timing runs under the runners' limits but not yet their system call filter: which
// calls the CUDA driver makes while timing has not been checked on a GPU, and CUDA kernels
// cannot make system calls themselves.
#include "runtime/cuda/cuda_backend.h"
#include "runtime/gpu/gpu_backend.h"
#include "runtime/runner_asan_options.h"

int main(int argc, char** argv) {
  return kiln::runtime::gpu::GpuRunnerMain(argc, argv, kiln::runtime::cuda::OpenCudaDevice,
                                           /*filter_system_calls=*/false);
}
