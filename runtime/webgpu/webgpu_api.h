// A webgpu.h implementation loaded with dlopen: wgpu-native (the runner's, with naga) or Dawn
// (Chrome's, with Tint; only for validating WGSL). Both speak the same webgpu.h (the one that
// ships with wgpu-native: WGPUStringView, callback-info structs, futures), so one table of
// function pointers serves both; the wgpu-native extensions (wgpu.h: its version, DevicePoll,
// timestamps inside passes) are null in Dawn. The build never links either library, so Kiln's
// binaries start where they are missing and say so.
#pragma once

#include <webgpu.h>
#include <wgpu.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace kiln::runtime::webgpu {

// The webgpu.h functions Kiln calls: X(name without the wgpu prefix).
// clang-format off
#define KILN_WEBGPU_FUNCTIONS(X) \
  X(CreateInstance) X(InstanceRequestAdapter) X(InstanceProcessEvents) X(InstanceRelease) \
  X(AdapterGetInfo) X(AdapterInfoFreeMembers) X(AdapterGetLimits) X(AdapterGetFeatures) \
  X(SupportedFeaturesFreeMembers) X(AdapterHasFeature) X(AdapterRequestDevice) \
  X(AdapterRelease) X(DeviceGetQueue) X(DeviceCreateShaderModule) \
  X(DeviceCreateComputePipeline) X(DeviceCreateBindGroupLayout) X(DeviceCreatePipelineLayout) \
  X(DeviceCreateBindGroup) X(DeviceCreateBuffer) X(DeviceCreateCommandEncoder) \
  X(DeviceCreateQuerySet) X(DevicePushErrorScope) X(DevicePopErrorScope) X(DeviceGetLimits) \
  X(DeviceRelease) X(DeviceDestroy) X(ShaderModuleGetCompilationInfo) X(ShaderModuleRelease) \
  X(ComputePipelineRelease) X(BindGroupLayoutRelease) X(PipelineLayoutRelease) \
  X(BindGroupRelease) X(BufferMapAsync) X(BufferGetConstMappedRange) X(BufferUnmap) \
  X(BufferRelease) X(BufferDestroy) X(QueueWriteBuffer) X(QueueSubmit) X(QueueRelease) \
  X(QueueOnSubmittedWorkDone) X(CommandEncoderBeginComputePass) \
  X(CommandEncoderCopyBufferToBuffer) X(CommandEncoderResolveQuerySet) \
  X(CommandEncoderFinish) X(CommandEncoderRelease) X(CommandBufferRelease) \
  X(ComputePassEncoderSetPipeline) X(ComputePassEncoderSetBindGroup) \
  X(ComputePassEncoderDispatchWorkgroups) X(ComputePassEncoderEnd) \
  X(ComputePassEncoderRelease) X(QuerySetRelease) X(QuerySetDestroy)

// wgpu-native's own (wgpu.h); absent from Dawn.
#define KILN_WGPU_NATIVE_FUNCTIONS(X) \
  X(GetVersion) X(DevicePoll) X(ComputePassEncoderWriteTimestamp) X(QueueGetTimestampPeriod)
// clang-format on

struct WebGpuApi {
  std::string library;   // the file it came from
  std::string name;      // "wgpu-native 29.0.1.1", "Dawn"
  bool native = false;   // wgpu-native (its extensions are resolved)
  uint32_t version = 0;  // wgpuGetVersion(): 0xMMmmppbb; 0 for Dawn
#define KILN_WEBGPU_POINTER(f) decltype(&wgpu##f) f = nullptr;
  KILN_WEBGPU_FUNCTIONS(KILN_WEBGPU_POINTER)
  KILN_WGPU_NATIVE_FUNCTIONS(KILN_WEBGPU_POINTER)
#undef KILN_WEBGPU_POINTER
};

// The wgpu-native release the runner is built and tested against (deploy/install-deps.sh).
inline constexpr uint32_t kPinnedWgpuNativeVersion = (29u << 24) | (0u << 16) | (1u << 8) | 1u;

// "29.0.1.1".
std::string VersionString(uint32_t version);

// wgpu-native from KILN_WGPU_NATIVE (a file), else the build's copy. Throws
// kiln::Error(kUnsupported) "no wgpu-native: ..." when it does not load or lacks a function,
// and when its wgpuGetVersion is not kPinnedWgpuNativeVersion (naming both versions).
const WebGpuApi& LoadWgpuNative();

// Dawn's library from KILN_DAWN_LIBRARY, else the build's copy; kiln::Error(kUnsupported)
// "no Dawn: ..." when it does not load.
const WebGpuApi& LoadDawn();

// webgpu.h's string views.
inline WGPUStringView View(std::string_view s) { return {s.data(), s.size()}; }
std::string ToString(WGPUStringView view);

}  // namespace kiln::runtime::webgpu
