// The shape ops of ir/relax/op/shape.cc evaluated on run-time values: the ops that stay in a
// graph after legalization because they compute shapes, not tensors (ONNX's Shape -> Gather ->
// Concat -> Reshape chains). Internal to the reference executor.
#pragma once

#include <string>
#include <vector>

#include "ir/relax/exec/value.h"
#include "ir/relax/expr.h"

namespace kiln::ir::relax::exec {

// True for shape_of, shape_get, shape_slice, shape_concat, tensor_to_shape, shape_to_tensor.
bool IsShapeOp(const std::string& op);

// The result of shape op `call` on its evaluated arguments; kiln::Error(kRuntime) when an
// argument is of the wrong kind or an index is out of range.
Value RunShapeOp(const CallNode& call, const std::vector<Value>& args);

}  // namespace kiln::ir::relax::exec
