// The description of one GPU device as its runtime discovers it: the device kind (the API:
// "opencl", "vulkan", "cuda"), the name the driver reports, the device key that tuning records
// are stored under ("opencl-pocl", "vulkan-llvmpipe", "cuda-h100"), the limits code generation
// must respect and the features it may use. Workers register it with the coordinator; the
// measurers pass its limits to their codegen target. It travels as JSON (from the device's
// runner process, over the wire).
#pragma once

#include <string>

#include "codegen/gpu/limits.h"

namespace kiln::runtime::gpu {

struct DeviceDescription {
  std::string kind;            // "opencl", "vulkan", "cuda"
  std::string name;            // as the driver reports it
  std::string key;             // DeviceKey(kind, short name): "opencl-pocl"
  std::string driver_version;  // as the driver reports it
  std::string platform;        // OpenCL platform, Vulkan driver name, CUDA driver version
  codegen::gpu::GpuLimits limits;
  int compute_units = 0;
  double timer_resolution_ns = 0;  // the device timer's tick
  // An emulation on the CPU (the Metal shim): its results check code, its times are the CPU's
  // and say nothing of the real device.
  bool emulated = false;
};

// "<kind>-<model>" in lower case, every run of characters other than letters and digits made
// one '-': DeviceKey("cuda", "H100") == "cuda-h100", DeviceKey("opencl", "pocl") ==
// "opencl-pocl". The model is what tells devices apart for tuning: "h100", "llvmpipe", "pocl".
std::string DeviceKey(const std::string& kind, const std::string& model);

std::string DeviceToJson(const DeviceDescription& device);
// Throws kiln::Error(kParse) naming `where` and the field on malformed input.
DeviceDescription DeviceFromJson(const std::string& text, const std::string& where);

}  // namespace kiln::runtime::gpu
