// The device table of a worker: for each device kind it can measure on ("cpu", "cuda",
// "opencl", "vulkan", "fake"), a probe that finds the device on this machine and says what the
// worker registers with -- the device key records are filed under, a hardware summary, the
// codegen target it builds for, and for a GPU its description (limits and features,
// runtime/gpu/device.h). A machine without the device gets a kiln::Error(kUnsupported) that
// names what is missing, so `kiln-worker --device cuda` on a machine without a GPU says so and
// exits. Adding a device kind is one RegisterDeviceProbe call.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "runtime/gpu/device.h"
#include "schemas/messages.h"

namespace kiln::worker {

struct ProbedDevice {
  std::string kind;      // "cuda"
  std::string key;       // "cuda-h100", "cpu-zen4"
  std::string hardware;  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs", "AMD EPYC ..., 2 cores"
  std::string target;    // the codegen target it builds for by default: "cuda", "llvm"
  // A GPU's description (name, key, limits, features); none for the CPU and the fake device.
  std::optional<runtime::gpu::DeviceDescription> gpu = std::nullopt;
};

// Finds the device or throws kiln::Error(kUnsupported) saying why there is none.
using DeviceProbe = std::function<ProbedDevice()>;

// Adds or replaces the probe of `kind`.
void RegisterDeviceProbe(const std::string& kind, DeviceProbe probe);

// The device of `kind` on this machine. Throws kiln::Error(kUnsupported) for a kind nobody
// registered (listing the known kinds) and whatever the probe throws when the device is absent
// ("no cuda device on this machine: no CUDA driver: cannot load libcuda.so.1 ...").
ProbedDevice ProbeDevice(const std::string& kind);

// The registered kinds, sorted.
std::vector<std::string> DeviceKinds();

// Fills what `device` tells the coordinator beyond its key: a GPU's summary, limits and
// features (the design space fits a job to them).
void AddDeviceFacts(const ProbedDevice& device, schemas::RegisterMsg& message);

// The probe of a GPU kind whose runtime::Measurer is a runtime::gpu::GpuMeasurer: it creates
// the measurer, which starts the device's runner to describe the device.
ProbedDevice ProbeGpuDevice(const std::string& kind);

}  // namespace kiln::worker
