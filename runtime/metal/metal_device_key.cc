// MetalDeviceKey: gpu::DeviceKey, kept out of the shim's family of keys.
#include "runtime/metal/metal_device_key.h"

#include "runtime/gpu/device.h"

namespace kiln::runtime::metal {

std::string MetalDeviceKey(const std::string& device_name) {
  std::string key = gpu::DeviceKey("metal", device_name);
  const std::string shim_family = "metal-emulated";
  if (key.rfind(shim_family, 0) == 0) key = "metal-gpu-" + key.substr(6);
  return key;
}

}  // namespace kiln::runtime::metal
