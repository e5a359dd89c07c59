// The zoo's entries by family; zoo.cc gathers them in this order.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "tests/ir/zoo/zoo.h"

namespace kiln::ir::zoo {

// An entry whose inputs are drawn from [-1, 1).
ZooEntry MakeEntry(std::string name, std::function<PrimFunc()> build,
                   void (*reference)(std::vector<HostTensor>&), std::vector<size_t> outputs,
                   std::map<std::string, int64_t> shape_vars = {});

void AddElementwiseEntries(std::vector<ZooEntry>& entries);
void AddReduceEntries(std::vector<ZooEntry>& entries);
void AddLinearEntries(std::vector<ZooEntry>& entries);
void AddConvPoolEntries(std::vector<ZooEntry>& entries);
void AddNormEntries(std::vector<ZooEntry>& entries);
void AddLayoutEntries(std::vector<ZooEntry>& entries);

}  // namespace kiln::ir::zoo
