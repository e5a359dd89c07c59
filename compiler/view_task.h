// Which tasks only re-view memory: a reshape, squeeze, expand_dims or flatten legalized into a
// copy kernel. Their output is their input's bytes in the same order under another shape, so
// the compiled model makes them views of their argument instead of kernels. A transpose moves
// elements and stays a kernel.
#pragma once

#include "ir/relax/transform/extract_tasks.h"

namespace kiln::compiler {

// True when `task` is such a copy: named for one of those ops by legalization, one input and
// one output buffer of one dtype. When its shapes are static and small, this is also checked
// by running it in the interpreter on 0, 1, 2, ...: the output must read the same.
bool IsViewTask(const ir::relax::transform::ExtractedTask& task);

}  // namespace kiln::compiler
