// JobService: the coordinator's jobs. It answers clients (submit, status, job and worker
// lists, cancel), keeps every job in the database, and runs them one at a time on its own
// thread: the model's tasks are extracted at submit, then the search's Tuner runs over the
// Dispatcher, whose results are stored one transaction per batch. A restarted coordinator
// resumes each unfinished job with the budget it has left and its stored records as seeds;
// candidates of a resumed run are numbered above those already stored, so none is counted
// twice.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <thread>

#include "coordinator/dispatcher.h"
#include "coordinator/server.h"
#include "database/database.h"
#include "search/tuner.h"

namespace kiln::coordinator {

struct JobServiceOptions {
  search::TunerOptions tuner;         // budgets are the job's; the rest is taken as is
  schemas::MeasureSettings settings;  // target is the job's
  // "xgb": XGBoost, loaded from the database per target before a job and saved after it;
  // "none": the search ranks without a model.
  std::string cost_model = "xgb";
  std::function<double()> clock = MonotonicSeconds;
};

class JobService : public ClientHandler {
 public:
  JobService(database::Database& db, Dispatcher& dispatcher, JobServiceOptions options = {});
  ~JobService() override;

  schemas::Message Handle(const schemas::Message& request) override;
  // Starts the thread that runs queued jobs (and resumes those left running by a restart).
  void Start();
  void Stop();

  // Stores a new job from a submit request (tasks extracted, workloads committed).
  int64_t SubmitJob(const schemas::SubmitMsg& submit);
  // Runs one job to its end on the calling thread (what the runner thread does per job).
  void RunJob(int64_t job_id);

 private:
  void RunLoop();
  void Finish();  // after a job's run, however it ended
  schemas::JobEventMsg Event(const database::Job& job);

  database::Database& db_;
  Dispatcher& dispatcher_;
  JobServiceOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int64_t running_job_ = 0;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace kiln::coordinator
