// The registry of host kernels for call_dps_packed.
#include "ir/relax/exec/host_kernels.h"

#include "support/error.h"

namespace kiln::ir::relax::exec {

HostKernelRegistry& HostKernelRegistry::Global() {
  static HostKernelRegistry* registry = new HostKernelRegistry();
  return *registry;
}

void HostKernelRegistry::Register(const std::string& symbol, HostKernel kernel) {
  KILN_CHECK(!symbol.empty() && static_cast<bool>(kernel), ErrorKind::kInternal,
             "HostKernelRegistry: a kernel needs a symbol and a function");
  bool added = kernels_.emplace(symbol, std::move(kernel)).second;
  KILN_CHECK(added, ErrorKind::kInternal,
             "HostKernelRegistry: symbol '" + symbol + "' is registered twice");
}

const HostKernel* HostKernelRegistry::Find(const std::string& symbol) const {
  auto it = kernels_.find(symbol);
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> HostKernelRegistry::Symbols() const {
  std::vector<std::string> out;
  for (const auto& [symbol, kernel] : kernels_) out.push_back(symbol);
  return out;
}

}  // namespace kiln::ir::relax::exec
