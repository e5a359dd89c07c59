// The reference interpreter: executes any PrimFunc (scheduled or not, every loop kind, blocks
// with init, predicates, allocations) on host tensors. It is the oracle every generated kernel
// is checked against, so it is written to be simple and obviously right, not fast: it walks
// the IR, evaluates integers exactly in int64 and floats in the dtype's own precision
// (float16/bfloat16 rounded after each operation, as a device would).
//
// Semantics, beyond what the node comments say:
// - Every loop kind runs as a sequential loop; the kind never changes the result.
// - A block's init runs when every reduce iter var is at the start of its domain (TVM's rule);
//   an iter value outside its domain is an error.
// - Integer ops wrap to the dtype's width (C semantics); float to integer casts truncate and
//   saturate (NaN gives 0). Min and Max propagate NaN. Select evaluates both of its sides.
// - "round" rounds halves away from zero (C's round); "nearbyint" rounds them to even.
// - Fresh storage (Allocate, alloc_buffers) holds NaN (floats) or the bytes 0xA5 (integers),
//   so reading memory before writing it gives a wrong result rather than a lucky zero.
// - A buffer with explicit strides or an element offset indexes its tensor's storage, which
//   need not have the buffer's shape; every access is checked against shape and storage.
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
// an out-of-bounds access, a shape or dtype mismatch, or division by zero; kInvalidIR for IR
// that cannot run (an undefined variable or buffer), kUnsupported for an unknown intrinsic.
// Every message starts with the function's name and the innermost block being run.
void Interpret(const PrimFunc& f, const std::vector<ArgValue>& args);

}  // namespace kiln::ir
