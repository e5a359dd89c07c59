// Matching and substituting shape variables in struct info. Calling a function whose
// parameter is R.Tensor((n, 4)) with an argument of R.Tensor((16, 4)) binds n to 16, and the
// call's result is the declared return struct info with n replaced by 16.
#pragma once

#include <utility>
#include <vector>

#include "ir/relax/struct_info.h"

namespace kiln::ir::relax {

// Shape variable -> its value, ordered by first binding.
struct DimBindings {
  std::vector<std::pair<PrimVar, PrimExpr>> pairs;
  const PrimExpr* Find(const PrimVar& v) const;
};

// Binds every shape variable that appears as a whole dim of `pattern` (and is not bound yet)
// to the corresponding dim of `value`.
void BindSymbolicDims(const StructInfo& pattern, const StructInfo& value, DimBindings& bindings);

// `s` with bound shape variables replaced and the dims simplified again.
StructInfo SubstituteDims(const StructInfo& s, const DimBindings& bindings);
PrimExpr SubstituteDim(const PrimExpr& e, const DimBindings& bindings);

}  // namespace kiln::ir::relax
