// CudaBackend: the driver API and NVRTC behind GpuBackend.
#include "runtime/cuda/cuda_backend.h"

#include <algorithm>
#include <climits>
#include <cstring>

#include "runtime/cuda/cuda_device.h"
#include "runtime/cuda/cuda_driver.h"
#include "runtime/cuda/nvrtc.h"
#include "support/error.h"

namespace kiln::runtime::cuda {
namespace {

// cuFuncGetAttribute's attributes (CUfunction_attribute).
constexpr int kFuncMaxThreadsPerBlock = 0;
constexpr int kFuncNumRegs = 4;
// CU_EVENT_DEFAULT: events that record time (CU_EVENT_DISABLE_TIMING is 2).
constexpr unsigned kEventDefault = 0;

// The architecture to compile for: the device's own when this NVRTC knows it (a cubin), else
// the newest virtual architecture it has below the device's (PTX the driver compiles).
std::string CompileArch(const CudaDeviceInfo& info) {
  int device_arch = info.compute_major * 10 + info.compute_minor;
  std::vector<int> archs = NvrtcSupportedArchs();
  if (archs.empty() || std::count(archs.begin(), archs.end(), device_arch)) return info.Arch();
  int best = 0;
  for (int a : archs) {
    if (a <= device_arch) best = std::max(best, a);
  }
  KILN_CHECK(best > 0, ErrorKind::kUnsupported,
             "NVRTC " + NvrtcVersion() + " compiles for no architecture up to the device's " +
                 info.Arch());
  return "compute_" + std::to_string(best);
}

class CudaBackend : public gpu::GpuBackend {
 public:
  CudaBackend() : d_(GetCudaDriver()), info_(DiscoverCudaDevice(0)) {
    d_.Check(d_.DeviceGet(&device_, info_.ordinal), "cuDeviceGet");
    d_.Check(d_.DevicePrimaryCtxRetain(&context_, device_), "cuDevicePrimaryCtxRetain");
    d_.Check(d_.CtxSetCurrent(context_), "cuCtxSetCurrent");
    d_.Check(d_.EventCreate(&start_, kEventDefault), "cuEventCreate");
    d_.Check(d_.EventCreate(&end_, kEventDefault), "cuEventCreate");
  }

  ~CudaBackend() override {
    // Best effort: the runner process ends right after, and a failed device frees everything.
    for (CUdeviceptr p : buffers_) d_.MemFree(p);
    if (module_ != nullptr) d_.ModuleUnload(module_);
    d_.EventDestroy(start_);
    d_.EventDestroy(end_);
    d_.DevicePrimaryCtxRelease(device_);
  }

  gpu::DeviceDescription Describe() override {
    gpu::DeviceDescription d;
    d.kind = "cuda";
    d.name = info_.name;
    d.key = info_.key;
    d.driver_version = info_.driver_version;
    d.platform = "CUDA driver " + info_.driver_version + ", " + info_.Arch() + ", " +
                 std::to_string(info_.sm_count) + " SMs";
    d.limits = info_.limits;
    d.compute_units = info_.sm_count;
    // cuEventElapsedTime's resolution is about half a microsecond.
    d.timer_resolution_ns = 500;
    return d;
  }

  std::string Build(const std::string& source,
                    const std::vector<codegen::gpu::ConcreteLaunch>& kernels) override {
    std::string why;
    // No compiler is the machinery's fault, not the candidate's: an exception, not a result.
    KILN_CHECK(NvrtcAvailable(&why), ErrorKind::kUnsupported,
               "no CUDA toolkit: cannot load NVRTC (" + why + ")");
    NvrtcOptions options;
    options.arch = CompileArch(info_);
    NvrtcOutput out = CompileWithNvrtc(source, "kernel.cu", options);
    if (!out.ok) return "NVRTC (" + options.arch + "):\n" + out.log;
    const std::string& image = out.cubin.empty() ? out.ptx : out.cubin;
    CUresult loaded = d_.ModuleLoadData(&module_, image.data());
    if (loaded != kCudaSuccess) {
      module_ = nullptr;
      return "cuModuleLoadData: " + d_.Describe(loaded);
    }
    for (const codegen::gpu::ConcreteLaunch& k : kernels) {
      CUfunction f = nullptr;
      CUresult found = d_.ModuleGetFunction(&f, module_, k.symbol.c_str());
      if (found != kCudaSuccess) {
        return "cuModuleGetFunction(" + k.symbol + "): " + d_.Describe(found);
      }
      // A kernel that needs many registers per thread cannot start as many threads per block as
      // the device allows: a device limit, refused before the launch would fail.
      int max_threads = 0, registers = 0;
      d_.Check(d_.FuncGetAttribute(&max_threads, kFuncMaxThreadsPerBlock, f), "cuFuncGetAttribute");
      d_.Check(d_.FuncGetAttribute(&registers, kFuncNumRegs, f), "cuFuncGetAttribute");
      int64_t threads = k.block[0] * k.block[1] * k.block[2];
      if (threads > max_threads) {
        return "kernel " + k.symbol + " uses " + std::to_string(registers) +
               " registers per thread, which leaves at most " + std::to_string(max_threads) +
               " threads per block (the device's registers per block: " +
               std::to_string(info_.max_registers_per_block) + "); it is launched with " +
               std::to_string(threads) + " (" + codegen::gpu::DescribeLaunch(k) + ")";
      }
      for (int axis = 0; axis < 3; ++axis) {
        if (k.grid[axis] > info_.limits.max_grid_extent[axis] || k.grid[axis] > UINT_MAX) {
          return "kernel " + k.symbol + " is launched with " + std::to_string(k.grid[axis]) +
                 " blocks on axis " + std::to_string(axis) + "; the device's limit is " +
                 std::to_string(info_.limits.max_grid_extent[axis]);
        }
      }
      functions_.push_back(f);
    }
    kernels_ = kernels;
    return "";
  }

  int Allocate(size_t bytes) override {
    CUdeviceptr p = 0;
    d_.Check(d_.MemAlloc(&p, bytes), "cuMemAlloc(" + std::to_string(bytes) + " bytes)");
    buffers_.push_back(p);
    return static_cast<int>(buffers_.size() - 1);
  }

  void Upload(int buffer, const void* data, size_t bytes) override {
    d_.Check(d_.MemcpyHtoD(buffers_.at(buffer), data, bytes), "cuMemcpyHtoD");
  }

  void Download(int buffer, void* data, size_t bytes) override {
    d_.Check(d_.MemcpyDtoH(data, buffers_.at(buffer), bytes), "cuMemcpyDtoH");
  }

  double Run(const std::vector<gpu::GpuArg>& args, int n) override {
    // Every kernel parameter is 8 bytes: a device pointer, a long long or a double.
    std::vector<uint64_t> values(args.size());
    std::vector<void*> params(args.size());
    for (size_t i = 0; i < args.size(); ++i) {
      const gpu::GpuArg& a = args[i];
      switch (a.kind) {
        case gpu::GpuArgSpec::Kind::kBuffer:
          values[i] = buffers_.at(a.buffer);
          break;
        case gpu::GpuArgSpec::Kind::kInt: {
          long long v = a.int_value;
          std::memcpy(&values[i], &v, sizeof v);
          break;
        }
        case gpu::GpuArgSpec::Kind::kFloat: {
          double v = a.float_value;
          std::memcpy(&values[i], &v, sizeof v);
          break;
        }
      }
      params[i] = &values[i];
    }
    d_.Check(d_.EventRecord(start_, nullptr), "cuEventRecord");
    for (int rep = 0; rep < n; ++rep) {
      for (size_t k = 0; k < kernels_.size(); ++k) {
        const codegen::gpu::ConcreteLaunch& l = kernels_[k];
        CUresult launched =
            d_.LaunchKernel(functions_[k], static_cast<unsigned>(l.grid[0]),
                            static_cast<unsigned>(l.grid[1]), static_cast<unsigned>(l.grid[2]),
                            static_cast<unsigned>(l.block[0]), static_cast<unsigned>(l.block[1]),
                            static_cast<unsigned>(l.block[2]), 0, nullptr, params.data(), nullptr);
        d_.Check(launched,
                 "cuLaunchKernel(" + l.symbol + ", " + codegen::gpu::DescribeLaunch(l) + ")");
      }
    }
    d_.Check(d_.EventRecord(end_, nullptr), "cuEventRecord");
    // A kernel's own fault (an illegal address, a trap) surfaces here, after the launches.
    CUresult done = d_.EventSynchronize(end_);
    KILN_CHECK(done == kCudaSuccess, ErrorKind::kRuntime,
               "running kernels " + KernelNames() + " failed: " + d_.Describe(done));
    float ms = 0;
    d_.Check(d_.EventElapsedTime(&ms, start_, end_), "cuEventElapsedTime");
    return static_cast<double>(ms) * 1e-3;
  }

 private:
  std::string KernelNames() const {
    std::string names;
    for (const auto& k : kernels_) names += (names.empty() ? "" : ", ") + k.symbol;
    return names;
  }

  const CudaDriver& d_;
  CudaDeviceInfo info_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
  CUevent start_ = nullptr;
  CUevent end_ = nullptr;
  std::vector<CUdeviceptr> buffers_;
  std::vector<CUfunction> functions_;
  std::vector<codegen::gpu::ConcreteLaunch> kernels_;
};

}  // namespace

std::unique_ptr<gpu::GpuBackend> OpenCudaDevice() { return std::make_unique<CudaBackend>(); }

}  // namespace kiln::runtime::cuda
