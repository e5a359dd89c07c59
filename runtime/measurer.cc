// The measurer registry, with the built-in CPU measurer, and the default batch loop.
#include "runtime/measurer.h"

#include <mutex>

#include "runtime/cpu_builder.h"
#include "runtime/cpu_measurer.h"
#include "runtime/cuda/cuda_measurer.h"
#include "runtime/metal/metal_measurer.h"
#include "runtime/opencl/opencl_measurer.h"
#include "runtime/remote_cpu/cross_toolchain.h"
#include "runtime/remote_cpu/remote_cpu_measurer.h"
#include "runtime/vulkan/vulkan_measurer.h"
#include "runtime/webgpu/webgpu_measurer.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, MeasurerFactory> factories;
};

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    r->factories["cpu"] = [](const MeasureOptions& options) {
      return std::make_unique<CpuMeasurer>(options);
    };
    r->factories["opencl"] = [](const MeasureOptions& options) {
      return opencl::CreateOpenCLMeasurer(options);
    };
    r->factories["cuda"] = [](const MeasureOptions& options) {
      return cuda::CreateCudaMeasurer(options);
    };
    r->factories["vulkan"] = [](const MeasureOptions& options) {
      return vulkan::CreateVulkanMeasurer(options);
    };
    // A CPU reached through kiln-device-runner (a phone, a board): KILN_DEVICE_RUNNER names it
    // unless a worker registered its own (kiln-worker --device-runner).
    r->factories[remote_cpu::kRemoteCpuDeviceKind] = [](const MeasureOptions& options) {
      return remote_cpu::CreateRemoteCpuMeasurerFromEnvironment(options);
    };
    r->factories["webgpu"] = [](const MeasureOptions& options) {
      return webgpu::CreateWebGpuMeasurer(options);
    };
    r->factories["metal"] = [](const MeasureOptions& options) {
      return metal::CreateMetalMeasurer(options);
    };
    return r;
  }();
  return *registry;
}

}  // namespace

std::vector<MeasureResult> Measurer::MeasureBatch(const std::vector<MeasureCandidate>& candidates) {
  std::vector<MeasureResult> results;
  for (const MeasureCandidate& candidate : candidates) results.push_back(Measure(candidate));
  return results;
}

void RegisterMeasurer(const std::string& device_kind, MeasurerFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mutex);
  r.factories[device_kind] = std::move(factory);
}

std::unique_ptr<Measurer> CreateMeasurer(const std::string& device_kind,
                                         const MeasureOptions& options) {
  MeasurerFactory factory;
  {
    Registry& r = GetRegistry();
    std::lock_guard lock(r.mutex);
    auto it = r.factories.find(device_kind);
    if (it == r.factories.end()) {
      std::string known;
      for (const auto& [name, f] : r.factories) known += (known.empty() ? "" : ", ") + name;
      throw Error(ErrorKind::kUnsupported,
                  "no measurer for device kind '" + device_kind + "' (known: " + known + ")");
    }
    factory = it->second;
  }
  return factory(options);
}

ReferenceOptions ReferenceOptionsFor(const MeasureOptions& options) {
  ReferenceOptions r;
  r.cache_dir = options.cache_dir;
  r.interpreter_budget = options.interpreter_budget;
  r.interpreter_limit = options.interpreter_limit;
  r.build = BuildOptions{options.compiler, options.c_flags, options.build_time_limit_s,
                         options.cache_dir.empty() ? DefaultCacheDir() : options.cache_dir};
  r.sandbox_path = options.sandbox_path;
  return r;
}

std::string DeviceKindOfTarget(const std::string& target) {
  // A TVM-style target string may carry options after its kind: "llvm -mcpu=znver4".
  std::string kind = target.substr(0, target.find(' '));
  if (kind == "llvm" || kind == "c") {
    // Another machine's code ("llvm -mtriple=aarch64-linux-gnu") runs on a device runner.
    std::string triple = remote_cpu::TripleOfTarget(target);
    if (!triple.empty() && !remote_cpu::TriplesMatch(triple, remote_cpu::HostTriple())) {
      return remote_cpu::kRemoteCpuDeviceKind;
    }
    return "cpu";
  }
  // Each GPU target runs on the device kind of its API.
  if (kind == "opencl" || kind == "vulkan" || kind == "cuda" || kind == "metal" ||
      kind == "webgpu") {
    return kind;
  }
  throw Error(ErrorKind::kUnsupported,
              "no device runs code of target '" + target +
                  "' (measurable targets: llvm, c, opencl, vulkan, cuda, metal, webgpu)");
}

}  // namespace kiln::runtime
