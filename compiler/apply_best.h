// Apply best: the schedule a compiled model uses for one task. The database's fastest correct
// records for (workload hash, target, device key) are tried in order, each trace replayed on
// the workload (a stored record is the postprocessed trace, which replays alone to the
// function that was measured); the first that replays wins. With no record, or none that
// replays, the workload is used as written: the untuned kernel `tune run` times as its
// baseline.
#pragma once

#include <optional>
#include <string>

#include "database/database.h"
#include "ir/function.h"

namespace kiln::compiler {

struct ChosenSchedule {
  ir::PrimFunc scheduled;
  std::optional<database::TuningRecord> record;  // none: untuned
  std::string note;                              // why a record was passed over, when one was
};

// `db` may be null (everything untuned). How many records are tried: `candidates`.
ChosenSchedule ApplyBest(database::Database* db, const ir::PrimFunc& workload,
                         const std::string& workload_hash, const std::string& target,
                         const std::string& device_key, int candidates = 4);

}  // namespace kiln::compiler
