// Library functions a compiled model calls by name, as Relax's call_dps_packed does: a kernel
// of the graph that names a library function (GraphKernel::library) instead of a symbol of
// kernels.so. The registry is the one place such functions come from; the CPU's BLAS calls
// register here (library_matmul.h), and later device libraries plug in the same way. The
// loader refuses an artifact that names a function this build does not register.
//
// A function takes only tensors, destination last (DPS), and integer attributes fixed at
// compile time. It validates attributes and dtypes when the artifact is loaded, shapes when a
// plan is made, and is then called with the data; faults are kiln::Error, never a crash.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln::runtime::model {

struct LibraryTensor {
  void* data = nullptr;
  ir::DataType dtype;
  std::vector<int64_t> shape;
};

using LibraryAttrs = std::map<std::string, int64_t>;

struct LibraryFunction {
  std::string name;
  std::string summary;  // one line: what it computes
  // At load time: kiln::Error(kParse) naming `where` and the attribute or argument at fault.
  std::function<void(const LibraryAttrs& attrs, const std::vector<ir::DataType>& dtypes,
                     const std::string& where)>
      check;
  // At plan time, the arguments' concrete shapes: kiln::Error(kRuntime) naming `where`.
  std::function<void(const LibraryAttrs& attrs, const std::vector<std::vector<int64_t>>& shapes,
                     const std::string& where)>
      check_shapes;
  // Computes, on `threads` threads. kiln::Error(kRuntime) when the library reports a fault.
  std::function<void(const LibraryAttrs& attrs, const std::vector<LibraryTensor>& args,
                     int threads)>
      run;
};

// Adds `function` (replacing one of the same name).
void RegisterLibraryFunction(LibraryFunction function);
// The function `name`, or null. The built-in functions are registered on the first call.
const LibraryFunction* FindLibraryFunction(const std::string& name);
// Every registered name, sorted.
std::vector<std::string> LibraryFunctionNames();

}  // namespace kiln::runtime::model
