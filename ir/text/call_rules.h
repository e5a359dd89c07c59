// The dtype rule for T.<intrinsic>(...) calls, shared by the parser (which builds the call) and
// the printer (which prints the short form only when the parser would rebuild the same node).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "ir/expr.h"

namespace kiln::ir {

// The result dtype of intrinsic `name` (see ir/op.h) applied to `args`, or nullopt with
// `*error` saying why the call is not valid (unknown name, arity, argument dtypes).
std::optional<DataType> IntrinsicResultType(const std::string& name, const std::vector<Expr>& args,
                                            std::string* error);

}  // namespace kiln::ir
