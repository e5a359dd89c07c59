// TuneReportJson: one object per task, then the job's totals.
#include "cli/commands/tune_report_json.h"

#include <cstdio>

namespace kiln::cli {

using json = nlohmann::json;

json TuneReportJson(const search::TuneReport& report) {
  json tasks = json::array();
  for (const auto& t : report.tasks) {
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(t.workload_hash));
    double gflops = t.best_seconds > 0 && t.flop > 0 ? t.flop / t.best_seconds / 1e9 : 0;
    tasks.push_back(
        {{"name", t.name},
         {"workload_hash", hash},
         {"flop", t.flop},
         {"weight", t.weight},
         {"trials", t.trials},
         {"best_latency_s", t.best_seconds > 0 ? json(t.best_seconds) : json()},
         {"best_gflops", t.best_seconds > 0 ? json(gflops) : json()},
         {"untuned_latency_s", t.untuned_seconds > 0 ? json(t.untuned_seconds) : json()},
         {"seeded_latency_s", t.seeded_seconds > 0 ? json(t.seeded_seconds) : json()},
         {"best_trace", t.best_trace ? t.best_trace->ToJSON() : json()},
         {"errors", t.errors},
         {"first_error", t.first_error},
         {"hinted", t.search.hinted},
         {"search_s", t.search.seconds},
         {"starts_from", t.starts_from},
         {"done", t.done},
         {"failure", t.failure}});
  }
  return {{"tasks", tasks},
          {"total_trials", report.total_trials},
          {"wall_s", report.wall_seconds},
          {"search_s", report.search_seconds},
          {"errors", report.errors},
          {"rejected", report.rejected},
          {"finished", report.finished}};
}

}  // namespace kiln::cli
