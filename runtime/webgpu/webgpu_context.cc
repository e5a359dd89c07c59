// Opening a WebGPU device and catching its errors (webgpu_context.h).
#include "runtime/webgpu/webgpu_context.h"

#include <algorithm>
#include <chrono>
#include <thread>

#include "support/error.h"

namespace kiln::runtime::webgpu {
namespace {

struct AdapterAnswer {
  bool done = false;
  WGPUAdapter adapter = nullptr;
  std::string message;
};

struct DeviceAnswer {
  bool done = false;
  WGPUDevice device = nullptr;
  std::string message;
};

struct ScopeAnswer {
  bool done = false;
  std::string message;
};

const char* ErrorTypeName(WGPUErrorType type) {
  switch (type) {
    case WGPUErrorType_Validation:
      return "validation error";
    case WGPUErrorType_OutOfMemory:
      return "out of memory";
    case WGPUErrorType_Internal:
      return "internal error";
    default:
      return "error";
  }
}

}  // namespace

WebGpuContext::WebGpuContext(const WebGpuApi& api, const ContextOptions& options)
    : api_(api), timeout_s_(options.timeout_s) {
  instance_ = api_.CreateInstance(nullptr);
  KILN_CHECK(instance_ != nullptr, ErrorKind::kUnsupported,
             api_.name + ": wgpuCreateInstance failed");

  WGPURequestAdapterOptions adapter_options = {};
  adapter_options.featureLevel = WGPUFeatureLevel_Core;
  adapter_options.powerPreference = WGPUPowerPreference_HighPerformance;
  adapter_options.backendType = options.backend;
  AdapterAnswer adapter;
  WGPURequestAdapterCallbackInfo adapter_callback = {};
  adapter_callback.mode = WGPUCallbackMode_AllowProcessEvents;
  adapter_callback.callback = [](WGPURequestAdapterStatus status, WGPUAdapter a,
                                 WGPUStringView message, void* answer, void*) {
    auto* out = static_cast<AdapterAnswer*>(answer);
    out->done = true;
    if (status == WGPURequestAdapterStatus_Success) out->adapter = a;
    out->message = ToString(message);
  };
  adapter_callback.userdata1 = &adapter;
  // Dawn's 2025 build lays out its descriptors differently from wgpu-native's header (its
  // adapter options start with the surface; a descriptor read past our struct's end made some
  // devices compatibility-mode ones): it gets null descriptors, which mean "the defaults".
  api_.InstanceRequestAdapter(instance_, api_.native ? &adapter_options : nullptr,
                              adapter_callback);
  Wait(adapter.done, api_.name + ": the adapter request");
  KILN_CHECK(adapter.adapter != nullptr, ErrorKind::kUnsupported,
             api_.name + ": no WebGPU adapter: " + adapter.message);
  adapter_ = adapter.adapter;

  for (WGPUFeatureName f : options.wanted_features) {
    if (api_.AdapterHasFeature(adapter_, f)) features_.push_back(f);
  }
  WGPUDeviceDescriptor device_descriptor = {};
  device_descriptor.label = View("kiln");
  device_descriptor.requiredFeatureCount = features_.size();
  device_descriptor.requiredFeatures = features_.data();
  // Only asked where the header is the library's own: Dawn's WGPULimits may be larger.
  WGPULimits required;
  if (options.required_limits) {
    KILN_CHECK(api_.native, ErrorKind::kInternal, "explicit limits are for wgpu-native only");
    KILN_CHECK(api_.AdapterGetLimits(adapter_, &adapter_limits_) == WGPUStatus_Success,
               ErrorKind::kUnsupported, api_.name + ": the adapter has no limits to report");
    required = options.required_limits(adapter_limits_);
    device_descriptor.requiredLimits = &required;
  }
  device_descriptor.deviceLostCallbackInfo.mode = WGPUCallbackMode_AllowSpontaneous;
  device_descriptor.deviceLostCallbackInfo.callback =
      [](WGPUDevice const*, WGPUDeviceLostReason reason, WGPUStringView message, void* self,
         void*) {
        auto* context = static_cast<WebGpuContext*>(self);
        // Destroying the device on purpose is no fault.
        if (reason == WGPUDeviceLostReason_Destroyed ||
            reason == WGPUDeviceLostReason_CallbackCancelled) {
          return;
        }
        context->lost_ = true;
        context->errors_ += "device lost (reason " + std::to_string(static_cast<int>(reason)) +
                            "): " + ToString(message) + "\n";
      };
  device_descriptor.deviceLostCallbackInfo.userdata1 = this;
  device_descriptor.uncapturedErrorCallbackInfo.callback =
      [](WGPUDevice const*, WGPUErrorType type, WGPUStringView message, void* self, void*) {
        auto* context = static_cast<WebGpuContext*>(self);
        context->errors_ += std::string(ErrorTypeName(type)) + ": " + ToString(message) + "\n";
      };
  device_descriptor.uncapturedErrorCallbackInfo.userdata1 = this;
  DeviceAnswer device;
  WGPURequestDeviceCallbackInfo device_callback = {};
  device_callback.mode = WGPUCallbackMode_AllowProcessEvents;
  device_callback.callback = [](WGPURequestDeviceStatus status, WGPUDevice d,
                                WGPUStringView message, void* answer, void*) {
    auto* out = static_cast<DeviceAnswer*>(answer);
    out->done = true;
    if (status == WGPURequestDeviceStatus_Success) out->device = d;
    out->message = ToString(message);
  };
  device_callback.userdata1 = &device;
  api_.AdapterRequestDevice(adapter_, api_.native ? &device_descriptor : nullptr, device_callback);
  Wait(device.done, api_.name + ": the device request");
  KILN_CHECK(device.device != nullptr, ErrorKind::kUnsupported,
             api_.name + ": the adapter refused a device: " + device.message);
  device_ = device.device;
  queue_ = api_.DeviceGetQueue(device_);
}

WebGpuContext::~WebGpuContext() {
  if (queue_) api_.QueueRelease(queue_);
  if (device_) {
    api_.DeviceDestroy(device_);
    api_.DeviceRelease(device_);
  }
  if (adapter_) api_.AdapterRelease(adapter_);
  if (instance_) api_.InstanceRelease(instance_);
}

bool WebGpuContext::HasFeature(WGPUFeatureName feature) const {
  return std::find(features_.begin(), features_.end(), feature) != features_.end();
}

std::string WebGpuContext::Catch(const std::function<void()>& body) {
  // wgpu-native has no internal-error scope (it panics on the filter); its internal errors
  // reach the uncaptured-error callback (TakeErrors).
  const WGPUErrorFilter filters[] = {WGPUErrorFilter_Validation, WGPUErrorFilter_OutOfMemory};
  for (WGPUErrorFilter f : filters) api_.DevicePushErrorScope(device_, f);
  body();
  std::string errors;
  for (size_t i = 0; i < std::size(filters); ++i) {
    ScopeAnswer answer;
    WGPUPopErrorScopeCallbackInfo callback = {};
    callback.mode = WGPUCallbackMode_AllowProcessEvents;
    callback.callback = [](WGPUPopErrorScopeStatus status, WGPUErrorType type,
                           WGPUStringView message, void* out, void*) {
      auto* a = static_cast<ScopeAnswer*>(out);
      a->done = true;
      if (status == WGPUPopErrorScopeStatus_Success && type != WGPUErrorType_NoError) {
        a->message = std::string(ErrorTypeName(type)) + ": " + ToString(message);
      }
    };
    callback.userdata1 = &answer;
    api_.DevicePopErrorScope(device_, callback);
    Wait(answer.done, api_.name + ": an error scope");
    if (!answer.message.empty()) errors += (errors.empty() ? "" : "\n") + answer.message;
  }
  return errors;
}

std::string WebGpuContext::TakeErrors() {
  std::string errors;
  errors.swap(errors_);
  while (!errors.empty() && errors.back() == '\n') errors.pop_back();
  return errors;
}

void WebGpuContext::Wait(const bool& done, const std::string& what) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  if (!done && device_ != nullptr && api_.DevicePoll != nullptr) {
    api_.DevicePoll(device_, /*wait=*/true, nullptr);
  }
  std::chrono::microseconds pause(20);
  while (true) {
    api_.InstanceProcessEvents(instance_);
    if (done) return;
    if (device_ != nullptr && api_.DevicePoll != nullptr) api_.DevicePoll(device_, false, nullptr);
    if (std::chrono::steady_clock::now() > deadline) {
      throw Error(ErrorKind::kRuntime, what + " did not finish in " +
                                           std::to_string(static_cast<int>(timeout_s_)) + " s");
    }
    std::this_thread::sleep_for(pause);
    pause = std::min(pause * 2, std::chrono::microseconds(2000));
  }
}

}  // namespace kiln::runtime::webgpu
