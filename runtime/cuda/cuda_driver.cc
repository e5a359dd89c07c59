// Loading libcuda.so.1 and resolving the driver entry points under their versioned names
// (cuMemAlloc is cuMemAlloc_v2 since CUDA 3.2; cuEventElapsedTime_v2 exists from 12.8).
#include "runtime/cuda/cuda_driver.h"

#include <cstdlib>

#include "runtime/cuda/dynamic_library.h"
#include "support/error.h"

namespace kiln::runtime::cuda {
namespace {

struct Loaded {
  CudaDriver driver;
  void* handle = nullptr;
  std::string load_error;  // the library or an entry point is missing
  std::string init_error;  // cuInit failed (no device, driver too old for the kernel module)
};

Loaded Load() {
  Loaded l;
  const char* env = std::getenv("KILN_CUDA_DRIVER");
  l.handle = LoadFirstLibrary({env && *env ? env : "", "libcuda.so.1"}, &l.load_error);
  if (l.handle == nullptr) {
    l.load_error = "no CUDA driver: cannot load libcuda.so.1 (" + l.load_error + ")";
    return l;
  }
  CudaDriver& d = l.driver;
  void* h = l.handle;
  std::string missing;
  auto need = [&](const char* name, auto& fn) {
    if (!Resolve(h, name, fn)) missing += (missing.empty() ? "" : ", ") + std::string(name);
  };
  need("cuInit", d.Init);
  need("cuDriverGetVersion", d.DriverGetVersion);
  need("cuGetErrorName", d.GetErrorName);
  need("cuGetErrorString", d.GetErrorString);
  need("cuDeviceGetCount", d.DeviceGetCount);
  need("cuDeviceGet", d.DeviceGet);
  need("cuDeviceGetName", d.DeviceGetName);
  need("cuDeviceGetAttribute", d.DeviceGetAttribute);
  need("cuDeviceTotalMem_v2", d.DeviceTotalMem);
  need("cuDevicePrimaryCtxRetain", d.DevicePrimaryCtxRetain);
  need("cuDevicePrimaryCtxRelease_v2", d.DevicePrimaryCtxRelease);
  need("cuCtxSetCurrent", d.CtxSetCurrent);
  need("cuCtxSynchronize", d.CtxSynchronize);
  need("cuModuleLoadData", d.ModuleLoadData);
  need("cuModuleUnload", d.ModuleUnload);
  need("cuModuleGetFunction", d.ModuleGetFunction);
  need("cuFuncGetAttribute", d.FuncGetAttribute);
  need("cuMemAlloc_v2", d.MemAlloc);
  need("cuMemFree_v2", d.MemFree);
  need("cuMemcpyHtoD_v2", d.MemcpyHtoD);
  need("cuMemcpyDtoH_v2", d.MemcpyDtoH);
  need("cuMemsetD8_v2", d.MemsetD8);
  need("cuLaunchKernel", d.LaunchKernel);
  need("cuEventCreate", d.EventCreate);
  need("cuEventRecord", d.EventRecord);
  need("cuEventSynchronize", d.EventSynchronize);
  need("cuEventDestroy_v2", d.EventDestroy);
  if (!Resolve(h, "cuEventElapsedTime_v2", d.EventElapsedTime)) {
    need("cuEventElapsedTime", d.EventElapsedTime);
  }
  d.library_path = LibraryPath(h, "cuInit");
  if (!missing.empty()) {
    l.load_error = "the CUDA driver " + d.library_path + " lacks " + missing;
    l.handle = nullptr;
    return l;
  }
  CUresult init = d.Init(0);
  if (init != kCudaSuccess) {
    l.init_error =
        "no CUDA device: cuInit failed: " + d.Describe(init) + " (driver " + d.library_path + ")";
  }
  return l;
}

const Loaded& GetLoaded() {
  static const Loaded* loaded = new Loaded(Load());
  return *loaded;
}

}  // namespace

std::string CudaDriver::Describe(CUresult result) const {
  const char* name = nullptr;
  const char* text = nullptr;
  if (GetErrorName == nullptr || GetErrorName(result, &name) != kCudaSuccess) name = nullptr;
  if (GetErrorString == nullptr || GetErrorString(result, &text) != kCudaSuccess) text = nullptr;
  std::string s = name ? name : "CUresult " + std::to_string(result);
  if (text) s += std::string(" (") + text + ")";
  return s;
}

void CudaDriver::Check(CUresult result, const std::string& what) const {
  KILN_CHECK(result == kCudaSuccess, ErrorKind::kRuntime, what + " failed: " + Describe(result));
}

bool CudaDriverAvailable(std::string* why) {
  const Loaded& l = GetLoaded();
  if (l.handle == nullptr && why) *why = l.load_error;
  return l.handle != nullptr;
}

const CudaDriver& GetCudaDriver() {
  const Loaded& l = GetLoaded();
  KILN_CHECK(l.handle != nullptr, ErrorKind::kUnsupported, l.load_error);
  KILN_CHECK(l.init_error.empty(), ErrorKind::kUnsupported, l.init_error);
  return l.driver;
}

}  // namespace kiln::runtime::cuda
