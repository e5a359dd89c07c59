// The CUDA driver API, loaded with dlopen("libcuda.so.1") at run time: the build never needs
// the driver, and a machine without one (no GPU, or only the toolkit's link stub) gets a
// kiln::Error that says so instead of a binary that cannot start. Only the entry points Kiln
// uses are declared, with the driver's C ABI (types as in cuda.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace kiln::runtime::cuda {

using CUresult = int;
using CUdevice = int;
using CUcontext = void*;
using CUmodule = void*;
using CUfunction = void*;
using CUevent = void*;
using CUstream = void*;
using CUdeviceptr = unsigned long long;

inline constexpr CUresult kCudaSuccess = 0;
inline constexpr CUresult kCudaErrorNoDevice = 100;

// cuDeviceGetAttribute's attributes that Kiln reads (values of CUdevice_attribute).
enum CudaDeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMaxBlockDimX = 2,
  kMaxBlockDimY = 3,
  kMaxBlockDimZ = 4,
  kMaxGridDimX = 5,
  kMaxGridDimY = 6,
  kMaxGridDimZ = 7,
  kMaxSharedMemoryPerBlock = 8,
  kWarpSize = 10,
  kMaxRegistersPerBlock = 12,
  kClockRateKhz = 13,
  kMultiprocessorCount = 16,
  kMaxThreadsPerMultiprocessor = 39,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
  kMaxSharedMemoryPerBlockOptin = 97,
};

struct CudaDriver {
  CUresult (*Init)(unsigned flags) = nullptr;
  CUresult (*DriverGetVersion)(int* version) = nullptr;
  CUresult (*GetErrorName)(CUresult, const char**) = nullptr;
  CUresult (*GetErrorString)(CUresult, const char**) = nullptr;
  CUresult (*DeviceGetCount)(int* count) = nullptr;
  CUresult (*DeviceGet)(CUdevice* device, int ordinal) = nullptr;
  CUresult (*DeviceGetName)(char* name, int length, CUdevice device) = nullptr;
  CUresult (*DeviceGetAttribute)(int* value, int attribute, CUdevice device) = nullptr;
  CUresult (*DeviceTotalMem)(size_t* bytes, CUdevice device) = nullptr;
  CUresult (*DevicePrimaryCtxRetain)(CUcontext* context, CUdevice device) = nullptr;
  CUresult (*DevicePrimaryCtxRelease)(CUdevice device) = nullptr;
  CUresult (*CtxSetCurrent)(CUcontext context) = nullptr;
  CUresult (*CtxSynchronize)() = nullptr;
  CUresult (*ModuleLoadData)(CUmodule* module, const void* image) = nullptr;
  CUresult (*ModuleUnload)(CUmodule module) = nullptr;
  CUresult (*ModuleGetFunction)(CUfunction* function, CUmodule module, const char* name) = nullptr;
  CUresult (*FuncGetAttribute)(int* value, int attribute, CUfunction function) = nullptr;
  CUresult (*MemAlloc)(CUdeviceptr* pointer, size_t bytes) = nullptr;
  CUresult (*MemFree)(CUdeviceptr pointer) = nullptr;
  CUresult (*MemcpyHtoD)(CUdeviceptr dst, const void* src, size_t bytes) = nullptr;
  CUresult (*MemcpyDtoH)(void* dst, CUdeviceptr src, size_t bytes) = nullptr;
  CUresult (*MemsetD8)(CUdeviceptr dst, unsigned char value, size_t bytes) = nullptr;
  CUresult (*LaunchKernel)(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned grid_z,
                           unsigned block_x, unsigned block_y, unsigned block_z,
                           unsigned shared_bytes, CUstream stream, void** params,
                           void** extra) = nullptr;
  CUresult (*EventCreate)(CUevent* event, unsigned flags) = nullptr;
  CUresult (*EventRecord)(CUevent event, CUstream stream) = nullptr;
  CUresult (*EventSynchronize)(CUevent event) = nullptr;
  CUresult (*EventElapsedTime)(float* ms, CUevent start, CUevent end) = nullptr;
  CUresult (*EventDestroy)(CUevent event) = nullptr;

  std::string library_path;  // where libcuda was loaded from

  // "CUDA_ERROR_NO_DEVICE (no CUDA-capable device is detected)".
  std::string Describe(CUresult result) const;
  // Throws kiln::Error(kRuntime) "WHAT failed: <Describe>" unless `result` is success.
  void Check(CUresult result, const std::string& what) const;
};

// Whether the driver library loads (it says nothing of devices); `why` gets the reason.
bool CudaDriverAvailable(std::string* why = nullptr);

// The loaded and initialized (cuInit) driver. Throws kiln::Error(kUnsupported) naming what is
// missing: "no CUDA driver: cannot load libcuda.so.1 (...)" or "no CUDA device: cuInit failed:
// CUDA_ERROR_NO_DEVICE ...".
const CudaDriver& GetCudaDriver();

}  // namespace kiln::runtime::cuda
