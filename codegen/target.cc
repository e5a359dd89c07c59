// The target registry, with the built-in CPU targets.
#include "codegen/target.h"

#include <map>
#include <mutex>

#include "codegen/c/c_emitter.h"
#include "codegen/cuda/cuda_emitter.h"
#include "codegen/metal/msl_emitter.h"
#include "codegen/opencl/opencl_emitter.h"
#include "codegen/vulkan/glsl_emitter.h"
#include "codegen/webgpu/wgsl_emitter.h"

namespace kiln::codegen {

namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, TargetFactory> factories;
};

Registry& GetRegistry() {
  static Registry* registry = [] {
    auto* r = new Registry;
    r->factories["c"] = [] { return std::make_unique<CTarget>(); };
    // The host CPU target keeps TVM's name; its code goes through the C emitter.
    r->factories["llvm"] = [] { return std::make_unique<CTarget>(); };
    r->factories["opencl"] = [] { return std::make_unique<OpenCLTarget>(); };
    r->factories["cuda"] = [] { return std::make_unique<CudaTarget>(); };
    r->factories["vulkan"] = [] { return std::make_unique<VulkanTarget>(); };
    r->factories["metal"] = [] { return std::make_unique<MetalTarget>(); };
    r->factories["webgpu"] = [] { return std::make_unique<WebGpuTarget>(); };
    return r;
  }();
  return *registry;
}

}  // namespace

void RegisterTarget(const std::string& name, TargetFactory factory) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mutex);
  r.factories[name] = std::move(factory);
}

std::unique_ptr<CodegenTarget> CreateTarget(const std::string& name) {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mutex);
  auto it = r.factories.find(name);
  if (it == r.factories.end()) {
    std::string known;
    for (const auto& [n, f] : r.factories) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorKind::kUnsupported,
                "unknown codegen target '" + name + "' (known: " + known + ")");
  }
  return it->second();
}

std::vector<std::string> TargetNames() {
  Registry& r = GetRegistry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [n, f] : r.factories) names.push_back(n);
  return names;
}

}  // namespace kiln::codegen
