// Top records first; a record whose trace no longer replays is passed over with a note.
#include "compiler/apply_best.h"

#include <nlohmann/json.hpp>

#include "search/schedule/trace.h"
#include "support/error.h"

namespace kiln::compiler {

ChosenSchedule ApplyBest(database::Database* db, const ir::PrimFunc& workload,
                         const std::string& workload_hash, const std::string& target,
                         const std::string& device_key, int candidates) {
  ChosenSchedule chosen;
  chosen.scheduled = workload;
  if (db == nullptr) return chosen;
  for (database::TuningRecord& record : db->TopK(workload_hash, target, device_key, candidates)) {
    try {
      nlohmann::json json = nlohmann::json::parse(record.trace_json);
      search::Trace trace = search::Trace::FromJSON(json);
      chosen.scheduled = search::ReplayTrace(workload, trace);
      chosen.record = std::move(record);
      return chosen;
    } catch (const std::exception& e) {
      chosen.note += (chosen.note.empty() ? "" : "; ") + std::string("record ") +
                     std::to_string(record.id) + " does not replay: " + e.what();
    }
  }
  chosen.scheduled = workload;
  return chosen;
}

}  // namespace kiln::compiler
