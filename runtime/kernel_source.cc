// GenerateKernel and KernelSymbol.
#include "runtime/kernel_source.h"

#include <cctype>

namespace kiln::runtime {

GeneratedKernel GenerateKernel(const ir::PrimFunc& f, codegen::CodegenTarget& target,
                               const std::string& symbol) {
  GeneratedKernel kernel;
  kernel.lowered = codegen::Lower(f, target.DefaultLowerOptions());
  kernel.source = target.Emit(kernel.lowered, symbol);
  return kernel;
}

std::string KernelSymbol(const ir::PrimFunc& f) {
  std::string symbol = "kiln_";
  for (char c : f->name) {
    symbol += std::isalnum(static_cast<unsigned char>(c)) || c == '_' ? c : '_';
  }
  return symbol;
}

}  // namespace kiln::runtime
