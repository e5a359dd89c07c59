// naga and Tint through their libraries' shader modules and pipelines (wgsl_validator.h).
#include "runtime/webgpu/wgsl_validator.h"

#include <map>
#include <memory>
#include <mutex>

#include "runtime/webgpu/pipeline_constants.h"
#include "runtime/webgpu/webgpu_context.h"
#include "support/error.h"

namespace kiln::runtime::webgpu {
namespace {

struct Validators {
  std::mutex mutex;
  std::map<WgslValidator, std::unique_ptr<WebGpuContext>> contexts;
};

Validators& GetValidators() {
  static Validators* validators = new Validators;
  return *validators;
}

const WebGpuApi& ApiOf(WgslValidator validator) {
  return validator == WgslValidator::kNaga ? LoadWgpuNative() : LoadDawn();
}

// A device with WebGPU's default limits: what a browser gives a page that asks for nothing.
WebGpuContext& ContextOf(WgslValidator validator) {
  Validators& v = GetValidators();
  auto it = v.contexts.find(validator);
  if (it != v.contexts.end()) return *it->second;
  // naga runs inside wgpu-native's device, on its Vulkan adapter; Dawn validates with Tint on
  // whichever adapter it picks by default (lavapipe here), with WebGPU's default limits.
  ContextOptions options;
  options.backend = WGPUBackendType_Vulkan;
  auto context = std::make_unique<WebGpuContext>(ApiOf(validator), options);
  return *v.contexts.emplace(validator, std::move(context)).first->second;
}

}  // namespace

const char* WgslValidatorName(WgslValidator validator) {
  return validator == WgslValidator::kNaga ? "naga" : "tint";
}

std::string WgslValidatorUnavailable(WgslValidator validator) {
  Validators& v = GetValidators();
  std::lock_guard lock(v.mutex);
  try {
    ContextOf(validator);
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

std::string ValidateWgsl(WgslValidator validator, const std::string& source,
                         const std::vector<codegen::gpu::ConcreteLaunch>& kernels) {
  Validators& v = GetValidators();
  std::lock_guard lock(v.mutex);
  WebGpuContext& context = ContextOf(validator);
  const WebGpuApi& api = context.api();
  std::string report;
  auto note = [&](const std::string& where, const std::string& errors) {
    if (!errors.empty()) report += (report.empty() ? "" : "\n") + where + ": " + errors;
  };
  context.TakeErrors();

  WGPUShaderModule module = nullptr;
  WGPUShaderSourceWGSL wgsl = {};
  wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
  wgsl.code = View(source);
  WGPUShaderModuleDescriptor descriptor = {};
  descriptor.nextInChain = &wgsl.chain;
  descriptor.label = View("kiln");
  note(std::string(WgslValidatorName(validator)) + ": the module", context.Catch([&] {
    module = api.DeviceCreateShaderModule(context.device(), &descriptor);
  }));
  if (report.empty()) {
    for (const codegen::gpu::ConcreteLaunch& launch : kernels) {
      std::vector<std::pair<std::string, double>> values = PipelineConstants(source, launch);
      std::vector<WGPUConstantEntry> constants;
      for (const auto& [name, value] : values) constants.push_back({nullptr, View(name), value});
      WGPUComputePipelineDescriptor pipeline_descriptor = {};
      pipeline_descriptor.label = View(launch.symbol);
      pipeline_descriptor.compute.module = module;
      pipeline_descriptor.compute.entryPoint = View(launch.symbol);
      pipeline_descriptor.compute.constantCount = constants.size();
      pipeline_descriptor.compute.constants = constants.data();
      WGPUComputePipeline pipeline = nullptr;
      note(std::string(WgslValidatorName(validator)) + ": kernel " + launch.symbol,
           context.Catch([&] {
             pipeline = api.DeviceCreateComputePipeline(context.device(), &pipeline_descriptor);
           }));
      if (pipeline != nullptr) api.ComputePipelineRelease(pipeline);
    }
  }
  if (module != nullptr) api.ShaderModuleRelease(module);
  note(WgslValidatorName(validator), context.TakeErrors());
  return report;
}

}  // namespace kiln::runtime::webgpu
