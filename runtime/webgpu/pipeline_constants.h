// The pipeline-overridable constants of one kernel (codegen/webgpu/webgpu_abi.h): its
// workgroup size kiln_wg_x/y/z and logical grid kiln_grid_x/y/z from its ConcreteLaunch. Only
// the constants the module declares are set: WebGPU refuses a pipeline given a constant that
// no `override` of the module names.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "codegen/gpu/launch.h"

namespace kiln::runtime::webgpu {

// (name, value) for each of the six constants that `wgsl` declares with `override`.
std::vector<std::pair<std::string, double>> PipelineConstants(
    const std::string& wgsl, const codegen::gpu::ConcreteLaunch& launch);

}  // namespace kiln::runtime::webgpu
