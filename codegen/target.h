// Code generation targets: the interface every emitter implements and the registry that
// names them ("c", "llvm", "opencl", "vulkan", "cuda", "metal"). A target turns a lowered
// PrimFunc (codegen/lower.h) into self-contained source for one kernel with the packed calling
// convention of codegen/kernel_abi.h.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "codegen/gpu/launch.h"
#include "codegen/kernel_abi.h"
#include "codegen/lower.h"
#include "ir/function.h"

namespace kiln::codegen {

struct EmittedSource {
  std::string language;  // "c", "cuda", ...
  std::string code;      // one self-contained translation unit
  KernelSignature signature;
  bool uses_openmp = false;  // the build must enable OpenMP (-fopenmp)
  // GPU targets: the kernels in `code` and how to launch them (codegen/gpu/launch.h).
  std::optional<gpu::LaunchPlan> launch;
};

class CodegenTarget {
 public:
  virtual ~CodegenTarget() = default;
  // The registry name ("c").
  virtual std::string Name() const = 0;
  // How functions must be lowered before Emit.
  virtual LowerOptions DefaultLowerOptions() const { return {}; }
  // Source for `lowered` (the result of Lower) exported as `symbol`. Throws
  // kiln::Error(kUnsupported) naming the construct the target cannot express.
  virtual EmittedSource Emit(const ir::PrimFunc& lowered, const std::string& symbol) = 0;
};

using TargetFactory = std::function<std::unique_ptr<CodegenTarget>()>;

// Adds or replaces a target under `name`.
void RegisterTarget(const std::string& name, TargetFactory factory);
// A new instance of the target named `name`; kiln::Error(kUnsupported) listing the known
// names when there is none. "c" and "llvm" (the host CPU, through the C emitter) are built in.
std::unique_ptr<CodegenTarget> CreateTarget(const std::string& name);
std::vector<std::string> TargetNames();

}  // namespace kiln::codegen
