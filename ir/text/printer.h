// Prints TensorIR as TVMScript (the subset ir/text/parser.h reads), so a TVM user can read
// it and paste it back. ParsePrimFunc(PrintPrimFunc(f)) is structurally equal to f.
#pragma once

#include <string>

#include "ir/function.h"

namespace kiln::ir {

std::string PrintPrimFunc(const PrimFunc& f);
std::string PrintStmt(const Stmt& s);
std::string PrintExpr(const Expr& e);

}  // namespace kiln::ir
