// GpuMeasurer: the Measurer of a GPU device kind, with the CPU measurer's contract. It
// discovers the device once (the runner's `describe`, in a child process), generates code with
// the device's limits (a function that does not fit is a build_error naming the limit), and
// has the device's runner process build, run once, dump and time each candidate under a
// wall-clock limit (runtime/gpu/gpu_backend.h); every output is compared with the workload's
// reference. Faults of the candidate are results (build_error, runtime_error, timeout,
// wrong_result); faults of the machinery are exceptions (SandboxFault).
//
// One instance per device kind: OpenCL registers {"opencl", "kiln-opencl-runner", target
// "opencl"}; Vulkan and CUDA do the same with their runner and target.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "codegen/gpu/limits.h"
#include "codegen/target.h"
#include "runtime/gpu/device.h"
#include "runtime/measurer.h"
#include "runtime/reference_store.h"

namespace kiln::runtime::gpu {

struct GpuDeviceSpec {
  std::string device_kind;  // "opencl"
  std::string runner_name;  // "kiln-opencl-runner": KILN_<KIND>_RUNNER, beside the executable,
                            // or `runner_build_path`
  std::string runner_build_path;
  // The codegen target for a device with `limits`.
  std::function<std::unique_ptr<codegen::CodegenTarget>(const codegen::gpu::GpuLimits&)>
      make_target;
};

// The runner executable of `spec` (KILN_OPENCL_RUNNER for "opencl", ...). Throws
// kiln::Error(kIO) listing where it looked.
std::string FindRunnerExecutable(const GpuDeviceSpec& spec);

// Runs the runner's `describe`. Throws kiln::Error(kUnsupported) "no opencl device: ..." with the
// driver's reason when the machine has none.
DeviceDescription DiscoverDevice(const GpuDeviceSpec& spec, double time_limit_s = 60);

class GpuMeasurer : public Measurer {
 public:
  // Discovers the device (throws as DiscoverDevice when there is none).
  GpuMeasurer(MeasureOptions options, GpuDeviceSpec spec);

  std::string DeviceKind() const override { return spec_.device_kind; }
  const DeviceDescription& device() const { return device_; }
  MeasureResult Measure(const MeasureCandidate& candidate,
                        MeasureDetails* details = nullptr) override;
  // With options.build_jobs > 1, first has that many runner processes at once build and run
  // each candidate once, untimed and unchecked, which fills the driver's compile cache (PoCL
  // and lavapipe compile on the first dispatch); then measures them one at a time.
  std::vector<MeasureResult> MeasureBatch(const std::vector<MeasureCandidate>& candidates) override;

 private:
  MeasureResult MeasureImpl(const MeasureCandidate& candidate, MeasureDetails* details, bool warm);

  MeasureOptions options_;
  GpuDeviceSpec spec_;
  std::string runner_path_;
  DeviceDescription device_;
  ReferenceStore references_;
};

}  // namespace kiln::runtime::gpu
