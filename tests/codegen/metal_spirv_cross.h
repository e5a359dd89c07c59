// The Metal target beside Khronos's translator: a function through the Vulkan target (GLSL),
// shaderc (SPIR-V) and `spirv-cross --msl`, compared kernel by kernel with the MSL emitter's
// output in what both must agree on whatever their spelling -- one kernel per launch, each
// kernel's threadgroup arrays and their element counts, and whether it synchronizes its
// threadgroup. Barrier counts are not compared one to one: GLSL's barrier is three calls,
// which spirv-cross may merge or split; buffer bindings neither (SPIR-V keeps only the
// resources an entry point uses). Shared by codegen_metal_test (the zoo) and
// metal_model_tasks_test (the bundled models).
#pragma once

#include <set>
#include <string>
#include <vector>

#include "ir/function.h"

namespace kiln::codegen::testing {

// /usr/bin/spirv-cross or /usr/local/bin/spirv-cross; empty when neither exists.
std::string SpirvCrossPath();

// `msl` cut into its kernels, in order: each from its `kernel void` to the next.
std::vector<std::string> KernelsOf(const std::string& msl);

struct KernelShape {
  std::multiset<std::string> threadgroup_arrays;  // "float[64]"; bool and uchar alike
  bool barriers = false;
};
KernelShape ShapeOf(const std::string& kernel);

struct SpirvCrossTally {
  int kernels = 0;
  int threadgroup_arrays = 0;
  int kernels_with_barriers = 0;
};

// Emits `scheduled` (not yet lowered) with the Metal and the Vulkan targets (Metal's limits for
// both), translates each GLSL kernel with `tool`, and compares. Returns "" when every kernel
// agrees, else what differs (with both sources); adds what it compared to `tally`.
std::string CompareWithSpirvCross(const ir::PrimFunc& scheduled, const std::string& tool,
                                  SpirvCrossTally& tally);

}  // namespace kiln::codegen::testing
