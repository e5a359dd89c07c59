// The C source of a kernel for a CPU target: the function lowered with the target's options
// and printed by its emitter (codegen/), under a C symbol derived from the function's name.
// The measurement pipeline and the trusted reference build both generate code through here,
// so a candidate and the build it is compared with come from the same code path.
#pragma once

#include <string>

#include "codegen/target.h"
#include "ir/function.h"

namespace kiln::runtime {

struct GeneratedKernel {
  ir::PrimFunc lowered;
  codegen::EmittedSource source;
};

// Lowers `f` with `target`'s options and emits it as `symbol`. Throws the lowering's or the
// emitter's kiln::Error (kUnsupported, kInvalidIR, ...) naming what could not be generated.
GeneratedKernel GenerateKernel(const ir::PrimFunc& f, codegen::CodegenTarget& target,
                               const std::string& symbol);

// "kiln_" followed by the function's name with every character that C does not allow in an
// identifier replaced by '_'.
std::string KernelSymbol(const ir::PrimFunc& f);

}  // namespace kiln::runtime
