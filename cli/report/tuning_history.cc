// LoadTuningHistory: replays a job's records in measurement order to build its curves.
#include "cli/report/tuning_history.h"

#include <algorithm>
#include <limits>
#include <map>

#include "ir/analysis/flop_count.h"
#include "ir/text/parser.h"
#include "support/error.h"

namespace kiln::cli::report {
namespace {

// One call's FLOP count of the stored workload; 0 when its text does not parse (a workload
// stored by a newer version, say): the report then plots latency instead of a rate.
double WorkloadFlop(database::Database& db, const std::string& hash) {
  std::optional<database::Workload> workload = db.GetWorkload(hash);
  if (!workload) return 0;
  try {
    return ir::EstimateFlops(ir::ParsePrimFunc(workload->tvmscript, workload->name), {});
  } catch (const Error&) {
    return 0;
  }
}

// Appends (x, y) to a step curve unless y repeats the last value; `last` closes the curve.
void Step(Curve& curve, double x, double y) {
  if (!curve.empty() && curve.back().second == y) return;
  curve.emplace_back(x, y);
}

void Close(Curve& curve, double x) {
  if (!curve.empty() && curve.back().first != x) curve.emplace_back(x, curve.back().second);
}

}  // namespace

ReportData LoadTuningHistory(database::Database& db, int64_t job_id) {
  std::optional<database::Job> job = db.GetJob(job_id);
  KILN_CHECK(job.has_value(), ErrorKind::kIO,
             "job " + std::to_string(job_id) + ": no such job in the tuning database");
  ReportData data;
  data.job = *job;
  std::map<std::string, size_t> task_of_hash;
  for (const database::JobTask& t : job->tasks) {
    TaskHistory task;
    task.index = t.index;
    task.name = t.name;
    task.workload_hash = t.workload_hash;
    task.weight = t.weight;
    task.trials_total = t.trials_total;
    task.done = t.trials_total > 0 && t.trials_done >= t.trials_total;
    task.flop = WorkloadFlop(db, t.workload_hash);
    task_of_hash.emplace(t.workload_hash, data.tasks.size());
    data.tasks.push_back(std::move(task));
  }

  database::HistoryQuery query;
  query.job_id = job_id;
  query.limit = std::numeric_limits<int64_t>::max();
  std::vector<database::TuningRecord> records = db.History(query);
  std::stable_sort(records.begin(), records.end(), [](const auto& a, const auto& b) {
    return a.created_unix != b.created_unix ? a.created_unix < b.created_unix : a.id < b.id;
  });

  size_t measured_tasks = 0;
  for (const database::TuningRecord& r : records) {
    auto it = task_of_hash.find(r.workload_hash);
    if (it == task_of_hash.end()) continue;  // not a task of this job's model
    TaskHistory& task = data.tasks[it->second];
    ++data.records;
    ++task.records;
    if (!r.result.ok() || !(r.result.median_seconds > 0)) {
      ++data.errors;
    } else {
      ++task.ok;
      if (!task.best_seconds) ++measured_tasks;
      if (!task.best_seconds || r.result.median_seconds < *task.best_seconds) {
        task.best_seconds = r.result.median_seconds;
      }
    }
    if (task.best_seconds) {
      double y = task.flop > 0 ? task.flop / *task.best_seconds / 1e9 : *task.best_seconds * 1e6;
      Step(task.best_curve, static_cast<double>(task.records), y);
    }
    if (measured_tasks == data.tasks.size()) {
      double total = 0;
      for (const TaskHistory& t : data.tasks)
        total += static_cast<double>(t.weight) * *t.best_seconds;
      data.total_weighted_seconds = total;
      Step(data.model_latency_ms, static_cast<double>(data.records), total * 1e3);
    }
  }
  for (TaskHistory& task : data.tasks) Close(task.best_curve, static_cast<double>(task.records));
  Close(data.model_latency_ms, static_cast<double>(data.records));
  return data;
}

}  // namespace kiln::cli::report
