// A model's inputs as validation needs them: the entry function's parameters with their
// concrete shapes (every dim bound in the prepared module), and seeded values for them, the
// same on every machine (floats in [-1, 1), integers in [0, 1], so that an index stays in
// range).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/module.h"

namespace kiln::validate {

struct EntryParam {
  std::string name;
  ir::DataType dtype;
  std::vector<int64_t> shape;
};

// kiln::Error(kUnsupported) naming the input when one is not a tensor of known dtype and
// concrete shape (a symbolic dim: bind it with --dim).
std::vector<EntryParam> EntryParams(const ir::relax::IRModule& module, const std::string& entry);

ir::HostTensor SeededInput(const EntryParam& param, uint64_t seed);
// One per parameter, the i-th drawn from seed + i.
std::vector<ir::HostTensor> SeededInputs(const std::vector<EntryParam>& params, uint64_t seed);

}  // namespace kiln::validate
