// Seeded random arguments for a PrimFunc, and the interpreter run on them: what a compiled
// kernel's output is compared with. The same function, dims and seed give the same tensors on
// every machine, so a kernel built elsewhere can be fed exactly the interpreter's inputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/interpreter/interpreter.h"

namespace kiln::ir {

// One argument per parameter of `f`, in order. A buffer parameter gets a compact tensor of its
// shape, with symbolic dims (and shape expressions over them) valued from `dims` by Var name,
// filled by HostTensor::Random with a seed derived from `seed` and the parameter's position
// (floats uniform in [-1, 1), integers in {-1, 0, 1}, an index buffer in the range of
// IndexInputRanges). A scalar parameter takes its value from `dims` by name. Throws
// kiln::Error(kRuntime) naming the parameter when a value is missing.
std::vector<ArgValue> MakeRandomArguments(const PrimFunc& f,
                                          const std::map<std::string, int64_t>& dims,
                                          uint64_t seed);

// The buffer arguments of MakeRandomArguments(f, dims, seed) after Interpret has run on them,
// one per buffer parameter in parameter order (scalar parameters are left out): inputs as
// drawn, outputs as the function computes them.
// The values an integer buffer parameter may hold because they index another buffer (take,
// gather, embedding lookups: `x[idx[i], j]`): for each such parameter (by position in
// f->params), the inclusive range [0, extent - 1] of the smallest axis its loads index, found
// from the accesses of the body with symbolic extents valued from `dims`. Parameters that
// index nothing, or only axes whose extent cannot be valued, are absent.
struct IndexRange {
  int64_t low = 0;
  int64_t high = 0;
};
std::map<size_t, IndexRange> IndexInputRanges(const PrimFunc& f,
                                              const std::map<std::string, int64_t>& dims);

std::vector<HostTensor> RunWithRandomInputs(const PrimFunc& f,
                                            const std::map<std::string, int64_t>& dims,
                                            uint64_t seed);

}  // namespace kiln::ir
