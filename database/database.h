// Database: the tuning database as the coordinator, the search loop and the CLI see it.
// Workloads (a task's unscheduled TensorIR, identified by its structural hash) and tuning
// records (one measured trace of a workload on a target and a device key) are kept apart, as
// TVM's JSON database keeps them; jobs and their tasks carry budgets and progress so that a
// restarted coordinator resumes them; cost models are kept per target as opaque bytes.
// Records are keyed by (workload, target, device key): a database filled on one device never
// answers for another. sqlite_database.h is the implementation.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/measure_result.h"

namespace kiln::database {

struct Workload {
  std::string hash;       // ir::StructuralHashHex of the unscheduled function
  std::string name;       // the task name it was first committed with
  std::string tvmscript;  // the function's TensorIR text
};

struct TuningRecord {
  int64_t id = 0;  // assigned by CommitRecords
  std::string workload_hash;
  std::string target;      // codegen target name ("llvm")
  std::string device;      // device key ("cpu-zen4")
  std::string trace_json;  // the trace, MetaSchedule's JSON shape
  runtime::MeasureResult result;
  std::string worker;        // who measured it
  double created_unix = 0;   // seconds since the epoch; 0 at commit means now
  int64_t job_id = 0;        // 0 when the record belongs to no job
  int64_t candidate_id = 0;  // unique within a job; a repeated (job, candidate) is ignored
};

enum class JobState { kQueued, kRunning, kDone, kFailed, kCancelled };
// "queued", "running", "done", "failed", "cancelled": the names of `tune status --json`.
std::string_view JobStateName(JobState state);
std::optional<JobState> ParseJobState(std::string_view name);
// Done, failed and cancelled jobs never run again.
bool IsFinished(JobState state);

struct JobTask {
  int index = 0;
  std::string name;
  std::string workload_hash;
  double weight = 1;         // calls per (weighted) model run
  int64_t trials_total = 0;  // the task's budget
  int64_t trials_done = 0;
  std::optional<double> best_seconds;
};

struct Job {
  int64_t id = 0;
  std::string model;       // what the user submitted (a path or a name)
  std::string model_text;  // the model itself, so that a restart does not need the file
  std::string target;
  std::string device;        // the device key measured on; empty: any worker of the target
  std::string options_json;  // submit options the job runs with ("{}" when none)
  // Who submitted it: the client's CurveZMQ public key (Z85), "anonymous" from a coordinator
  // without keys; empty for a job not submitted by a client (the embedded `tune run`) and for
  // jobs stored before clients were recorded (schema version 2).
  std::string client;
  JobState state = JobState::kQueued;
  std::string error;  // why it failed
  int64_t trials_total = 0;
  int64_t trials_done = 0;
  double created_unix = 0;
  double updated_unix = 0;
  std::vector<JobTask> tasks;
};

// One row of `tune db list`: a workload measured on a target and device.
struct WorkloadSummary {
  std::string hash;
  std::string name;
  std::string target;
  std::string device;
  int64_t records = 0;
  std::optional<double> best_seconds;  // fastest ok record; none when every one failed
};

// What a job's records say, per task and over all (`tune status` and the metrics).
struct JobStatistics {
  int64_t records = 0;
  int64_t ok = 0;
  std::vector<std::pair<std::string, int64_t>> errors_by_kind;  // kind name, count
  std::optional<double> best_seconds;
  int64_t max_candidate_id = 0;  // a resumed job numbers its candidates above it
};

struct HistoryQuery {
  std::string workload_hash = {};  // empty: every workload
  std::string target = {};         // empty: every target
  std::string device = {};         // empty: every device
  int64_t job_id = 0;              // 0: every job
  int64_t limit = 100;             // newest first
};

class Database {
 public:
  virtual ~Database() = default;

  // Adds the workload unless its hash is already there; either way returns true when it
  // was new.
  virtual bool CommitWorkload(const Workload& workload) = 0;
  virtual std::optional<Workload> GetWorkload(const std::string& hash) = 0;

  // Adds the records in one transaction and returns how many were new: a record of a
  // (job, candidate) already stored is skipped, so that a candidate measured twice (its
  // worker was declared lost, then answered) is counted once. Every record's workload must
  // have been committed: kiln::Error(kInvalidIR) naming the hash otherwise, and nothing of
  // the batch is stored.
  virtual int64_t CommitRecords(std::vector<TuningRecord>& records) = 0;
  // The `k` fastest ok records of a workload on a target and device, fastest first.
  virtual std::vector<TuningRecord> TopK(const std::string& workload_hash,
                                         const std::string& target, const std::string& device,
                                         int64_t k) = 0;
  virtual std::vector<TuningRecord> History(const HistoryQuery& query) = 0;
  virtual std::vector<WorkloadSummary> ListWorkloads() = 0;
  virtual int64_t CountRecords() = 0;

  // Stores a new job with its tasks and returns its id (also written to `job.id`).
  virtual int64_t CreateJob(Job& job) = 0;
  virtual std::optional<Job> GetJob(int64_t id) = 0;
  // Every job, newest first; with `unfinished_only`, the queued and running ones oldest
  // first (the order a restarted coordinator resumes them in).
  virtual std::vector<Job> ListJobs(bool unfinished_only = false) = 0;
  // The queued and running jobs, counted without reading them (each holds its model): of
  // every client, or of one (Job::client).
  virtual int64_t CountUnfinishedJobs() = 0;
  virtual int64_t CountUnfinishedJobs(const std::string& client) = 0;
  // kiln::Error(kIO) naming the job when it does not exist.
  virtual void SetJobState(int64_t id, JobState state, const std::string& error = {}) = 0;
  // Sets a task's progress and recomputes its job's trials_done.
  virtual void SetTaskProgress(int64_t job_id, int task_index, int64_t trials_done,
                               std::optional<double> best_seconds) = 0;
  virtual JobStatistics GetJobStatistics(int64_t job_id) = 0;

  virtual void SaveCostModel(const std::string& target, const std::vector<uint8_t>& bytes) = 0;
  virtual std::optional<std::vector<uint8_t>> LoadCostModel(const std::string& target) = 0;
};

}  // namespace kiln::database
