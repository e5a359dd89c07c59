// What running a function in the reference interpreter costs, estimated from its loop nest
// without running it. The measurement pipeline uses it to decide whether a workload's
// reference outputs can come from the interpreter directly (it runs a few million stores a
// second) or need the reduced check of runtime/output_window.h.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "ir/arith/analyzer.h"
#include "ir/function.h"

namespace kiln::runtime {

// The number of buffer stores one call of `f` executes: for each store, the product of the
// extents of the loops around it (the largest extent where one depends on an outer loop;
// guards are ignored, so this is an upper bound). Symbolic dimensions and scalar parameters
// take their values from `dims` by name. Saturates at INT64_MAX; nullopt when an extent has
// no bound (a dimension missing from `dims`).
std::optional<int64_t> EstimateInterpreterCost(const ir::PrimFunc& f,
                                               const std::map<std::string, int64_t>& dims);

// Binds, in `analyzer`, every variable of `f`'s parameter shapes and every scalar parameter
// whose name has a value in `dims`.
void BindDims(const ir::PrimFunc& f, const std::map<std::string, int64_t>& dims,
              ir::arith::Analyzer& analyzer);

}  // namespace kiln::runtime
