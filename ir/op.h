// The intrinsic functions a CallNode may name, with their arity and how their result dtype
// follows from the arguments. Front ends, the interpreter and every code generator agree on
// this one list, so an op is either known everywhere or rejected at the edge.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "ir/expr.h"

namespace kiln::ir {

struct IntrinsicInfo {
  std::string_view name;  // as in TVMScript without the "T." prefix: "exp", "pow"
  int num_args;
  bool float_only;  // defined on floating-point arguments only
};

// The list of known intrinsics.
const std::vector<IntrinsicInfo>& Intrinsics();
std::optional<IntrinsicInfo> LookupIntrinsic(std::string_view name);

// T.if_then_else(cond, a, b), a CallNode named kIfThenElse: like Select, but only the chosen
// branch is evaluated, so a branch may read out of bounds where the condition excludes it (TVM
// writes padding so). Its dtype rule differs from the other intrinsics: a bool condition, two
// values of one dtype. Throws kiln::Error(kType) when they do not fit.
inline constexpr std::string_view kIfThenElse = "if_then_else";
Expr IfThenElseCall(Expr condition, Expr true_value, Expr false_value);

}  // namespace kiln::ir
