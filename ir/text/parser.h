// Parses TVMScript PrimFuncs (@T.prim_func, optionally inside an @I.ir_module class).
// Errors are kiln::Error(kParse) whose message starts with "SOURCE:LINE:COLUMN: " and says
// what was expected.
#pragma once

#include <string_view>
#include <vector>

#include "ir/function.h"

namespace kiln::ir {

// Exactly one PrimFunc in `text`.
PrimFunc ParsePrimFunc(std::string_view text, std::string_view source_name = "<input>");
// Every PrimFunc in `text` (a file of several, or an IRModule of PrimFuncs), in order.
std::vector<PrimFunc> ParsePrimFuncs(std::string_view text,
                                     std::string_view source_name = "<input>");

}  // namespace kiln::ir
