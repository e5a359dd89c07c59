// What the kiln-vulkan-sandbox process does with one request (runtime/sandbox_protocol.h's
// SandboxRequest, whose source_path names a Vulkan program file, runtime/vulkan/
// vulkan_program.h): compile each kernel's GLSL to SPIR-V, check the device limits, upload
// the arguments, run once and dump every tensor, time with timestamp queries. It runs in its
// own process because a kernel may hang or lose the device: the client's wall-clock limit
// and the signal in the exit status turn that into a result.
#pragma once

#include "runtime/sandbox_protocol.h"

namespace kiln::runtime::vulkan {

// Carries out `request`. The candidate's faults come back as an error result: a shader the
// compiler rejects or a kernel past a device limit (kBuildError, naming the limit), a driver
// error while running such as a lost device (kRuntimeError). A malformed request, arguments
// that do not match the signature or a machine without a Vulkan device throw kiln::Error.
SandboxResult RunVulkanRequest(const SandboxRequest& request);

}  // namespace kiln::runtime::vulkan
