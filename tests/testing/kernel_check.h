// One check that tests of generated C kernels share: build the emitted source through the
// runtime's build cache, run it on seeded random inputs, run the reference interpreter on the
// same inputs, and compare every parameter within the runtime's output tolerance.
#pragma once

#include <cstdint>
#include <string>

#include "codegen/target.h"
#include "ir/function.h"
#include "runtime/cpu_builder.h"

namespace kiln::testing {

// Build options whose cache is a fresh temporary folder, removed with this object.
class ScratchBuild {
 public:
  explicit ScratchBuild(const std::string& prefix = "kiln_kernel_check");
  ~ScratchBuild();
  ScratchBuild(const ScratchBuild&) = delete;
  ScratchBuild& operator=(const ScratchBuild&) = delete;
  const runtime::BuildOptions& options() const { return options_; }

 private:
  runtime::BuildOptions options_;
};

struct KernelInputs {
  uint64_t seed = 1;  // parameter i is drawn with seed + i
  double low = -1;
  double high = 1;
};

// "" when the kernel `source` (emitted from a schedule of `workload`) builds and every
// parameter agrees with the interpreter's; otherwise the build error, or the first parameter
// that differs and how. Scalar parameters are not drawn: a workload with one is an error.
std::string BuildRunAndCompare(const ir::PrimFunc& workload, const codegen::EmittedSource& source,
                               const runtime::BuildOptions& build, const KernelInputs& inputs = {});

}  // namespace kiln::testing
