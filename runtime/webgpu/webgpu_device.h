// The facts of a WebGPU device as wgpu-native reports them (adapter info: vendor, architecture,
// device, description, backend, subgroup sizes; limits; features), the limits the runner asks
// for, the device key records are stored under, and the DeviceDescription a worker registers.
//
// Limits: a kernel is tuned against a fixed set of limits and the device is opened with exactly
// those, so that a kernel that runs in the runner also fits any device that grants them. By
// default they are WebGPU's defaults (codegen::webgpu::DefaultWebGpuLimits: 256 invocations,
// 16 KiB of workgroup storage, 8 storage buffers), what a browser gives a page that asks for
// nothing; KILN_WEBGPU_LIMITS=adapter asks for the adapter's own instead, and the key says so.
#pragma once

#include <string>
#include <vector>

#include "runtime/gpu/device.h"
#include "runtime/webgpu/webgpu_api.h"

namespace kiln::runtime::webgpu {

enum class LimitsPolicy { kWebGpuDefaults, kAdapter };

// From KILN_WEBGPU_LIMITS ("default" or unset, "adapter"); kiln::Error(kUnsupported) otherwise.
LimitsPolicy LimitsPolicyFromEnvironment();

struct WebGpuDeviceInfo {
  std::string vendor, architecture, device, description;  // WGPUAdapterInfo
  std::string backend;                                    // "vulkan", "metal", ...
  std::string adapter_type;                               // "cpu", "discrete-gpu", ...
  std::string library;                                    // "wgpu-native 29.0.1.1"
  uint32_t vendor_id = 0, device_id = 0;
  uint32_t subgroup_min_size = 0, subgroup_max_size = 0;  // 0: not reported
  LimitsPolicy policy = LimitsPolicy::kWebGpuDefaults;
  WGPULimits adapter_limits = {};     // what the adapter could grant
  WGPULimits limits = {};             // what the device was opened with
  std::vector<std::string> features;  // the device's, by name ("timestamp-query", ...)
  bool timestamps = false;            // timestamp-query
  bool timestamps_inside_passes = false;
  bool shader_f16 = false;
  double timestamp_period_ns = 0;  // 0 without timestamps
  std::string key;
};

// The limits to open a device with under `policy`, given the adapter's.
WGPULimits RequiredLimits(const WGPULimits& adapter, LimitsPolicy policy);

// "webgpu-<model>" from the adapter's device name ("llvmpipe (LLVM 15.0.6, 256 bits)" ->
// "webgpu-llvmpipe"), with "-adapter-limits" under LimitsPolicy::kAdapter.
std::string WebGpuDeviceKey(const std::string& device_name, LimitsPolicy policy);

// The name of a feature as WebGPU spells it ("shader-f16"); "feature-<n>" when unknown.
std::string FeatureName(WGPUFeatureName feature);

// The device's description for the measurer and the worker.
gpu::DeviceDescription DescribeForGpu(const WebGpuDeviceInfo& info);

// A line for logs: key, device, backend, library, the compute limits.
std::string DescribeWebGpuDevice(const WebGpuDeviceInfo& info);

}  // namespace kiln::runtime::webgpu
