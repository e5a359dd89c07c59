// Debug dumps: the TVMScript printer without the metadata section.
#include "ir/relax/printer.h"

#include "ir/relax/text/printer.h"

namespace kiln::ir::relax {

namespace {

PrintOptions DumpOptions() {
  PrintOptions options;
  options.show_metadata = false;
  return options;
}

}  // namespace

std::string DebugPrint(const IRModule& module) { return PrintModule(module, DumpOptions()); }

std::string DebugPrint(const Function& func, const std::string& name) {
  return PrintFunction(func, name, DumpOptions());
}

std::string DebugPrint(const Expr& expr) { return PrintExpr(expr); }

}  // namespace kiln::ir::relax
