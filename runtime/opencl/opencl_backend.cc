// OpenCLBackend: the OpenCL 1.2 host API behind GpuBackend.
#define CL_TARGET_OPENCL_VERSION 120
#include "runtime/opencl/opencl_backend.h"

#include <CL/cl.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "support/error.h"

namespace kiln::runtime::opencl {
namespace {

std::string CodeName(cl_int code) {
  switch (code) {
    case CL_OUT_OF_RESOURCES:
      return "CL_OUT_OF_RESOURCES";
    case CL_OUT_OF_HOST_MEMORY:
      return "CL_OUT_OF_HOST_MEMORY";
    case CL_INVALID_WORK_GROUP_SIZE:
      return "CL_INVALID_WORK_GROUP_SIZE";
    case CL_INVALID_KERNEL_ARGS:
      return "CL_INVALID_KERNEL_ARGS";
    case CL_INVALID_ARG_SIZE:
      return "CL_INVALID_ARG_SIZE";
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
      return "CL_MEM_OBJECT_ALLOCATION_FAILURE";
    case CL_INVALID_BUFFER_SIZE:
      return "CL_INVALID_BUFFER_SIZE";
    case CL_BUILD_PROGRAM_FAILURE:
      return "CL_BUILD_PROGRAM_FAILURE";
    case CL_INVALID_KERNEL_NAME:
      return "CL_INVALID_KERNEL_NAME";
    case CL_DEVICE_NOT_FOUND:
      return "CL_DEVICE_NOT_FOUND";
    case -1001:  // CL_PLATFORM_NOT_FOUND_KHR, from the ICD extension header
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "OpenCL error " + std::to_string(code);
  }
}

void Check(cl_int code, const std::string& what, ErrorKind kind = ErrorKind::kRuntime) {
  KILN_CHECK(code == CL_SUCCESS, kind, what + ": " + CodeName(code));
}

std::string DeviceString(cl_device_id device, cl_device_info info) {
  size_t size = 0;
  if (clGetDeviceInfo(device, info, 0, nullptr, &size) != CL_SUCCESS || size == 0) return "";
  std::string s(size, '\0');
  clGetDeviceInfo(device, info, size, s.data(), nullptr);
  while (!s.empty() && (s.back() == '\0' || s.back() == ' ')) s.pop_back();
  return s;
}

template <typename T>
T DeviceValue(cl_device_id device, cl_device_info info) {
  T value{};
  clGetDeviceInfo(device, info, sizeof value, &value, nullptr);
  return value;
}

class OpenCLBackend : public gpu::GpuBackend {
 public:
  OpenCLBackend() {
    cl_uint num_platforms = 0;
    cl_int code = clGetPlatformIDs(0, nullptr, &num_platforms);
    KILN_CHECK(code == CL_SUCCESS && num_platforms > 0, ErrorKind::kUnsupported,
               "no OpenCL platform (" + CodeName(code) +
                   "): install an OpenCL driver (PoCL: pocl-opencl-icd)");
    std::vector<cl_platform_id> platforms(num_platforms);
    clGetPlatformIDs(num_platforms, platforms.data(), nullptr);
    // A GPU on any platform first, then any device.
    for (cl_device_type type :
         {cl_device_type(CL_DEVICE_TYPE_GPU), cl_device_type(CL_DEVICE_TYPE_ALL)}) {
      for (cl_platform_id p : platforms) {
        cl_uint n = 0;
        if (clGetDeviceIDs(p, type, 1, &device_, &n) == CL_SUCCESS && n > 0) {
          platform_ = p;
          break;
        }
      }
      if (platform_ != nullptr) break;
    }
    KILN_CHECK(platform_ != nullptr, ErrorKind::kUnsupported,
               "no OpenCL device on any of " + std::to_string(num_platforms) + " platforms");
    context_ = clCreateContext(nullptr, 1, &device_, nullptr, nullptr, &code);
    Check(code, "clCreateContext", ErrorKind::kUnsupported);
    queue_ = clCreateCommandQueue(context_, device_, CL_QUEUE_PROFILING_ENABLE, &code);
    Check(code, "clCreateCommandQueue", ErrorKind::kUnsupported);
  }

  ~OpenCLBackend() override {
    for (cl_kernel k : kernels_) clReleaseKernel(k);
    if (program_) clReleaseProgram(program_);
    for (cl_mem m : buffers_) clReleaseMemObject(m);
    if (queue_) clReleaseCommandQueue(queue_);
    if (context_) clReleaseContext(context_);
  }

  gpu::DeviceDescription Describe() override {
    gpu::DeviceDescription d;
    d.kind = "opencl";
    d.name = DeviceString(device_, CL_DEVICE_NAME);
    size_t size = 0;
    clGetPlatformInfo(platform_, CL_PLATFORM_NAME, 0, nullptr, &size);
    std::string platform(size, '\0');
    clGetPlatformInfo(platform_, CL_PLATFORM_NAME, size, platform.data(), nullptr);
    while (!platform.empty() && platform.back() == '\0') platform.pop_back();
    d.platform = platform;
    d.driver_version = DeviceString(device_, CL_DRIVER_VERSION);
    bool pocl = platform.find("Portable Computing Language") != std::string::npos;
    d.key = gpu::DeviceKey("opencl", pocl ? "pocl" : d.name);
    d.compute_units = static_cast<int>(DeviceValue<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS));
    d.timer_resolution_ns =
        static_cast<double>(DeviceValue<size_t>(device_, CL_DEVICE_PROFILING_TIMER_RESOLUTION));
    codegen::gpu::GpuLimits& l = d.limits;
    l.max_threads_per_block =
        static_cast<int64_t>(DeviceValue<size_t>(device_, CL_DEVICE_MAX_WORK_GROUP_SIZE));
    size_t items[3] = {1, 1, 1};
    clGetDeviceInfo(device_, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof items, items, nullptr);
    for (int a = 0; a < 3; ++a) {
      l.max_block_extent[a] = static_cast<int64_t>(items[a]);
      // OpenCL bounds a launch by size_t only; Kiln's indices are int.
      l.max_grid_extent[a] = (int64_t{1} << 31) - 1;
    }
    l.max_shared_bytes =
        static_cast<int64_t>(DeviceValue<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE));
    std::string extensions = DeviceString(device_, CL_DEVICE_EXTENSIONS);
    l.fp16 = extensions.find("cl_khr_fp16") != std::string::npos;
    l.fp64 = extensions.find("cl_khr_fp64") != std::string::npos;
    l.int64 = true;
    l.warp_size = pocl ? 1 : 32;
    return d;
  }

  std::string Build(const std::string& source,
                    const std::vector<codegen::gpu::ConcreteLaunch>& kernels) override {
    const char* text = source.c_str();
    size_t length = source.size();
    cl_int code = CL_SUCCESS;
    program_ = clCreateProgramWithSource(context_, 1, &text, &length, &code);
    Check(code, "clCreateProgramWithSource");
    // KILN_OPENCL_BUILD_OPTIONS adds to the compiler's options ("-cl-opt-disable" makes PoCL
    // build several times faster where only correctness is checked).
    std::string options = "-cl-std=CL1.2";
    if (const char* extra = std::getenv("KILN_OPENCL_BUILD_OPTIONS"); extra && *extra) {
      options += std::string(" ") + extra;
    }
    code = clBuildProgram(program_, 1, &device_, options.c_str(), nullptr, nullptr);
    if (code != CL_SUCCESS) {
      size_t size = 0;
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, 0, nullptr, &size);
      std::string log(size, '\0');
      clGetProgramBuildInfo(program_, device_, CL_PROGRAM_BUILD_LOG, size, log.data(), nullptr);
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
      return "clBuildProgram: " + CodeName(code) + ":\n" + log;
    }
    for (const codegen::gpu::ConcreteLaunch& k : kernels) {
      cl_kernel kernel = clCreateKernel(program_, k.symbol.c_str(), &code);
      if (code != CL_SUCCESS) return "clCreateKernel(" + k.symbol + "): " + CodeName(code);
      kernels_.push_back(kernel);
      launches_.push_back(k);
    }
    return "";
  }

  int Allocate(size_t bytes) override {
    cl_int code = CL_SUCCESS;
    cl_mem m = clCreateBuffer(context_, CL_MEM_READ_WRITE, bytes, nullptr, &code);
    Check(code, "clCreateBuffer of " + std::to_string(bytes) + " bytes");
    buffers_.push_back(m);
    return static_cast<int>(buffers_.size()) - 1;
  }

  void Upload(int buffer, const void* data, size_t bytes) override {
    Check(clEnqueueWriteBuffer(queue_, buffers_.at(buffer), CL_TRUE, 0, bytes, data, 0, nullptr,
                               nullptr),
          "clEnqueueWriteBuffer");
  }

  void Download(int buffer, void* data, size_t bytes) override {
    Check(clEnqueueReadBuffer(queue_, buffers_.at(buffer), CL_TRUE, 0, bytes, data, 0, nullptr,
                              nullptr),
          "clEnqueueReadBuffer");
  }

  double Run(const std::vector<gpu::GpuArg>& args, int n) override {
    for (size_t k = 0; k < kernels_.size(); ++k) SetArgs(k, args);
    std::vector<cl_event> events;
    events.reserve(static_cast<size_t>(n) * kernels_.size());
    cl_int failure = CL_SUCCESS;
    std::string failed;
    for (int i = 0; i < n && failure == CL_SUCCESS; ++i) {
      for (size_t k = 0; k < kernels_.size(); ++k) {
        const codegen::gpu::ConcreteLaunch& l = launches_[k];
        size_t local[3], global[3];
        for (int a = 0; a < 3; ++a) {
          local[a] = static_cast<size_t>(l.block[a]);
          global[a] = static_cast<size_t>(l.grid[a] * l.block[a]);
        }
        cl_event event = nullptr;
        failure = clEnqueueNDRangeKernel(queue_, kernels_[k], 3, nullptr, global, local, 0, nullptr,
                                         &event);
        if (failure != CL_SUCCESS) {
          failed =
              "clEnqueueNDRangeKernel(" + l.symbol + ", " + codegen::gpu::DescribeLaunch(l) + ")";
          break;
        }
        events.push_back(event);
      }
    }
    cl_int finish = clFinish(queue_);
    double seconds = 0;
    if (failure == CL_SUCCESS && finish == CL_SUCCESS && !events.empty()) {
      cl_ulong start = 0, end = 0;
      cl_int a = clGetEventProfilingInfo(events.front(), CL_PROFILING_COMMAND_START, sizeof start,
                                         &start, nullptr);
      cl_int b = clGetEventProfilingInfo(events.back(), CL_PROFILING_COMMAND_END, sizeof end, &end,
                                         nullptr);
      if (a != CL_SUCCESS || b != CL_SUCCESS) failure = a != CL_SUCCESS ? a : b;
      if (failure != CL_SUCCESS) failed = "clGetEventProfilingInfo";
      seconds = end > start ? static_cast<double>(end - start) * 1e-9 : 0.0;
    }
    for (cl_event e : events) clReleaseEvent(e);
    Check(failure, failed);
    Check(finish, "clFinish");
    return seconds;
  }

 private:
  void SetArgs(size_t k, const std::vector<gpu::GpuArg>& args) {
    for (size_t i = 0; i < args.size(); ++i) {
      const gpu::GpuArg& a = args[i];
      cl_int code = CL_SUCCESS;
      if (a.kind == gpu::GpuArgSpec::Kind::kBuffer) {
        code = clSetKernelArg(kernels_[k], static_cast<cl_uint>(i), sizeof(cl_mem),
                              &buffers_.at(a.buffer));
      } else if (a.kind == gpu::GpuArgSpec::Kind::kInt) {
        // In the kernel's own type: little-endian, so the low bytes of the int64 are it.
        int64_t v = a.int_value;
        size_t bytes = a.dtype.is_bool() ? 1 : static_cast<size_t>(a.dtype.bytes());
        code = clSetKernelArg(kernels_[k], static_cast<cl_uint>(i), bytes, &v);
      } else if (a.dtype.bits() == 64) {
        double v = a.float_value;
        code = clSetKernelArg(kernels_[k], static_cast<cl_uint>(i), sizeof v, &v);
      } else {
        float v = static_cast<float>(a.float_value);
        code = clSetKernelArg(kernels_[k], static_cast<cl_uint>(i), sizeof v, &v);
      }
      Check(code,
            "clSetKernelArg(" + launches_[k].symbol + ", argument " + std::to_string(i) + ")");
    }
  }

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  cl_program program_ = nullptr;
  std::vector<cl_kernel> kernels_;
  std::vector<codegen::gpu::ConcreteLaunch> launches_;
  std::vector<cl_mem> buffers_;
};

}  // namespace

std::unique_ptr<gpu::GpuBackend> OpenOpenCLDevice() { return std::make_unique<OpenCLBackend>(); }

}  // namespace kiln::runtime::opencl
