// A tuning job written into a database through its API, as the coordinator or `tune run`
// write one: two tasks (a 128^3 matmul of weight 2 whose TensorIR parses, and a task whose
// stored text does not, so it has no FLOP count), records in a known time order with an error
// among them, and records that belong to another job or to no task of this one. The report
// tests read it back; the expected curves are worked out in tuning_history_test.cc.
#pragma once

#include <cstdint>

#include "database/database.h"

namespace kiln::cli::testing {

inline constexpr double kMatmulFlop = 2.0 * 128 * 128 * 128;

// Returns the job's id.
int64_t WriteExampleJob(database::Database& db);

}  // namespace kiln::cli::testing
