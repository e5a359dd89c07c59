// LowerSparseBuffer: SparseTIR stage II -> stage III. Every sparse buffer becomes a 1-D buffer
// over the same storage (a matched one keeps its parameter; an allocated one moves to the root
// block's allocations), and each access, written with one position per axis, becomes one flat
// offset. Its axes split into chains: an axis whose parent is the axis of the dimension before
// it continues that dimension's chain, any other starts a new one. Along a chain the absolute
// position goes through the child axis's indptr (variable axes) or its nnz_cols (sparse_fixed):
// only chains of variable axes are flattened through indptr. Chains are then laid out row-major,
// each as wide as its last axis has positions. The result is plain TensorIR: no axes, no sparse
// buffers, "sparse_tir_level" 0; block regions are computed again from the flat accesses.
// Errors (kiln::Error(kInvalidIR)): a sparse iteration not lowered yet (run LowerSparseIter);
// a buffer whose axis hangs under an axis that is not the one of its previous dimension; an
// access with a number of indices other than the buffer's number of axes. Each names the buffer
// and the axis.
#pragma once

#include "ir/function.h"

namespace kiln::ir::sparse {

PrimFunc LowerSparseBuffer(const PrimFunc& f);

}  // namespace kiln::ir::sparse
