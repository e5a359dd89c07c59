// Timing a matmul task's two variants on this machine at compile time: the task's kernel (tuned
// or not) and its library variant (task_steps.h), each as a one-task graph run by the model
// executor from a kernels library already built, on the same random inputs, interleaved and
// each timed twice (the best repeat kept: on a shared machine the median mostly measures the
// other work), so that the choice sees what the compiled model will run. When the better of two
// runs of each already differs fourfold, those are the times. The outputs of the two are compared
// too: a library variant that disagrees with the kernel is never chosen.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/task_steps.h"
#include "ir/host_tensor.h"
#include "ir/relax/transform/extract_tasks.h"
#include "runtime/model/graph.h"

namespace kiln::compiler {

struct VariantTiming {
  bool measured = false;  // false: the shapes are not static (note says so)
  double kernel_s = 0;
  double library_s = 0;
  bool agree = true;  // the outputs match within float32 tolerance
  double max_error = 0;
  std::string note;
};

struct VariantTimingOptions {
  int threads = 0;  // 0: every core
  int repeat = 5;
  double min_repeat_ms = 10;
  uint64_t seed = 1;
};

// `kernels` are the graph kernels both lowerings index, their symbols in `library_path` (a
// kernels library with the thread setter, kernel_library.h). Never throws kiln::Error: a
// library that cannot be loaded or a variant that fails to run is a note, with agree false.
VariantTiming TimeTaskVariants(const ir::relax::transform::ExtractedTask& task,
                               const std::vector<int>& outputs, const TaskLowering& kernel,
                               const TaskLowering& library,
                               const std::vector<runtime::model::GraphKernel>& kernels,
                               const std::string& library_path,
                               const VariantTimingOptions& options = {});

// Runs one call of the task lowered as `how` on `inputs` (its parameters that are not
// outputs, in order) and returns its outputs: what the timing runs, for tests to check.
// kiln::Error(kUnsupported) when the task's shapes are not static.
std::vector<ir::HostTensor> RunTaskVariant(const ir::relax::transform::ExtractedTask& task,
                                           const std::vector<int>& outputs, const TaskLowering& how,
                                           const std::vector<runtime::model::GraphKernel>& kernels,
                                           const std::string& library_path,
                                           const std::vector<ir::HostTensor>& inputs,
                                           int threads = 0);

}  // namespace kiln::compiler
