// A compact, stable text form of TensorIR for the codegen golden tests: one statement per
// line, nesting by indentation, expressions fully parenthesized. It names variables and
// buffers by their name hints, which the tests keep unique.
#pragma once

#include <string>

#include "ir/function.h"

namespace kiln::codegen::testing {

std::string DumpExpr(const ir::Expr& e);
std::string DumpStmt(const ir::Stmt& s);

}  // namespace kiln::codegen::testing
