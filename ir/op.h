// The intrinsic functions a CallNode may name, with their arity and how their result dtype
// follows from the arguments. Front ends, the interpreter and every code generator agree on
// this one list, so an op is either known everywhere or rejected at the edge.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace kiln::ir {

struct IntrinsicInfo {
  std::string_view name;  // as in TVMScript without the "T." prefix: "exp", "pow"
  int num_args;
  bool float_only;  // defined on floating-point arguments only
};

// The list of known intrinsics.
const std::vector<IntrinsicInfo>& Intrinsics();
std::optional<IntrinsicInfo> LookupIntrinsic(std::string_view name);

}  // namespace kiln::ir
