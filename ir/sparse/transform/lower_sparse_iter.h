// LowerSparseIter: SparseTIR stage I -> stage II. Every sparse iteration (T.sp_iter) becomes
// ordinary loops and blocks over positions: a loop per iterated axis, whose extent is the
// axis's length (dense_fixed), nnz_cols (sparse_fixed) or the indptr difference under the
// parent's position (variable axes), and one block at the innermost loop with an iter var per
// axis (spatial or reduce as written). An init is its own loop nest and block, "<name>_init",
// over the spatial axes only, so that an output point whose reduction is empty (an empty row)
// is still initialized.
// In the body, sparse buffers are indexed by positions: an index that is the iterator of the
// buffer's own axis becomes that iterator's position; any other index is a coordinate, which
// a dense axis takes as its position. A coordinate of a sparse axis is read from its indices
// (indices[indptr[parent] + position]). The position of a coordinate over a sparse axis is
// found by a binary search over the parent's row of indices, in a block of its own before the
// statement: a load then reads 0 where the coordinate has no position, a store writes nothing.
// T.fuse(I, J) loops once over J's positions; a search nest over indptr, run first, finds each
// position's row. T.attach(I_T, J) hangs I_T under the coordinate of J's iterator.
// Errors (kiln::Error(kInvalidIR) unless said): an axis iterated before (or without) its
// parent; a sparse buffer indexed with a number of indices other than its number of axes; a
// T.fuse that is not a chain from a root axis (kUnsupported) or mixes kinds; an init that uses
// a reduce iterator, or a spatial axis under a reduce one. Each names the sparse iteration, the
// axis and the buffer concerned.
#pragma once

#include "ir/function.h"

namespace kiln::ir::sparse {

// `f` at stage II: its sparse iterations lowered, axes and sparse buffers kept, the body under
// a root block, "sparse_tir_level" set to 1. A function without sparse iterations comes back
// with only the attribute changed.
PrimFunc LowerSparseIter(const PrimFunc& f);

}  // namespace kiln::ir::sparse
