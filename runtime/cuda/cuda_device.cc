// Device keys from names, and the driver queries behind DiscoverCudaDevices.
#include "runtime/cuda/cuda_device.h"

#include <cctype>
#include <cstdio>
#include <regex>

#include "runtime/cuda/cuda_driver.h"
#include "support/error.h"

namespace kiln::runtime::cuda {
namespace {

// Words of a device name that say nothing of which chip runs the code.
bool IsNoiseWord(const std::string& word) {
  static const std::regex noise(
      "nvidia|geforce|tesla|quadro|pcie|nvl|nvlink|sxm[0-9]*|hbm[0-9a-z]*|[0-9]+gb|[0-9]+g|mig");
  return std::regex_match(word, noise);
}

}  // namespace

std::string CudaDeviceKeyFromName(std::string_view name) {
  std::string key;
  std::string word;
  auto flush = [&] {
    if (!word.empty() && !IsNoiseWord(word)) key += (key.empty() ? "" : "-") + word;
    word.clear();
  };
  for (char c : name) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      flush();
    }
  }
  flush();
  return "cuda-" + (key.empty() ? std::string("unknown") : key);
}

std::string CudaDeviceInfo::Arch() const {
  return "sm_" + std::to_string(compute_major) + std::to_string(compute_minor);
}

std::string CudaDeviceInfo::Summary() const {
  char memory[32];
  std::snprintf(memory, sizeof memory, "%.1f GiB",
                static_cast<double>(total_memory_bytes) / (1024.0 * 1024.0 * 1024.0));
  return name + ", " + Arch() + ", " + std::to_string(sm_count) + " SMs, " + memory;
}

std::vector<CudaDeviceInfo> DiscoverCudaDevices() {
  const CudaDriver& d = GetCudaDriver();
  int count = 0;
  d.Check(d.DeviceGetCount(&count), "cuDeviceGetCount");
  KILN_CHECK(count > 0, ErrorKind::kUnsupported,
             "no CUDA device: the driver " + d.library_path + " reports none");
  int version = 0;
  d.Check(d.DriverGetVersion(&version), "cuDriverGetVersion");
  std::vector<CudaDeviceInfo> devices;
  for (int ordinal = 0; ordinal < count; ++ordinal) {
    CUdevice device = 0;
    d.Check(d.DeviceGet(&device, ordinal), "cuDeviceGet");
    auto attribute = [&](CudaDeviceAttribute a) {
      int value = 0;
      d.Check(d.DeviceGetAttribute(&value, a, device),
              "cuDeviceGetAttribute(" + std::to_string(static_cast<int>(a)) + ")");
      return value;
    };
    CudaDeviceInfo info;
    info.ordinal = ordinal;
    char name[256] = {};
    d.Check(d.DeviceGetName(name, sizeof name - 1, device), "cuDeviceGetName");
    info.name = name;
    info.key = CudaDeviceKeyFromName(info.name);
    info.compute_major = attribute(kComputeCapabilityMajor);
    info.compute_minor = attribute(kComputeCapabilityMinor);
    info.sm_count = attribute(kMultiprocessorCount);
    size_t memory = 0;
    d.Check(d.DeviceTotalMem(&memory, device), "cuDeviceTotalMem");
    info.total_memory_bytes = static_cast<int64_t>(memory);
    info.max_shared_bytes_optin = attribute(kMaxSharedMemoryPerBlockOptin);
    info.max_registers_per_block = attribute(kMaxRegistersPerBlock);
    info.clock_khz = attribute(kClockRateKhz);
    info.driver_version =
        std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
    codegen::gpu::GpuLimits& l = info.limits;
    l.max_threads_per_block = attribute(kMaxThreadsPerBlock);
    l.max_block_extent = {attribute(kMaxBlockDimX), attribute(kMaxBlockDimY),
                          attribute(kMaxBlockDimZ)};
    l.max_grid_extent = {attribute(kMaxGridDimX), attribute(kMaxGridDimY), attribute(kMaxGridDimZ)};
    // Static __shared__ arrays are limited to this (48 KiB); only dynamic shared memory may use
    // the opt-in size, and the emitter declares shared buffers statically.
    l.max_shared_bytes = attribute(kMaxSharedMemoryPerBlock);
    l.warp_size = attribute(kWarpSize);
    // Half arithmetic (cuda_fp16.h's operators) needs compute capability 5.3.
    l.fp16 = info.compute_major * 10 + info.compute_minor >= 53;
    l.fp64 = true;
    l.int64 = true;
    devices.push_back(std::move(info));
  }
  return devices;
}

CudaDeviceInfo DiscoverCudaDevice(int ordinal) {
  std::vector<CudaDeviceInfo> devices = DiscoverCudaDevices();
  KILN_CHECK(ordinal >= 0 && ordinal < static_cast<int>(devices.size()), ErrorKind::kUnsupported,
             "no CUDA device " + std::to_string(ordinal) + ": this machine has " +
                 std::to_string(devices.size()));
  return devices[static_cast<size_t>(ordinal)];
}

}  // namespace kiln::runtime::cuda
