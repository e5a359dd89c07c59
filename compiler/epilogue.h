// The epilogue of a matmul task's library variant (matmul_task.h): the task's function with the
// matmul's loop nest removed and its product read from a new last parameter, which the
// library call fills first. Scheduled for the CPU by default rules, since no tuning record is
// its: intermediates inlined (an expensive intrinsic only into a single consumer), then each
// remaining block's loops fused, the outer part parallel (from 32768 elements on; smaller ones
// stay serial) and an inner part of 16, 8 or 4 iterations vectorized where the extent allows.
#pragma once

#include "compiler/matmul_task.h"
#include "ir/function.h"

namespace kiln::compiler {

// `func` without the matmul of `matmul`, taking the product as its last parameter. Only for a
// match whose product is an intermediate (matmul.output_param == -1).
ir::PrimFunc MakeEpilogue(const ir::PrimFunc& func, const MatmulTask& matmul);

// The default CPU schedule above. A step that does not apply is skipped, so the result is
// always `func` or a valid schedule of it.
ir::PrimFunc ScheduleEpilogue(const ir::PrimFunc& func);

}  // namespace kiln::compiler
