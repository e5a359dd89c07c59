// One WebGPU device opened through a webgpu.h library (webgpu_api.h): instance -> adapter ->
// device with exactly the limits and features asked for, its queue, and the device's errors
// caught rather than printed: validation and internal errors of a call inside Catch come back
// as text, errors outside any scope and a lost device are kept and reported by TakeErrors.
// Asynchronous answers (adapter, device, buffer maps, error scopes) are waited for by polling
// with a deadline, so that a driver that never answers is an error, not a hang of the caller.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "runtime/webgpu/webgpu_api.h"

namespace kiln::runtime::webgpu {

// What to ask for. Dawn gets none of it (null descriptors: its default adapter and a device with
// WebGPU's default limits and no optional features), its struct layouts being older than the
// header's; the validators need nothing more.
struct ContextOptions {
  WGPUBackendType backend = WGPUBackendType_Vulkan;  // Undefined: the library's choice
  // The limits to request (exactly these) given the adapter's; unset: WebGPU's defaults.
  std::function<WGPULimits(const WGPULimits& adapter)> required_limits;
  // Features to request where the adapter has them (others are left out, not an error).
  std::vector<WGPUFeatureName> wanted_features;
  double timeout_s = 60;  // for each asynchronous answer
};

class WebGpuContext {
 public:
  // Throws kiln::Error(kUnsupported) naming the step when there is no adapter or device.
  WebGpuContext(const WebGpuApi& api, const ContextOptions& options);
  ~WebGpuContext();
  WebGpuContext(const WebGpuContext&) = delete;
  WebGpuContext& operator=(const WebGpuContext&) = delete;

  const WebGpuApi& api() const { return api_; }
  WGPUInstance instance() const { return instance_; }
  WGPUAdapter adapter() const { return adapter_; }
  WGPUDevice device() const { return device_; }
  WGPUQueue queue() const { return queue_; }
  const std::vector<WGPUFeatureName>& features() const { return features_; }
  const WGPULimits& adapter_limits() const { return adapter_limits_; }
  bool HasFeature(WGPUFeatureName feature) const;

  // Runs `body` inside validation, out-of-memory and internal error scopes; the errors it
  // raised, one per line ("" when none).
  std::string Catch(const std::function<void()>& body);

  // Errors raised outside any scope and the device's loss since the last call ("" when none).
  std::string TakeErrors();
  bool lost() const { return lost_; }

  // Processes events until `done` or the deadline; kiln::Error(kRuntime) "<what> did not
  // finish in N s" after it. With wgpu-native, first waits for the queue to drain.
  void Wait(const bool& done, const std::string& what);

 private:
  const WebGpuApi& api_;
  double timeout_s_;
  WGPUInstance instance_ = nullptr;
  WGPUAdapter adapter_ = nullptr;
  WGPUDevice device_ = nullptr;
  WGPUQueue queue_ = nullptr;
  std::vector<WGPUFeatureName> features_;
  WGPULimits adapter_limits_ = {};
  std::string errors_;
  bool lost_ = false;
};

}  // namespace kiln::runtime::webgpu
