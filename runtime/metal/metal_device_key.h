// Device keys of the Metal device kind. Records are keyed by device key, so the CPU shim's
// (runtime/metal_shim/), whose times are a CPU's, must never share a key with a Mac's GPU:
// the shim's key is kMetalShimDeviceKey, and MetalDeviceKey, which the Apple worker
// (runtime/metal/) derives its key with, never returns a key of the shim's family.
// Portable: built on every platform.
#pragma once

#include <string>

namespace kiln::runtime::metal {

inline constexpr const char* kMetalShimDeviceKey = "metal-emulated-cpu-shim";

// "metal-apple-m2-max" for "Apple M2 Max" (gpu::DeviceKey), with "gpu-" inserted where the
// name would begin the shim's family ("metal-emulated..."): "Emulated X" -> "metal-gpu-emulated-x".
std::string MetalDeviceKey(const std::string& device_name);

}  // namespace kiln::runtime::metal
