// Building every kernel of a model into one shared library. Each kernel's C source (the C
// target's lowering and emitter, as the measurer generates it) is compiled to an object through
// the content-addressed build cache, so recompiling a model rebuilds only the kernels that
// changed; the objects, and a small one exporting the thread-count setter the executor calls
// (runtime/model/artifact.h's kSetThreadsSymbol), are then linked into one .so. The kernels'
// own helpers are static, so nothing clashes between objects.
#pragma once

#include <string>
#include <vector>

#include "codegen/kernel_abi.h"
#include "ir/function.h"

namespace kiln::compiler {

struct KernelLibraryOptions {
  std::string target = "llvm";
  std::string compiler = "gcc";
  int jobs = 0;                // parallel compiles; 0: every core
  double time_limit_s = 300;   // per compile and for the link
  std::string cache_dir = {};  // empty: the runtime's default cache
};

struct KernelObject {
  bool ok = false;
  std::string object_path;
  std::string error;  // what failed (generation or the compiler) when not ok
  codegen::KernelSignature signature;
};

// Generates and compiles `funcs[i]` exported as `symbols[i]`, in parallel. A kernel that cannot
// be generated or compiled is a result with ok == false; only an unusable environment throws.
std::vector<KernelObject> CompileKernelObjects(const std::vector<ir::PrimFunc>& funcs,
                                               const std::vector<std::string>& symbols,
                                               const KernelLibraryOptions& options);

// Links `objects` and the thread setter into the shared library `output_path`.
// kiln::Error(kIO) with the linker's message when it fails.
void LinkKernelLibrary(const std::vector<std::string>& objects, const std::string& output_path,
                       const KernelLibraryOptions& options);

}  // namespace kiln::compiler
