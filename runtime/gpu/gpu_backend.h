// GpuBackend: what one GPU API does inside its runner process, and GpuRunnerMain, the main
// function every runner (kiln-opencl-runner, kiln-vulkan-runner, kiln-cuda-runner) shares.
// The runner reads a GpuRunRequest, builds the source, allocates and fills the buffers, runs
// the kernels once and dumps the outputs, then times them with the device's timer through
// runtime/timing.h (warm-up discarded: drivers compile lazily on the first dispatch), and
// writes a SandboxResult. It runs in a child process so that a crash, a hang or a lost device
// is a result for the measurer, not the end of the worker.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "codegen/gpu/launch.h"
#include "runtime/gpu/device.h"
#include "runtime/gpu/gpu_protocol.h"

namespace kiln::runtime::gpu {

// A kernel argument inside the runner: a buffer handle from Allocate, or a scalar.
struct GpuArg {
  GpuArgSpec::Kind kind = GpuArgSpec::Kind::kBuffer;
  int buffer = 0;
  ir::DataType dtype = ir::DataType::Int(64);
  int64_t int_value = 0;
  double float_value = 0;
};

class GpuBackend {
 public:
  virtual ~GpuBackend() = default;
  virtual DeviceDescription Describe() = 0;
  // Compiles `source` holding `kernels`. Returns the compiler's message on failure (the
  // candidate's build error), empty on success.
  virtual std::string Build(const std::string& source,
                            const std::vector<codegen::gpu::ConcreteLaunch>& kernels) = 0;
  virtual int Allocate(size_t bytes) = 0;
  virtual void Upload(int buffer, const void* data, size_t bytes) = 0;
  virtual void Download(int buffer, void* data, size_t bytes) = 0;
  // Launches the built kernels in order with `args`, `n` times over, waits for the end and
  // returns the device-timer seconds of all of it. A launch or device failure throws
  // kiln::Error(kRuntime) naming the kernel and the driver's code.
  virtual double Run(const std::vector<GpuArg>& args, int n) = 0;
};

// Opens the device; throws kiln::Error(kUnsupported) saying why when there is none.
using GpuBackendFactory = std::function<std::unique_ptr<GpuBackend>()>;

// `runner describe RESULT.json` writes the DeviceDescription; `runner REQUEST.json
// RESULT.json` carries out a request. Exit status 0 when the result file is written,
// kNoDeviceExitStatus without a device, kSandboxFaultExitStatus for a request it cannot read.
// After the first run the runner locks itself down for the timing (runtime/sandbox_lockdown.h):
// limits always, the system call filter when `filter_system_calls`.
int GpuRunnerMain(int argc, char** argv, const GpuBackendFactory& open_device,
                  bool filter_system_calls = true);

}  // namespace kiln::runtime::gpu
