// What `tune report` shows, read from the tuning database: a job's tasks with their best
// results, and the tuning curves (per task, best GFLOP/s after each of its trials; for the
// model, the estimated latency, sum over tasks of weight x best latency, after each trial of
// the job). The records are put in the order they were measured (creation time, then id).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "database/database.h"

namespace kiln::cli::report {

// (x, y) points of a step curve: one point where the value changes and one at the last trial.
using Curve = std::vector<std::pair<double, double>>;

struct TaskHistory {
  int index = 0;
  std::string name;
  std::string workload_hash;
  double weight = 1;
  double flop = 0;           // one call's operation count; 0 when the workload could not be read
  int64_t trials_total = 0;  // the task's budget
  int64_t records = 0;       // measured candidates of this job
  int64_t ok = 0;
  bool done = false;
  std::optional<double> best_seconds;
  // x: the task's trial number (1 is its first measured candidate). With a FLOP count, y is
  // the best GFLOP/s so far; without one, the best latency in microseconds.
  Curve best_curve;
};

struct ReportData {
  database::Job job;
  std::vector<TaskHistory> tasks;
  int64_t records = 0;  // of the job, all tasks
  int64_t errors = 0;
  // x: the job's trial number; y: estimated model latency in milliseconds, from the first trial
  // at which every task has a correct measurement.
  Curve model_latency_ms;
  // Sum of weight x best latency, when every task has a result.
  std::optional<double> total_weighted_seconds;
};

// kiln::Error(kIO) naming the job when the database has no job `job_id`.
ReportData LoadTuningHistory(database::Database& db, int64_t job_id);

}  // namespace kiln::cli::report
