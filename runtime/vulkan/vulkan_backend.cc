// VulkanBackend: GpuBackend over the Vulkan context, shaderc and the kernel runtime.
#include "runtime/vulkan/vulkan_backend.h"

#include <chrono>
#include <cstring>
#include <limits>

#include "codegen/vulkan/vulkan_abi.h"
#include "runtime/vulkan/spirv_cache.h"
#include "runtime/vulkan/vulkan_kernel.h"
#include "support/error.h"

namespace kiln::runtime::vulkan {
namespace {

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

class VulkanBackend : public gpu::GpuBackend {
 public:
  explicit VulkanBackend(int device_index) : context_(VulkanContext::Create(device_index)) {}

  gpu::DeviceDescription Describe() override { return DescribeForGpu(context_->info()); }

  std::string Build(const std::string& source,
                    const std::vector<codegen::gpu::ConcreteLaunch>& kernels) override {
    kernels_.clear();
    executable_.reset();
    for (const codegen::gpu::ConcreteLaunch& launch : kernels) {
      VulkanKernel kernel;
      kernel.name = launch.symbol;
      for (int d = 0; d < 3; ++d) {
        if (launch.grid[d] < 1 || launch.grid[d] > std::numeric_limits<uint32_t>::max() ||
            launch.block[d] < 1 || launch.block[d] > std::numeric_limits<uint32_t>::max()) {
          return "kernel " + launch.symbol + ": launch " + codegen::gpu::DescribeLaunch(launch) +
                 " is outside what Vulkan can dispatch";
        }
        kernel.groups[d] = static_cast<uint32_t>(launch.grid[d]);
        kernel.threads[d] = static_cast<uint32_t>(launch.block[d]);
      }
      std::string violation = LimitViolation(context_->info(), kernel);
      if (!violation.empty()) return violation;
      SpirvResult spirv = CompileGlslCached(source, launch.symbol + ".comp",
                                            {codegen::vulkan::EntryMacro(launch.symbol)});
      if (!spirv.ok) return "GLSL of kernel " + launch.symbol + " does not compile: " + spirv.error;
      kernel.spirv = std::move(spirv.words);
      kernels_.push_back(std::move(kernel));
    }
    return "";
  }

  int Allocate(size_t bytes) override {
    buffers_.push_back(std::make_unique<VulkanBuffer>(*context_, bytes));
    return static_cast<int>(buffers_.size()) - 1;
  }

  void Upload(int buffer, const void* data, size_t bytes) override {
    At(buffer).Upload(data, bytes);
  }

  void Download(int buffer, void* data, size_t bytes) override { At(buffer).Download(data, bytes); }

  double Run(const std::vector<gpu::GpuArg>& args, int n) override {
    if (!executable_ || !SameArgs(args, bound_args_)) Bind(args);
    if (context_->info().timestamps) return executable_->TimeRuns(n);
    auto start = std::chrono::steady_clock::now();
    executable_->Run(n);
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

 private:
  VulkanBuffer& At(int buffer) {
    KILN_CHECK(buffer >= 0 && buffer < static_cast<int>(buffers_.size()), ErrorKind::kInternal,
               "no Vulkan buffer " + std::to_string(buffer));
    return *buffers_[buffer];
  }

  // Pipelines, descriptor set and push constants for `args` (codegen/vulkan/vulkan_abi.h).
  void Bind(const std::vector<gpu::GpuArg>& args) {
    KILN_CHECK(!kernels_.empty(), ErrorKind::kInternal, "a Vulkan run before a build");
    std::vector<bool> is_buffer;
    for (const gpu::GpuArg& a : args) is_buffer.push_back(a.kind == gpu::GpuArgSpec::Kind::kBuffer);
    codegen::vulkan::VulkanArgLayout layout = codegen::vulkan::LayoutOf(is_buffer);
    std::vector<const VulkanBuffer*> bound;
    std::vector<uint8_t> push(layout.push_bytes, 0);
    for (size_t i = 0; i < args.size(); ++i) {
      const gpu::GpuArg& a = args[i];
      if (is_buffer[i]) {
        bound.push_back(&At(a.buffer));
        continue;
      }
      uint8_t* slot = push.data() + layout.push_offset[i];
      bool wide = codegen::vulkan::IsWidePushSlot(a.dtype);
      if (a.kind == gpu::GpuArgSpec::Kind::kFloat) {
        if (wide) {
          std::memcpy(slot, &a.float_value, 8);
        } else {
          float value = static_cast<float>(a.float_value);
          std::memcpy(slot, &value, 4);
        }
      } else if (wide) {
        std::memcpy(slot, &a.int_value, 8);
      } else {
        int32_t value = static_cast<int32_t>(a.int_value);
        std::memcpy(slot, &value, 4);
      }
    }
    executable_.reset();
    try {
      executable_ = std::make_unique<VulkanExecutable>(*context_, kernels_, bound, std::move(push));
    } catch (const Error& e) {
      // A limit the emitter could not know (this device's push-constant space): the
      // candidate's fault, reported like a driver's refusal.
      if (e.kind() != ErrorKind::kUnsupported) throw;
      throw Error(ErrorKind::kRuntime, e.what());
    }
    bound_args_ = args;
  }

  std::unique_ptr<VulkanContext> context_;
  std::vector<VulkanKernel> kernels_;
  std::vector<std::unique_ptr<VulkanBuffer>> buffers_;
  std::unique_ptr<VulkanExecutable> executable_;
  std::vector<gpu::GpuArg> bound_args_;
};

}  // namespace

gpu::DeviceDescription DescribeForGpu(const VulkanDeviceInfo& info) {
  gpu::DeviceDescription d;
  d.kind = "vulkan";
  d.name = info.name;
  d.key = info.key;
  d.driver_version = info.driver_info;
  d.platform = info.driver;
  d.timer_resolution_ns = info.timestamp_period_ns;
  codegen::gpu::GpuLimits& l = d.limits;
  l.max_threads_per_block = info.max_workgroup_invocations;
  for (int a = 0; a < 3; ++a) {
    l.max_block_extent[a] = info.max_workgroup_size[a];
    l.max_grid_extent[a] = info.max_workgroup_count[a];
  }
  l.max_shared_bytes = info.max_shared_memory_bytes;
  l.warp_size = info.subgroup_size;
  l.fp16 = info.shader_float16 && info.storage_16bit;
  l.fp64 = info.shader_float64;
  l.int64 = info.shader_int64;
  return d;
}

std::unique_ptr<gpu::GpuBackend> OpenVulkanDevice() {
  return std::make_unique<VulkanBackend>(DefaultVulkanDevice().index);
}

}  // namespace kiln::runtime::vulkan
