// Checks on a scheduled function before GPU lowering (Lower runs it when LowerOptions::gpu is
// set): what the GPU lowering cannot yet turn into correct code is refused by name instead of
// becoming a racy kernel.
#pragma once

#include "ir/function.h"

namespace kiln::codegen::gpu {

// Throws kiln::Error(kUnsupported) for a block that reduces over a loop bound to threadIdx
// (a cross-thread reduction: threads would add into one element at once), naming the block,
// the iteration and the loop. rfactor the loop first, or keep reduction loops serial.
void CheckThreadBoundReductions(const ir::PrimFunc& f);

}  // namespace kiln::codegen::gpu
