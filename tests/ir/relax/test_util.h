// Shorthands shared by the Relax tests.
#pragma once

#include <string>
#include <vector>

#include "ir/relax/op/registry.h"
#include "ir/relax/struct_info.h"

namespace kiln::ir::relax::testing {

inline Var Tensor(const std::string& name, std::vector<PrimExpr> shape,
                  const std::string& dtype = "float32") {
  return Var(name, TensorStructInfo(std::move(shape), dtype));
}

// The struct info of `e` as TVMScript text.
inline std::string Info(const Expr& e) { return e.struct_info().ToString(); }

}  // namespace kiln::ir::relax::testing
