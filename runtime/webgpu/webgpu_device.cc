// WebGPU device facts, limits, keys and descriptions (webgpu_device.h).
#include "runtime/webgpu/webgpu_device.h"

#include <cstdlib>

#include "codegen/webgpu/webgpu_abi.h"
#include "support/error.h"

namespace kiln::runtime::webgpu {

LimitsPolicy LimitsPolicyFromEnvironment() {
  const char* value = std::getenv("KILN_WEBGPU_LIMITS");
  std::string policy = value == nullptr ? "" : value;
  if (policy.empty() || policy == "default") return LimitsPolicy::kWebGpuDefaults;
  if (policy == "adapter") return LimitsPolicy::kAdapter;
  throw Error(ErrorKind::kUnsupported,
              "KILN_WEBGPU_LIMITS is \"" + policy + "\": expected \"default\" or \"adapter\"");
}

WGPULimits RequiredLimits(const WGPULimits& adapter, LimitsPolicy policy) {
  if (policy == LimitsPolicy::kAdapter) {
    WGPULimits limits = adapter;
    limits.nextInChain = nullptr;
    return limits;
  }
  // Every limit at WebGPU's default; the compute ones spelled out, as the preset tunes them.
  WGPULimits limits = WGPU_LIMITS_INIT;
  codegen::webgpu::WebGpuLimits d = codegen::webgpu::DefaultWebGpuLimits();
  limits.maxComputeInvocationsPerWorkgroup = static_cast<uint32_t>(d.gpu.max_threads_per_block);
  limits.maxComputeWorkgroupSizeX = static_cast<uint32_t>(d.gpu.max_block_extent[0]);
  limits.maxComputeWorkgroupSizeY = static_cast<uint32_t>(d.gpu.max_block_extent[1]);
  limits.maxComputeWorkgroupSizeZ = static_cast<uint32_t>(d.gpu.max_block_extent[2]);
  limits.maxComputeWorkgroupStorageSize = static_cast<uint32_t>(d.gpu.max_shared_bytes);
  limits.maxStorageBuffersPerShaderStage = static_cast<uint32_t>(d.gpu.max_buffer_arguments);
  limits.maxComputeWorkgroupsPerDimension = static_cast<uint32_t>(d.max_workgroups_per_dimension);
  limits.maxStorageBufferBindingSize = static_cast<uint64_t>(d.max_storage_buffer_binding_size);
  return limits;
}

std::string WebGpuDeviceKey(const std::string& device_name, LimitsPolicy policy) {
  std::string key = gpu::DeviceKey("webgpu", device_name.substr(0, device_name.find('(')));
  return policy == LimitsPolicy::kAdapter ? key + "-adapter-limits" : key;
}

std::string FeatureName(WGPUFeatureName feature) {
  switch (static_cast<uint32_t>(feature)) {
    case WGPUFeatureName_TimestampQuery:
      return "timestamp-query";
    case WGPUFeatureName_ShaderF16:
      return "shader-f16";
    case WGPUFeatureName_Subgroups:
      return "subgroups";
    case WGPUFeatureName_IndirectFirstInstance:
      return "indirect-first-instance";
    case WGPUFeatureName_Float32Filterable:
      return "float32-filterable";
    case WGPUNativeFeature_TimestampQueryInsideEncoders:
      return "timestamp-query-inside-encoders";
    case WGPUNativeFeature_TimestampQueryInsidePasses:
      return "timestamp-query-inside-passes";
    case WGPUNativeFeature_ShaderInt64:
      return "shader-int64";
    case WGPUNativeFeature_ShaderF64:
      return "shader-f64";
    default:
      return "feature-" + std::to_string(static_cast<uint32_t>(feature));
  }
}

gpu::DeviceDescription DescribeForGpu(const WebGpuDeviceInfo& info) {
  gpu::DeviceDescription d;
  d.kind = "webgpu";
  d.name = info.device.empty() ? info.description : info.device;
  d.key = info.key;
  d.driver_version = info.description;
  // What a worker registers beside the name (worker/device_probe.cc): API backend, driver,
  // the WebGPU implementation.
  d.platform = info.backend + (info.description.empty() ? "" : ", " + info.description) + ", " +
               info.library;
  d.timer_resolution_ns = info.timestamps ? info.timestamp_period_ns : 1000;
  codegen::gpu::GpuLimits& l = d.limits;
  l = codegen::webgpu::DefaultWebGpuLimits().gpu;
  l.max_threads_per_block = info.limits.maxComputeInvocationsPerWorkgroup;
  l.max_block_extent = {info.limits.maxComputeWorkgroupSizeX, info.limits.maxComputeWorkgroupSizeY,
                        info.limits.maxComputeWorkgroupSizeZ};
  // The logical grid is folded into maxComputeWorkgroupsPerDimension (webgpu_abi.h's
  // DispatchOf): any grid of up to that limit cubed workgroups runs.
  int64_t per_dimension = info.limits.maxComputeWorkgroupsPerDimension;
  int64_t folded =
      std::min<int64_t>(per_dimension * per_dimension * per_dimension, int64_t{1} << 31);
  l.max_grid_extent = {folded, folded, folded};
  l.max_shared_bytes = info.limits.maxComputeWorkgroupStorageSize;
  l.max_buffer_arguments = info.limits.maxStorageBuffersPerShaderStage;
  if (info.subgroup_min_size > 0) l.warp_size = info.subgroup_min_size;
  l.fp16 = info.shader_f16;
  l.fp64 = false;  // WGSL has no f64 or i64
  l.int64 = false;
  return d;
}

std::string DescribeWebGpuDevice(const WebGpuDeviceInfo& info) {
  return info.key + ": " + info.device + " (" + info.vendor + ", " + info.backend + ", " +
         info.adapter_type + ", " + info.library + "), " +
         std::to_string(info.limits.maxComputeInvocationsPerWorkgroup) + " invocations, " +
         std::to_string(info.limits.maxComputeWorkgroupStorageSize) + " bytes of workgroup " +
         "storage, subgroups " + std::to_string(info.subgroup_min_size) + "-" +
         std::to_string(info.subgroup_max_size) +
         (info.timestamps_inside_passes ? ", timestamps inside passes"
          : info.timestamps             ? ", pass timestamps"
                                        : ", no timestamps") +
         (info.shader_f16 ? ", shader-f16" : "");
}

}  // namespace kiln::runtime::webgpu
