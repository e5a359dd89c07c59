// The reference interpreter: executes any PrimFunc (scheduled or not, every loop kind, blocks
// with init, predicates, allocations) on host tensors. It is the oracle every generated kernel
// is checked against, so it is written to be simple and obviously right, not fast: it walks
// the IR, evaluates integers exactly in int64 and floats in the dtype's own precision
// (float16/bfloat16 rounded after each operation, as a device would).
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "ir/function.h"
#include "ir/host_tensor.h"

namespace kiln::ir {

// One argument per PrimFunc parameter, in order: a tensor for a buffer parameter (copies of a
// HostTensor share storage, so outputs written by the function are seen by the caller), an
// integer or float for a scalar parameter.
using ArgValue = std::variant<HostTensor, int64_t, double>;

// Runs `f` on `args`. Symbolic dims of buffer parameters are bound from the tensors' shapes
// (and must agree where shared). Throws kiln::Error(kRuntime) naming the buffer and index on
// an out-of-bounds access, a shape or dtype mismatch, or division by zero.
void Interpret(const PrimFunc& f, const std::vector<ArgValue>& args);

}  // namespace kiln::ir
