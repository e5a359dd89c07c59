// Helpers of the TVMScript printer (ir/text/printer.cc), kept apart so that the printer file
// holds the layout rules only.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "ir/function.h"

namespace kiln::ir {

// Names a printed variable or buffer must not take (T, Python keywords, builtins).
const std::unordered_set<std::string>& ReservedNames();
// `hint` as a Python identifier: other characters become '_', a leading digit gets "v_", and an
// empty hint is "v".
std::string IdentifierFrom(const std::string& hint);
// A double-quoted Python string literal with escapes.
std::string QuoteString(const std::string& s);
// The shortest decimal text that reads back as exactly `v`; inf and nan as quoted strings.
std::string FloatLiteral(double v);
// The variables `f` uses without defining them (by a loop, a block, a let, or as a parameter
// or a buffer's data), in order of first use: the symbolic shape variables declared with
// `n = T.int32()` (the signature's shape variables first, in parameter order).
std::vector<Var> FreeVars(const PrimFuncNode& f);
// Every variable use in `e`, in order.
std::vector<Var> FreeVarsOf(const Expr& e);
bool ContainsBlock(const Stmt& s);

// Function attribute keys that TVM 0.24 renamed ("tir.noalias" became "tirx.noalias"). Kiln
// keeps the older key in its IR; the parser reads both, the printer writes the dialect's.
struct RenamedAttrKey {
  std::string_view kiln;    // and TVM up to 0.23
  std::string_view tvm024;  // TVM 0.24 and later
};
const std::vector<RenamedAttrKey>& RenamedAttrKeys();

}  // namespace kiln::ir
