// FuseOps and FuseTIR: operator fusion of legalized graphs, as TVM's passes of the same names.
//
// FuseOps groups the call_tir bindings of each dataflow block by their PrimFuncs' op patterns
// (AnnotateTIROpPattern) with TVM's post-dominator partitioner (graph_partitioner.h): an
// elementwise or broadcast op joins its producer's epilogue (matmul + bias add + gelu), injective
// chains join, elementwise producers join a reduction. Each group of two or more bindings
// becomes a primitive Relax function (attribute "Primitive" = 1) named after its kernels
// ("fused_matmul_add_gelu"), and the block calls it where its last binding was. The group's
// inputs are its parameters (constants included, deduplicated); its outputs are the values used
// outside it (a tuple when there are several). Bindings outside dataflow blocks, match_casts,
// calls of other functions and call_tirs whose PrimFunc has no pattern or cannot be merged (see
// MatchCallTIR) stay as they are, and nothing is fused across them.
//
// Projections of multi-output kernels (y = s[i] after split), as in TVM: a TupleGetItem is
// injective, so it fuses through the partitioner with its tuple's producer and consumers. One
// whose tuple ends up outside its group leaves the group (the field is passed in as a
// parameter, as TVM passes a partially used tuple). One that fused with nothing joins the group
// of the call_tir that made its tuple when the group can still be emitted at its last member,
// so that the field leaves the group as a result of its own. A tuple that is still read whole
// outside its group is returned field by field and rebuilt after the call.
//
// FuseTIR turns each primitive function into one PrimFunc (merge_prim_funcs.h) of the same
// name, rewrites its calls into call_tir, and removes the primitive functions and the PrimFuncs
// only they called. Merged functions that come out structurally equal (two identical layers)
// are kept once.
#pragma once

#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

struct FuseOpsOptions {
  // The most nodes a group may hold (TVM's relax.FuseOps.max_depth, kMaxFusedOps).
  int max_fuse_depth = 256;
};

// The Relax function attribute that marks a fused group.
inline constexpr const char* kPrimitiveAttr = "Primitive";

IRModule FuseOps(const IRModule& module, const FuseOpsOptions& options = {});
IRModule FuseTIR(const IRModule& module);

// True when `func` carries a nonzero "Primitive" attribute.
bool IsPrimitiveFunction(const Function& func);

}  // namespace kiln::ir::relax::transform
