// A lowering pass (codegen/lower.h orders them): multi-dimensional buffer accesses become flat,
// one-index accesses.
#pragma once

#include "ir/function.h"

namespace kiln::codegen {

// Replaces every buffer used in the body (parameters' buffers, Allocate and DeclBuffer
// buffers) by a 1-D view of the same storage (same data Var, dtype, scope and alignment)
// and rewrites each access A[i0, ..., ik] to A[elem_offset + i0 * s0 + ... + ik * sk], with
// the strides s taken from the buffer or, for a compact buffer, the row-major products of
// its shape. An allocated buffer's flat shape is its element count. The function's
// buffer_map keeps the original buffers: they describe the tensors the caller passes.
// Index arithmetic is in int64 when any index, shape or stride is int64, else int32.
ir::PrimFunc FlattenBuffers(const ir::PrimFunc& f);

}  // namespace kiln::codegen
