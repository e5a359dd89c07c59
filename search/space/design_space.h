// DesignSpace: the rules, postprocessors and mutators (with their probabilities) that make a
// task's search space, and the named presets per target: "cpu" (MetaSchedule's llvm
// defaults), "cuda" and "gpu" (its cuda defaults, for CUDA and for Vulkan / OpenCL, each with
// its target's limits). The search clones one per thread and per task.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "codegen/gpu/limits.h"
#include "search/schedule/schedule.h"
#include "search/space/mutator.h"
#include "search/space/postproc.h"
#include "search/space/schedule_rule.h"
#include "search/space/tune_context.h"

namespace kiln::search {

struct WeightedMutator {
  std::unique_ptr<Mutator> mutator;
  double probability = 0;  // of being the one applied, among the space's mutators
};

struct DesignSpace {
  std::string preset;
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  std::vector<std::unique_ptr<Postproc>> postprocs;
  std::vector<WeightedMutator> mutators;

  // Initializes every component for `context`'s task.
  void Initialize(const TuneContext& context);
  // The sketches of `context.workload` (GenerateSketches with the rules). Initialize first.
  std::vector<Schedule> Sketches(const TuneContext& context) const;
  // An independent copy (components are stateful once initialized).
  DesignSpace Clone() const;
};

// The preset named `name` ("cpu", with the aliases "llvm" and "c"; "sparse-cpu", for stage-III
// sparse kernels; "sparse-gpu", the same on a GPU within the "gpu" preset's limits; "cuda";
// "gpu", with the aliases "vulkan" and "opencl": a target name picks its preset); a
// kiln::Error(kUnsupported) naming the known presets otherwise.
DesignSpace MakeDesignSpace(std::string_view name);
// The device limits a GPU preset sizes its space by (a TuneContext's non-zero limits
// override them): CUDA's for "cuda"; TVM's Vulkan / OpenCL defaults (256 threads, 32 KiB of
// shared memory per block) for "gpu", "vulkan" and "opencl".
codegen::gpu::GpuLimits PresetGpuLimits(std::string_view name);
// True for the names of GPU presets.
bool IsGpuPreset(std::string_view name);
// The preset names MakeDesignSpace knows.
std::vector<std::string> DesignSpacePresets();

}  // namespace kiln::search
