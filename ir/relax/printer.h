// Readable dumps of Relax IR for tests and error messages: the TVMScript text of
// ir/relax/text/printer.h with the metadata section left out, so that large constants show
// as metadata references and a dump stays short. The functions live in kiln_ir_relax_text.
// Text meant to be parsed back comes from PrintModule in ir/relax/text/printer.h.
#pragma once

#include <string>

#include "ir/relax/module.h"

namespace kiln::ir::relax {

std::string DebugPrint(const IRModule& module);
std::string DebugPrint(const Function& func, const std::string& name = "main");
// One expression, with variables by name.
std::string DebugPrint(const Expr& expr);

}  // namespace kiln::ir::relax
