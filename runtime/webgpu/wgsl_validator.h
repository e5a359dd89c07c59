// WGSL checked by the two validators that matter: naga (wgpu-native's, which the runner uses)
// and Tint (Dawn's, which Chrome uses). naga accepts some WGSL that Tint rejects (a barrier in
// non-uniform control flow, aliased pointer arguments, workgroup memory past the limit), so
// code that must run in a browser is checked by both. Each validator makes a shader module and
// one compute pipeline per kernel (the override constants of codegen/webgpu/webgpu_abi.h set
// from its launch), on a device with WebGPU's default limits, and reports what either refused.
#pragma once

#include <string>
#include <vector>

#include "codegen/gpu/launch.h"

namespace kiln::runtime::webgpu {

enum class WgslValidator { kNaga, kTint };

const char* WgslValidatorName(WgslValidator validator);  // "naga", "tint"

// Whether `validator`'s library loads here ("" when it does, else why not).
std::string WgslValidatorUnavailable(WgslValidator validator);

// The validator's diagnostics for `source` and its kernels, "" when it accepts them. Kernels
// with no launch given are not made into pipelines. Throws kiln::Error(kUnsupported) when the
// validator's library is missing (see WgslValidatorUnavailable).
std::string ValidateWgsl(WgslValidator validator, const std::string& source,
                         const std::vector<codegen::gpu::ConcreteLaunch>& kernels);

}  // namespace kiln::runtime::webgpu
