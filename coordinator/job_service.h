// JobService: the coordinator's jobs. It answers clients (submit, status, job and worker
// lists, cancel), keeps every job in the database, and runs them one at a time on its own
// thread: the model's tasks are extracted at submit, then the search's Tuner runs over the
// Dispatcher, whose results are stored one transaction per batch. A job waits for a worker
// of its target and searches a design space fitted to that worker's device (vector width,
// cores, from its registration). Each task's search is seeded with the best stored records
// of its workload on that target and device, from earlier jobs and from this job's earlier
// runs: a restarted coordinator resumes each unfinished job with the budget it has left, and
// candidates of a resumed run are numbered above those already stored, so none is counted
// twice. Progress goes out as job events to whoever subscribed (the server streams them).
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "coordinator/dispatcher.h"
#include "coordinator/server.h"
#include "coordinator/submit_limits.h"
#include "database/database.h"
#include "search/tuner.h"

namespace kiln::coordinator {

struct JobServiceOptions {
  search::TunerOptions tuner;         // budgets are the job's; the rest is taken as is
  schemas::MeasureSettings settings;  // target is the job's
  // "xgb": XGBoost, loaded from the database per target before a job and saved after it;
  // "random": random scores; "none": the search ranks without a model. A job may choose.
  std::string cost_model = "xgb";
  std::function<double()> clock = MonotonicSeconds;
  double min_event_interval_s = 0.1;  // progress events of a job at most this often
  SubmitLimits limits;                // what a client's submission may ask
};

// A job whose tasks the caller extracted (the embedded `tune run`, which binds dims and
// reads TensorIR files itself).
struct JobSpec {
  struct Task {
    std::string name;
    ir::PrimFunc func;
    double weight = 1;  // calls per model run (times the bucket's weight)
  };
  std::string model;       // a path or a name
  std::string model_text;  // kept with the job
  std::string target = "llvm";
  std::string device;  // a device key; empty: any worker of the target
  int64_t trials = 0;
  nlohmann::json options = nlohmann::json::object();  // coordinator/job_options.h
  std::string client;  // who submitted it (ClientContext); empty: no client's (`tune run`)
  std::vector<Task> tasks;
};

class JobService : public ClientHandler {
 public:
  JobService(database::Database& db, Dispatcher& dispatcher, JobServiceOptions options = {});
  ~JobService() override;

  schemas::Message Handle(const schemas::Message& request, const ClientContext& context) override;
  // Starts the thread that runs queued jobs (and resumes those left running by a restart).
  void Start();
  void Stop();

  // Stores a new job of `client` from a submit request (tasks extracted, workloads committed,
  // options validated: kiln::Error(kParse) naming the option; one past options.limits, the
  // client's jobs counted apart from every client's, is refused before anything is stored,
  // naming the limit).
  int64_t SubmitJob(const schemas::SubmitMsg& submit, const std::string& client = kAnonymousClient);
  int64_t SubmitJob(const JobSpec& spec);
  // Runs one job to its end on the calling thread (what the runner thread does per job).
  void RunJob(int64_t job_id);
  // Marks an unfinished job cancelled with `reason` and interrupts its running batch, so that
  // RunJob returns soon; what was measured stays stored. False when the job had finished.
  // kiln::Error(kParse) when there is no such job.
  bool Cancel(int64_t job_id, const std::string& reason);

  // Called with every progress report of a running job, and with the last (finished set),
  // on the thread that runs the job.
  using ReportObserver = std::function<void(int64_t job_id, const search::TuneReport&)>;
  void SetReportObserver(ReportObserver observer);
  // Called with a job's event whenever it changes (throttled while it runs; every change of
  // state goes out), on the thread that made the change.
  using EventSink = std::function<void(const schemas::JobEventMsg&)>;
  void SetEventSink(EventSink sink);

 private:
  struct TaskExtra {  // what the database does not keep: for the events' task table
    double flop = 0;
    double untuned_seconds = 0;
    bool done = false;
  };
  void RunLoop();
  void Finish();  // after a job's run, however it ended
  schemas::JobEventMsg Event(const database::Job& job);
  void Publish(int64_t job_id, bool force);
  // Waits for a live worker of the job's target and device; none when the job was
  // cancelled or the service is stopping meanwhile.
  std::optional<std::vector<schemas::RegisterMsg>> WaitForWorkers(const database::Job& job);

  database::Database& db_;
  Dispatcher& dispatcher_;
  JobServiceOptions options_;
  std::mutex mutex_;
  std::condition_variable wake_;
  int64_t running_job_ = 0;
  bool stop_ = false;
  std::thread thread_;
  std::mutex observers_mutex_;
  ReportObserver observer_;
  EventSink event_sink_;
  std::map<int64_t, std::vector<TaskExtra>> extras_;
  std::map<int64_t, double> started_;  // job -> clock() when its current run started
  double last_event_ = -1e9;
};

}  // namespace kiln::coordinator
