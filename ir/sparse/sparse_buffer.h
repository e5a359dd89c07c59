// Sparse buffers: a buffer whose dimensions are axes (ir/sparse/axis.h). Its Buffer is an
// ordinary one, so that loads and stores in the body are the usual BufferLoad/BufferStore
// with one index per axis (a coordinate in stage I, a position under the parent in stage II);
// the shape of that Buffer is the axes' lengths, for readers only. A matched sparse buffer is
// bound to a handle parameter (T.match_sparse_buffer) and appears in the function's
// buffer_map; an allocated one (T.alloc_sparse_buffer) has no parameter.
#pragma once

#include <vector>

#include "ir/sparse/axis.h"

namespace kiln::ir {

struct SparseBuffer {
  Buffer buffer;
  std::vector<Axis> axes;  // one per dimension of `buffer`
  Var param;               // the handle parameter; undefined for an allocated buffer
  Expr extra_storage;      // elements past the last position, when given (SparseTIR's indptr)
};

}  // namespace kiln::ir
