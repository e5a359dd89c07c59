// AnnotateTIROpPattern: classifies each PrimFunc of a module by how its loops relate outputs to
// inputs (elementwise, broadcast, injective, reduction, out-elementwise-fusable, opaque), which
// is what FuseOps decides on, and records the kind on the function as the "op_pattern"
// attribute with TVM's integer codes, so modules and tuning records read the same as in TVM.
//
// The analysis follows TVM's PatternKindAnalyzer block by block (the root block is skipped):
// - a block with one store (or several to the same indices) is classified by each load against
//   the store: same indices -> elementwise; load indices a subsequence of the store's (unit
//   dims indexed by 0 skipped) -> broadcast; store indices plain iteration variables and load
//   indices using only those -> injective. A mix of elementwise and broadcast loads is
//   elementwise (C[i, j] = A[i, j] + B[j]). An output block of this kind after a reduction
//   makes the function out-elementwise-fusable (softmax, layer norm);
// - otherwise a block with reduce iteration variables is out-elementwise-fusable when its body
//   is a multiply-add whose loads reuse data (matmul, conv), or when some load indexes a reduce
//   variable inside an expression (pooling); else it is a reduction (sum, max over an axis);
// - anything else (no store, stores to different indices, a non-reduction that fits none of
//   the index patterns) is opaque.
// The function's kind is the most general kind of its blocks. Two refinements over TVM: loads
// may go through casts in a multiply-add (int8 and float16 matmuls stay fusable), and only the
// block's iteration variables count as index variables (a shape variable n in A[n - 1 - i] is a
// constant, so a flip is injective). A function with no block besides the root is opaque.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/function.h"
#include "ir/relax/module.h"
#include "ir/relax/op/registry.h"

namespace kiln::ir::relax::transform {

// The PrimFunc attribute that holds the kind.
inline constexpr const char* kOpPatternAttr = "op_pattern";

// TVM's OpPatternKind codes: elemwise 0, broadcast 1, injective 2, comm_reduce 3,
// out_ewise_fusable 4, opaque 8.
int OpPatternCode(OpPattern pattern);
// The kind of a code; nullopt for a code that is not one of the above.
std::optional<OpPattern> OpPatternFromCode(int64_t code);

// The kind of `func` by the analysis above.
OpPattern AnalyzeOpPattern(const ir::PrimFunc& func);

// The kind recorded on `func`, if it has a valid "op_pattern" attribute.
std::optional<OpPattern> GetOpPattern(const ir::PrimFunc& func);
// `func` with its "op_pattern" attribute set to `pattern`.
ir::PrimFunc WithOpPattern(const ir::PrimFunc& func, OpPattern pattern);

// Every PrimFunc of `module` that has no "op_pattern" attribute gets the analyzed one; a
// function that already has one keeps it (a kernel author may know better).
IRModule AnnotateTIROpPattern(const IRModule& module);

}  // namespace kiln::ir::relax::transform
