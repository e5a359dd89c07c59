// The function zoo: named TensorIR functions, built with the compute builder, that tests
// across Kiln run (interpreter, printer and parser, schedules, code generators). Each entry
// has concrete sizes small enough for the interpreter, values for its symbolic dimensions,
// and a plain C++ reference implementation that the tests compare against.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "ir/function.h"
#include "ir/host_tensor.h"

namespace kiln::ir::zoo {

struct ZooEntry {
  std::string name;
  std::function<PrimFunc()> build;
  // The value of each symbolic dimension, by the name of its variable.
  std::map<std::string, int64_t> shape_vars;
  // Computes the outputs from the inputs: one tensor per parameter, in parameter order.
  std::function<void(std::vector<HostTensor>&)> reference;
  // Indices of the parameters the function writes; the others are inputs.
  std::vector<size_t> outputs;
  // Inputs are drawn uniformly from [input_low, input_high) (integers: rounded inward).
  double input_low = -1.0;
  double input_high = 1.0;
};

// Every entry, in a fixed order; names are unique.
const std::vector<ZooEntry>& Zoo();
// The entry named `name`; throws kiln::Error(kInvalidIR) when there is none.
const ZooEntry& ZooLookup(std::string_view name);

// The shape of `buffer` with the symbolic dimensions replaced by their values.
std::vector<int64_t> ConcreteShape(const Buffer& buffer,
                                   const std::map<std::string, int64_t>& shape_vars);
// One tensor per parameter of `f` (entry.build()): inputs random (seed + parameter index),
// outputs zero.
std::vector<HostTensor> MakeArguments(const ZooEntry& entry, const PrimFunc& f, uint64_t seed);
bool IsOutput(const ZooEntry& entry, size_t param);

}  // namespace kiln::ir::zoo
