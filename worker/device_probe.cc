// The device table with its built-in kinds: the CPU, the fake device and the GPU APIs.
#include "worker/device_probe.h"

#include <algorithm>
#include <map>
#include <mutex>

#include "runtime/gpu/device.h"
#include "runtime/gpu/gpu_measurer.h"
#include "runtime/measurer.h"
#include "support/error.h"
#include "worker/device_key.h"
#include "worker/fake_measurer.h"
#include "worker/remote_device.h"

namespace kiln::worker {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, DeviceProbe> probes;
};

ProbedDevice ProbeCpu() { return {"cpu", DetectCpuDeviceKey(), DetectCpuHardware(), "llvm"}; }

ProbedDevice ProbeFake() {
  RegisterFakeMeasurer();
  return {kFakeDeviceKind, kFakeDeviceKind, kFakeDeviceKind, "llvm"};
}

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    r->probes["cpu"] = ProbeCpu;
    r->probes[kFakeDeviceKind] = ProbeFake;
    r->probes["cuda"] = [] { return ProbeGpuDevice("cuda"); };
    r->probes["opencl"] = [] { return ProbeGpuDevice("opencl"); };
    r->probes["vulkan"] = [] { return ProbeGpuDevice("vulkan"); };
    // A phone or board behind kiln-device-runner, named by KILN_DEVICE_RUNNER (kiln-worker
    // --device-runner registers its own).
    r->probes["remote-cpu"] = ProbeDeviceRunnerFromEnvironment;
    r->probes["webgpu"] = [] { return ProbeGpuDevice("webgpu"); };
    r->probes["metal"] = [] { return ProbeGpuDevice("metal"); };
    return r;
  }();
  return *registry;
}

}  // namespace

void RegisterDeviceProbe(const std::string& kind, DeviceProbe probe) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mutex);
  r.probes[kind] = std::move(probe);
}

std::vector<std::string> DeviceKinds() {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> kinds;
  for (const auto& [kind, probe] : r.probes) kinds.push_back(kind);
  return kinds;
}

ProbedDevice ProbeDevice(const std::string& kind) {
  DeviceProbe probe;
  {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mutex);
    auto it = r.probes.find(kind);
    if (it == r.probes.end()) {
      std::string known;
      for (const auto& [name, p] : r.probes) known += (known.empty() ? "" : ", ") + name;
      throw Error(ErrorKind::kUnsupported,
                  "unknown device kind '" + kind + "' (known: " + known + ")");
    }
    probe = it->second;
  }
  return probe();
}

ProbedDevice ProbeGpuDevice(const std::string& kind) {
  runtime::MeasureOptions options;
  options.target = kind;
  std::unique_ptr<runtime::Measurer> measurer;
  try {
    measurer = runtime::CreateMeasurer(kind, options);
  } catch (const Error& e) {
    // No runtime for the kind in this build, or no device: either way this machine cannot
    // serve it.
    throw Error(ErrorKind::kUnsupported, e.what());
  }
  const auto* gpu = dynamic_cast<const runtime::gpu::GpuMeasurer*>(measurer.get());
  if (gpu == nullptr) return {kind, kind, kind, kind};
  const runtime::gpu::DeviceDescription& d = gpu->device();
  std::string hardware = d.name + (d.platform.empty() ? "" : ", " + d.platform);
  return {kind, d.key, hardware, kind, d};
}

void AddDeviceFacts(const ProbedDevice& device, schemas::RegisterMsg& message) {
  if (!device.gpu) return;
  const codegen::gpu::GpuLimits& l = device.gpu->limits;
  auto clamp = [](int64_t v) { return static_cast<uint32_t>(std::clamp<int64_t>(v, 0, 1 << 30)); };
  message.hardware = device.hardware;
  message.max_threads_per_block = clamp(l.max_threads_per_block);
  message.max_shared_bytes = clamp(l.max_shared_bytes);
  message.warp_size = clamp(l.warp_size);
  message.features.clear();
  if (l.fp16) message.features.push_back("fp16");
  if (l.fp64) message.features.push_back("fp64");
  if (l.int64) message.features.push_back("int64");
  // An emulation (the Metal CPU shim) says so wherever the worker is listed.
  if (device.gpu->emulated) message.features.push_back("emulated");
}

}  // namespace kiln::worker
