// CUDA device discovery: the name, device key, compute capability and limits of a GPU as the
// driver reports them. The key files tuning records ("cuda-h100"): it comes from the model in
// the device name, so two boards of one model share records and no others do.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/gpu/limits.h"

namespace kiln::runtime::cuda {

struct CudaDeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  std::string key;   // "cuda-h100"
  int compute_major = 0;
  int compute_minor = 0;
  int sm_count = 0;
  int64_t total_memory_bytes = 0;
  int64_t max_shared_bytes_optin = 0;  // per block, with a kernel's opt-in attribute
  int max_registers_per_block = 0;
  int clock_khz = 0;
  std::string driver_version;  // "13.0"
  codegen::gpu::GpuLimits limits;

  // "sm_90": the architecture code is built for.
  std::string Arch() const;
  // "NVIDIA H100 80GB HBM3, sm_90, 132 SMs, 79.1 GiB": what `tune workers` shows.
  std::string Summary() const;
};

// "cuda-h100" from "NVIDIA H100 80GB HBM3": the model words of the name, lower case, joined
// by '-', without the vendor and brand words (NVIDIA, GeForce, Tesla, Quadro) and without
// memory and form-factor words (80GB, HBM3, PCIe, SXM5, NVL); "cuda-unknown" when nothing is
// left. "NVIDIA GeForce RTX 4090" gives "cuda-rtx-4090", "NVIDIA A100-SXM4-80GB" "cuda-a100".
std::string CudaDeviceKeyFromName(std::string_view name);

// Every CUDA device of this machine, in ordinal order. Throws kiln::Error(kUnsupported) when
// there is no driver or no device, with the reason ("no CUDA driver: cannot load
// libcuda.so.1 ..." / "no CUDA device: ...").
std::vector<CudaDeviceInfo> DiscoverCudaDevices();

// The device of `ordinal`; kiln::Error(kUnsupported) naming the count when there is none.
CudaDeviceInfo DiscoverCudaDevice(int ordinal = 0);

}  // namespace kiln::runtime::cuda
