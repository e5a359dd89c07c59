// The workgroup storage one WGSL entry point uses, as WebGPU counts it against
// maxComputeWorkgroupStorageSize: the sum over the `var<workgroup>` variables its body names of
// their sizes rounded up to 16 bytes. naga (wgpu-native) does not check this limit, so the
// runner does, as Tint does in a browser. It reads the declarations Kiln's emitter writes (an
// array of scalars or vectors with a literal count, possibly nested, or a scalar or vector);
// a variable of another type is reported as unknown rather than guessed.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::runtime::webgpu {

struct WorkgroupStorage {
  int64_t bytes = 0;
  std::string unknown;  // the first variable whose size could not be read ("" when none)
};

// Storage of the workgroup variables named in the body of `fn entry_point`; all of the module's
// when the entry point is not found.
WorkgroupStorage WorkgroupStorageOf(const std::string& wgsl, const std::string& entry_point);

}  // namespace kiln::runtime::webgpu
