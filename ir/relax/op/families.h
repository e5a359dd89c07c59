// The registration functions of the op families, one per file of ir/relax/op. Internal:
// OpRegistry::Global calls each once.
#pragma once

#include "ir/relax/op/registry.h"

namespace kiln::ir::relax {

void RegisterUnaryOps(OpRegistry& registry);
void RegisterBinaryOps(OpRegistry& registry);
void RegisterLinearAlgebraOps(OpRegistry& registry);
void RegisterNNOps(OpRegistry& registry);
void RegisterReduceOps(OpRegistry& registry);
void RegisterManipulateOps(OpRegistry& registry);
void RegisterCreateOps(OpRegistry& registry);
void RegisterShapeOps(OpRegistry& registry);
void RegisterCallOps(OpRegistry& registry);
void RegisterTrigonometricOps(OpRegistry& registry);
void RegisterImageOps(OpRegistry& registry);

}  // namespace kiln::ir::relax
