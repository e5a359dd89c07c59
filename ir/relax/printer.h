// A readable TVMScript-like dump of Relax modules, functions and expressions, for tests and
// debugging. It is not the round-tripping TVMScript printer: PrimFuncs appear as their
// signature only, constants as their dtype and shape.
#pragma once

#include <string>

#include "ir/relax/module.h"

namespace kiln::ir::relax {

std::string DebugPrint(const IRModule& module);
std::string DebugPrint(const Function& func, const std::string& name = "main");
// One expression, with variables by name.
std::string DebugPrint(const Expr& expr);

}  // namespace kiln::ir::relax
