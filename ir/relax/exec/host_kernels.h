// Host kernels for R.call_dps_packed in the reference executor: a small registry from a
// library symbol ("cblas.sgemm") to a C++ function that computes in destination-passing style,
// reading its inputs and writing the outputs the executor allocated. A graph that calls a
// symbol with no kernel here fails with an error naming the symbol, never with a guess.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/exec/value.h"

namespace kiln::ir::relax::exec {

// `inputs` are the call's argument values (tensors or scalars); `outputs` are freshly
// allocated tensors of the call's declared output struct info, to be filled.
using HostKernel =
    std::function<void(const std::vector<Value>& inputs, std::vector<HostTensor>& outputs)>;

class HostKernelRegistry {
 public:
  // The registry the executor uses unless it is given another.
  static HostKernelRegistry& Global();
  // Throws kiln::Error(kInternal) when `symbol` already has a kernel.
  void Register(const std::string& symbol, HostKernel kernel);
  // nullptr when `symbol` has none.
  const HostKernel* Find(const std::string& symbol) const;
  std::vector<std::string> Symbols() const;  // sorted

 private:
  std::map<std::string, HostKernel> kernels_;
};

}  // namespace kiln::ir::relax::exec
