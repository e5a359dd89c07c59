// WebGpuBackend: GpuBackend over wgpu-native (webgpu_backend.h).
#include "runtime/webgpu/webgpu_backend.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "codegen/webgpu/webgpu_abi.h"
#include "runtime/webgpu/pipeline_constants.h"
#include "runtime/webgpu/webgpu_context.h"
#include "runtime/webgpu/workgroup_storage.h"
#include "support/error.h"

namespace kiln::runtime::webgpu {
namespace {

// A WebGPU buffer's size: copies and writes move multiples of 4 bytes.
uint64_t Padded(size_t bytes) { return (std::max<uint64_t>(bytes, 4) + 3) / 4 * 4; }

bool SameArgs(const std::vector<gpu::GpuArg>& a, const std::vector<gpu::GpuArg>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].kind != b[i].kind || a[i].buffer != b[i].buffer || a[i].dtype != b[i].dtype ||
        a[i].int_value != b[i].int_value || a[i].float_value != b[i].float_value) {
      return false;
    }
  }
  return true;
}

std::string BackendName(WGPUBackendType type) {
  switch (type) {
    case WGPUBackendType_Vulkan:
      return "vulkan";
    case WGPUBackendType_Metal:
      return "metal";
    case WGPUBackendType_D3D12:
      return "d3d12";
    case WGPUBackendType_OpenGL:
    case WGPUBackendType_OpenGLES:
      return "opengl";
    default:
      return "backend-" + std::to_string(static_cast<int>(type));
  }
}

std::string AdapterTypeName(WGPUAdapterType type) {
  switch (type) {
    case WGPUAdapterType_DiscreteGPU:
      return "discrete-gpu";
    case WGPUAdapterType_IntegratedGPU:
      return "integrated-gpu";
    case WGPUAdapterType_CPU:
      return "cpu";
    default:
      return "unknown";
  }
}

// Releases a handle of type T with the API's function at the end of a scope.
template <typename T>
struct Owned {
  T handle = nullptr;
  void (*release)(T) = nullptr;
  Owned() = default;
  Owned(T h, void (*r)(T)) : handle(h), release(r) {}
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Owned(Owned&& o) noexcept : handle(o.handle), release(o.release) { o.handle = nullptr; }
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      Reset();
      handle = o.handle;
      release = o.release;
      o.handle = nullptr;
    }
    return *this;
  }
  ~Owned() { Reset(); }
  void Reset() {
    if (handle != nullptr && release != nullptr) release(handle);
    handle = nullptr;
  }
};

struct Kernel {
  codegen::gpu::ConcreteLaunch launch;
  std::array<uint32_t, 3> dispatch = {1, 1, 1};
};

class WebGpuBackend : public gpu::GpuBackend {
 public:
  WebGpuBackend() : api_(LoadWgpuNative()) {
    policy_ = LimitsPolicyFromEnvironment();
    ContextOptions options;
    options.backend = WGPUBackendType_Vulkan;
    options.required_limits = [this](const WGPULimits& adapter) {
      return RequiredLimits(adapter, policy_);
    };
    options.wanted_features = {
        WGPUFeatureName_TimestampQuery,
        static_cast<WGPUFeatureName>(WGPUNativeFeature_TimestampQueryInsidePasses),
        WGPUFeatureName_ShaderF16, WGPUFeatureName_Subgroups};
    context_ = std::make_unique<WebGpuContext>(api_, options);
    ReadFacts();
    if (info_.timestamps) {
      WGPUQuerySetDescriptor queries = {};
      queries.label = View("kiln timestamps");
      queries.type = WGPUQueryType_Timestamp;
      queries.count = 2;
      query_set_ = {api_.DeviceCreateQuerySet(device(), &queries), api_.QuerySetRelease};
      resolve_ = MakeBuffer(16, WGPUBufferUsage_QueryResolve | WGPUBufferUsage_CopySrc);
      readback_ = MakeBuffer(16, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
    }
    std::string errors = context_->TakeErrors();
    KILN_CHECK(errors.empty(), ErrorKind::kUnsupported, "WebGPU device set-up failed: " + errors);
  }

  const WebGpuDeviceInfo& info() const { return info_; }

  gpu::DeviceDescription Describe() override { return DescribeForGpu(info_); }

  std::string Build(const std::string& source,
                    const std::vector<codegen::gpu::ConcreteLaunch>& kernels) override {
    kernels_.clear();
    pipelines_.clear();
    module_.Reset();
    bound_ = false;
    const WGPULimits& l = info_.limits;
    for (const codegen::gpu::ConcreteLaunch& launch : kernels) {
      Kernel kernel;
      kernel.launch = launch;
      std::string violation = LimitViolation(source, launch);
      if (!violation.empty()) return violation;
      try {
        kernel.dispatch = codegen::webgpu::DispatchOf(launch, l.maxComputeWorkgroupsPerDimension);
      } catch (const Error& e) {
        return e.what();
      }
      kernels_.push_back(std::move(kernel));
    }
    source_ = source;
    WGPUShaderSourceWGSL wgsl = {};
    wgsl.chain.sType = WGPUSType_ShaderSourceWGSL;
    wgsl.code = View(source_);
    WGPUShaderModuleDescriptor descriptor = {};
    descriptor.nextInChain = &wgsl.chain;
    descriptor.label = View("kiln");
    WGPUShaderModule module = nullptr;
    std::string errors =
        context_->Catch([&] { module = api_.DeviceCreateShaderModule(device(), &descriptor); });
    module_ = {module, api_.ShaderModuleRelease};
    if (!errors.empty()) return "WGSL does not compile (naga): " + errors;
    return "";
  }

  int Allocate(size_t bytes) override {
    std::string errors = context_->Catch([&] {
      buffers_.push_back(MakeBuffer(Padded(bytes), WGPUBufferUsage_Storage |
                                                       WGPUBufferUsage_CopyDst |
                                                       WGPUBufferUsage_CopySrc));
    });
    if (!errors.empty()) {
      throw Error(ErrorKind::kRuntime,
                  "WebGPU buffer of " + std::to_string(bytes) + " bytes: " + errors);
    }
    sizes_.push_back(Padded(bytes));
    return static_cast<int>(buffers_.size()) - 1;
  }

  void Upload(int buffer, const void* data, size_t bytes) override {
    std::vector<uint8_t> padded(Padded(bytes), 0);
    std::memcpy(padded.data(), data, bytes);
    api_.QueueWriteBuffer(queue(), At(buffer), 0, padded.data(), padded.size());
  }

  void Download(int buffer, void* data, size_t bytes) override {
    ReadBack(At(buffer), Padded(bytes), data, bytes,
             "download of buffer " + std::to_string(buffer));
  }

  double Run(const std::vector<gpu::GpuArg>& args, int n) override {
    KILN_CHECK(module_.handle != nullptr, ErrorKind::kInternal, "a WebGPU run before a build");
    if (!bound_ || !SameArgs(args, bound_args_)) Bind(args);
    std::string names = KernelNames();
    std::chrono::steady_clock::time_point start;
    std::string errors = context_->Catch([&] {
      Owned<WGPUCommandEncoder> encoder(api_.DeviceCreateCommandEncoder(device(), nullptr),
                                        api_.CommandEncoderRelease);
      WGPUPassTimestampWrites pass_timestamps = {};
      pass_timestamps.querySet = query_set_.handle;
      pass_timestamps.beginningOfPassWriteIndex = 0;
      pass_timestamps.endOfPassWriteIndex = 1;
      WGPUComputePassDescriptor pass_descriptor = {};
      pass_descriptor.label = View("kiln run");
      bool inside = info_.timestamps_inside_passes;
      if (info_.timestamps && !inside) pass_descriptor.timestampWrites = &pass_timestamps;
      Owned<WGPUComputePassEncoder> pass(
          api_.CommandEncoderBeginComputePass(encoder.handle, &pass_descriptor),
          api_.ComputePassEncoderRelease);
      if (inside) api_.ComputePassEncoderWriteTimestamp(pass.handle, query_set_.handle, 0);
      for (int r = 0; r < n; ++r) {
        for (size_t k = 0; k < kernels_.size(); ++k) {
          api_.ComputePassEncoderSetPipeline(pass.handle, pipelines_[k].handle);
          api_.ComputePassEncoderSetBindGroup(pass.handle, 0, bind_group_.handle, 0, nullptr);
          const std::array<uint32_t, 3>& d = kernels_[k].dispatch;
          api_.ComputePassEncoderDispatchWorkgroups(pass.handle, d[0], d[1], d[2]);
        }
      }
      if (inside) api_.ComputePassEncoderWriteTimestamp(pass.handle, query_set_.handle, 1);
      api_.ComputePassEncoderEnd(pass.handle);
      if (info_.timestamps) {
        api_.CommandEncoderResolveQuerySet(encoder.handle, query_set_.handle, 0, 2, resolve_.handle,
                                           0);
      }
      Owned<WGPUCommandBuffer> commands(api_.CommandEncoderFinish(encoder.handle, nullptr),
                                        api_.CommandBufferRelease);
      start = std::chrono::steady_clock::now();
      api_.QueueSubmit(queue(), 1, &commands.handle);
    });
    CheckDevice(errors, names);
    bool drained = false;
    WGPUQueueWorkDoneCallbackInfo done = {};
    done.mode = WGPUCallbackMode_AllowProcessEvents;
    done.callback = [](WGPUQueueWorkDoneStatus, WGPUStringView, void* flag, void*) {
      *static_cast<bool*>(flag) = true;
    };
    done.userdata1 = &drained;
    api_.QueueOnSubmittedWorkDone(queue(), done);
    context_->Wait(drained, "WebGPU run of " + names);
    double host_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    CheckDevice(context_->TakeErrors(), names);
    if (!info_.timestamps) return host_seconds;
    uint64_t ticks[2] = {0, 0};
    ReadBack(resolve_.handle, 16, ticks, sizeof(ticks), "timestamps of " + names);
    KILN_CHECK(ticks[1] >= ticks[0], ErrorKind::kRuntime,
               "WebGPU run of " + names + ": timestamps go backwards (" + std::to_string(ticks[0]) +
                   ", " + std::to_string(ticks[1]) + ")");
    return static_cast<double>(ticks[1] - ticks[0]) * info_.timestamp_period_ns * 1e-9;
  }

 private:
  WGPUDevice device() const { return context_->device(); }
  WGPUQueue queue() const { return context_->queue(); }

  void ReadFacts() {
    WGPUAdapterInfo adapter = {};
    KILN_CHECK(api_.AdapterGetInfo(context_->adapter(), &adapter) == WGPUStatus_Success,
               ErrorKind::kUnsupported, "WebGPU: the adapter has no info to report");
    info_.vendor = ToString(adapter.vendor);
    info_.architecture = ToString(adapter.architecture);
    info_.device = ToString(adapter.device);
    info_.description = ToString(adapter.description);
    info_.backend = BackendName(adapter.backendType);
    info_.adapter_type = AdapterTypeName(adapter.adapterType);
    info_.vendor_id = adapter.vendorID;
    info_.device_id = adapter.deviceID;
    info_.subgroup_min_size = adapter.subgroupMinSize;
    info_.subgroup_max_size = adapter.subgroupMaxSize;
    api_.AdapterInfoFreeMembers(adapter);
    info_.library = api_.name;
    info_.policy = policy_;
    info_.adapter_limits = context_->adapter_limits();
    KILN_CHECK(api_.DeviceGetLimits(device(), &info_.limits) == WGPUStatus_Success,
               ErrorKind::kUnsupported, "WebGPU: the device has no limits to report");
    info_.limits.nextInChain = nullptr;
    for (WGPUFeatureName f : context_->features()) info_.features.push_back(FeatureName(f));
    info_.timestamps = context_->HasFeature(WGPUFeatureName_TimestampQuery);
    info_.timestamps_inside_passes =
        info_.timestamps && context_->HasFeature(static_cast<WGPUFeatureName>(
                                WGPUNativeFeature_TimestampQueryInsidePasses));
    info_.shader_f16 = context_->HasFeature(WGPUFeatureName_ShaderF16);
    // KILN_WEBGPU_TIMER=pass or host: the timing of an adapter with fewer timestamp features,
    // for testing those paths on one that has them all.
    const char* timer = std::getenv("KILN_WEBGPU_TIMER");
    if (timer != nullptr && std::string(timer) == "pass") info_.timestamps_inside_passes = false;
    if (timer != nullptr && std::string(timer) == "host") {
      info_.timestamps = info_.timestamps_inside_passes = false;
    }
    info_.timestamp_period_ns = info_.timestamps ? api_.QueueGetTimestampPeriod(queue()) : 0;
    info_.key = WebGpuDeviceKey(info_.device.empty() ? info_.description : info_.device, policy_);
  }

  // What of `launch` the device's limits refuse ("" when it fits): wgpu-native takes an
  // overridden workgroup size or workgroup storage past the limits without a word.
  std::string LimitViolation(const std::string& source,
                             const codegen::gpu::ConcreteLaunch& launch) {
    const WGPULimits& l = info_.limits;
    const uint32_t sizes[3] = {l.maxComputeWorkgroupSizeX, l.maxComputeWorkgroupSizeY,
                               l.maxComputeWorkgroupSizeZ};
    const char* axes[3] = {"X", "Y", "Z"};
    std::string what =
        "kernel " + launch.symbol + ": launch " + codegen::gpu::DescribeLaunch(launch);
    int64_t invocations = 1;
    for (int d = 0; d < 3; ++d) {
      if (launch.block[d] < 1 || launch.grid[d] < 1) return what + " is empty";
      if (launch.block[d] > sizes[d]) {
        return what + " is past the device's maxComputeWorkgroupSize" + axes[d] + " limit " +
               std::to_string(sizes[d]);
      }
      invocations *= launch.block[d];
    }
    if (invocations > l.maxComputeInvocationsPerWorkgroup) {
      return what + ": " + std::to_string(invocations) +
             " invocations per workgroup are past the device's "
             "maxComputeInvocationsPerWorkgroup limit " +
             std::to_string(l.maxComputeInvocationsPerWorkgroup);
    }
    WorkgroupStorage storage = WorkgroupStorageOf(source, launch.symbol);
    if (storage.bytes > l.maxComputeWorkgroupStorageSize) {
      return "kernel " + launch.symbol + ": " + std::to_string(storage.bytes) +
             " bytes of workgroup storage are past the device's "
             "maxComputeWorkgroupStorageSize limit " +
             std::to_string(l.maxComputeWorkgroupStorageSize);
    }
    return "";
  }

  Owned<WGPUBuffer> MakeBuffer(uint64_t bytes, WGPUBufferUsage usage) {
    WGPUBufferDescriptor descriptor = {};
    descriptor.usage = usage;
    descriptor.size = bytes;
    return {api_.DeviceCreateBuffer(device(), &descriptor), api_.BufferRelease};
  }

  WGPUBuffer At(int buffer) const {
    KILN_CHECK(buffer >= 0 && buffer < static_cast<int>(buffers_.size()), ErrorKind::kInternal,
               "no WebGPU buffer " + std::to_string(buffer));
    return buffers_[buffer].handle;
  }

  std::string KernelNames() const {
    std::string names = kernels_.size() == 1 ? "kernel " : "kernels ";
    for (size_t k = 0; k < kernels_.size(); ++k) {
      names += (k ? ", " : "") + kernels_[k].launch.symbol;
    }
    return names;
  }

  void CheckDevice(const std::string& errors, const std::string& names) {
    if (context_->lost()) {
      throw Error(ErrorKind::kRuntime, "WebGPU device lost in the run of " + names + ": " + errors +
                                           context_->TakeErrors());
    }
    if (!errors.empty()) {
      throw Error(ErrorKind::kRuntime, "WebGPU run of " + names + ": " + errors);
    }
  }

  // Copies `padded` bytes of `source` through a mappable buffer into `out` (`bytes` of them).
  void ReadBack(WGPUBuffer source, uint64_t padded, void* out, size_t bytes,
                const std::string& what) {
    Owned<WGPUBuffer> staging;
    if (source == resolve_.handle) {
      staging.handle = readback_.handle;  // not owned: reused for every run's timestamps
    } else {
      staging = MakeBuffer(padded, WGPUBufferUsage_MapRead | WGPUBufferUsage_CopyDst);
    }
    WGPUBuffer target = staging.handle;
    std::string errors = context_->Catch([&] {
      Owned<WGPUCommandEncoder> encoder(api_.DeviceCreateCommandEncoder(device(), nullptr),
                                        api_.CommandEncoderRelease);
      api_.CommandEncoderCopyBufferToBuffer(encoder.handle, source, 0, target, 0, padded);
      Owned<WGPUCommandBuffer> commands(api_.CommandEncoderFinish(encoder.handle, nullptr),
                                        api_.CommandBufferRelease);
      api_.QueueSubmit(queue(), 1, &commands.handle);
    });
    CheckDevice(errors, what);
    struct Mapped {
      bool done = false;
      WGPUMapAsyncStatus status = WGPUMapAsyncStatus_Error;
      std::string message;
    } mapped;
    WGPUBufferMapCallbackInfo callback = {};
    callback.mode = WGPUCallbackMode_AllowProcessEvents;
    callback.callback = [](WGPUMapAsyncStatus status, WGPUStringView message, void* out, void*) {
      auto* m = static_cast<Mapped*>(out);
      m->done = true;
      m->status = status;
      m->message = ToString(message);
    };
    callback.userdata1 = &mapped;
    api_.BufferMapAsync(target, WGPUMapMode_Read, 0, padded, callback);
    context_->Wait(mapped.done, "WebGPU " + what);
    CheckDevice(context_->TakeErrors(), what);
    KILN_CHECK(mapped.status == WGPUMapAsyncStatus_Success, ErrorKind::kRuntime,
               "WebGPU " + what + ": mapping failed: " + mapped.message);
    const void* data = api_.BufferGetConstMappedRange(target, 0, padded);
    KILN_CHECK(data != nullptr, ErrorKind::kRuntime, "WebGPU " + what + ": no mapped range");
    std::memcpy(out, data, bytes);
    api_.BufferUnmap(target);
    if (source == resolve_.handle) staging.handle = nullptr;
  }

  // The bind group layout, pipelines, uniform and bind group for `args`
  // (codegen/webgpu/webgpu_abi.h).
  void Bind(const std::vector<gpu::GpuArg>& args) {
    bound_ = false;
    pipelines_.clear();
    bind_group_.Reset();
    std::vector<bool> is_buffer;
    for (const gpu::GpuArg& a : args) is_buffer.push_back(a.kind == gpu::GpuArgSpec::Kind::kBuffer);
    codegen::webgpu::WebGpuArgLayout layout = codegen::webgpu::LayoutOf(is_buffer);
    if (layout.num_buffers > static_cast<int>(info_.limits.maxStorageBuffersPerShaderStage)) {
      throw Error(ErrorKind::kRuntime,
                  KernelNames() + ": " + std::to_string(layout.num_buffers) +
                      " storage buffers are past the device's maxStorageBuffersPerShaderStage "
                      "limit " +
                      std::to_string(info_.limits.maxStorageBuffersPerShaderStage));
    }
    std::vector<uint8_t> uniform(layout.uniform_bytes, 0);
    for (size_t i = 0; i < args.size(); ++i) {
      if (is_buffer[i]) continue;
      const gpu::GpuArg& a = args[i];
      uint8_t* slot = uniform.data() + layout.uniform_offset[i];
      if (a.kind == gpu::GpuArgSpec::Kind::kFloat) {
        float value = static_cast<float>(a.float_value);
        std::memcpy(slot, &value, 4);
      } else if (a.dtype.is_uint() || a.dtype.is_bool()) {
        KILN_CHECK(a.int_value >= 0 && a.int_value <= std::numeric_limits<uint32_t>::max(),
                   ErrorKind::kRuntime,
                   KernelNames() + ": argument " + std::to_string(i) + " (" +
                       std::to_string(a.int_value) +
                       ") does not fit the u32 of its uniform member");
        uint32_t value = static_cast<uint32_t>(a.int_value);
        std::memcpy(slot, &value, 4);
      } else {
        KILN_CHECK(a.int_value >= std::numeric_limits<int32_t>::min() &&
                       a.int_value <= std::numeric_limits<int32_t>::max(),
                   ErrorKind::kRuntime,
                   KernelNames() + ": argument " + std::to_string(i) + " (" +
                       std::to_string(a.int_value) +
                       ") does not fit the i32 of its uniform member (WGSL has no 64-bit "
                       "integers)");
        int32_t value = static_cast<int32_t>(a.int_value);
        std::memcpy(slot, &value, 4);
      }
    }

    std::string names = KernelNames();
    std::string errors = context_->Catch([&] {
      std::vector<WGPUBindGroupLayoutEntry> entries;
      std::vector<WGPUBindGroupEntry> bindings;
      for (size_t i = 0; i < args.size(); ++i) {
        if (!is_buffer[i]) continue;
        WGPUBindGroupLayoutEntry entry = {};
        entry.binding = static_cast<uint32_t>(layout.binding[i]);
        entry.visibility = WGPUShaderStage_Compute;
        entry.buffer.type = WGPUBufferBindingType_Storage;
        entries.push_back(entry);
        WGPUBindGroupEntry binding = {};
        binding.binding = entry.binding;
        binding.buffer = At(args[i].buffer);
        binding.size = sizes_.at(args[i].buffer);
        bindings.push_back(binding);
      }
      if (layout.uniform_binding >= 0) {
        uniform_ =
            MakeBuffer(layout.uniform_bytes, WGPUBufferUsage_Uniform | WGPUBufferUsage_CopyDst);
        api_.QueueWriteBuffer(queue(), uniform_.handle, 0, uniform.data(), uniform.size());
        WGPUBindGroupLayoutEntry entry = {};
        entry.binding = static_cast<uint32_t>(layout.uniform_binding);
        entry.visibility = WGPUShaderStage_Compute;
        entry.buffer.type = WGPUBufferBindingType_Uniform;
        entries.push_back(entry);
        WGPUBindGroupEntry binding = {};
        binding.binding = entry.binding;
        binding.buffer = uniform_.handle;
        binding.size = layout.uniform_bytes;
        bindings.push_back(binding);
      }
      WGPUBindGroupLayoutDescriptor layout_descriptor = {};
      layout_descriptor.label = View("kiln arguments");
      layout_descriptor.entryCount = entries.size();
      layout_descriptor.entries = entries.data();
      bind_group_layout_ = {api_.DeviceCreateBindGroupLayout(device(), &layout_descriptor),
                            api_.BindGroupLayoutRelease};
      WGPUPipelineLayoutDescriptor pipeline_layout_descriptor = {};
      pipeline_layout_descriptor.bindGroupLayoutCount = 1;
      pipeline_layout_descriptor.bindGroupLayouts = &bind_group_layout_.handle;
      pipeline_layout_ = {api_.DeviceCreatePipelineLayout(device(), &pipeline_layout_descriptor),
                          api_.PipelineLayoutRelease};
      WGPUBindGroupDescriptor group_descriptor = {};
      group_descriptor.layout = bind_group_layout_.handle;
      group_descriptor.entryCount = bindings.size();
      group_descriptor.entries = bindings.data();
      bind_group_ = {api_.DeviceCreateBindGroup(device(), &group_descriptor),
                     api_.BindGroupRelease};
    });
    if (!errors.empty()) throw Error(ErrorKind::kRuntime, names + ": arguments: " + errors);

    for (const Kernel& kernel : kernels_) {
      std::vector<std::pair<std::string, double>> values =
          PipelineConstants(source_, kernel.launch);
      std::vector<WGPUConstantEntry> constants;
      for (const auto& [name, value] : values) constants.push_back({nullptr, View(name), value});
      WGPUComputePipelineDescriptor descriptor = {};
      descriptor.label = View(kernel.launch.symbol);
      descriptor.layout = pipeline_layout_.handle;
      descriptor.compute.module = module_.handle;
      descriptor.compute.entryPoint = View(kernel.launch.symbol);
      descriptor.compute.constantCount = constants.size();
      descriptor.compute.constants = constants.data();
      WGPUComputePipeline pipeline = nullptr;
      std::string pipeline_errors = context_->Catch(
          [&] { pipeline = api_.DeviceCreateComputePipeline(device(), &descriptor); });
      pipelines_.emplace_back(pipeline, api_.ComputePipelineRelease);
      if (!pipeline_errors.empty()) {
        throw Error(ErrorKind::kRuntime,
                    "kernel " + kernel.launch.symbol + ": pipeline: " + pipeline_errors);
      }
    }
    bound_args_ = args;
    bound_ = true;
  }

  const WebGpuApi& api_;
  LimitsPolicy policy_ = LimitsPolicy::kWebGpuDefaults;
  std::unique_ptr<WebGpuContext> context_;
  WebGpuDeviceInfo info_;
  Owned<WGPUQuerySet> query_set_;
  Owned<WGPUBuffer> resolve_, readback_;
  std::string source_;
  Owned<WGPUShaderModule> module_;
  std::vector<Kernel> kernels_;
  std::vector<Owned<WGPUBuffer>> buffers_;
  std::vector<uint64_t> sizes_;
  Owned<WGPUBuffer> uniform_;
  Owned<WGPUBindGroupLayout> bind_group_layout_;
  Owned<WGPUPipelineLayout> pipeline_layout_;
  Owned<WGPUBindGroup> bind_group_;
  std::vector<Owned<WGPUComputePipeline>> pipelines_;
  std::vector<gpu::GpuArg> bound_args_;
  bool bound_ = false;
};

}  // namespace

std::unique_ptr<gpu::GpuBackend> OpenWebGpuDevice(WebGpuDeviceInfo* info) {
  auto backend = std::make_unique<WebGpuBackend>();
  if (info != nullptr) *info = backend->info();
  return backend;
}

}  // namespace kiln::runtime::webgpu
