// JobService: submit, status, cancel, events, and the job runner over the Tuner and the
// Dispatcher.
#include "coordinator/job_service.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "compiler/sparse/model_task_reference.h"
#include "coordinator/job_options.h"
#include "cost_model/random_cost_model.h"
#include "cost_model/xgb_cost_model.h"
#include "ir/analysis/flop_count.h"
#include "ir/model/model_tasks.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/space/design_space.h"
#include "support/error.h"
#include "support/log_format.h"
#include "support/logging.h"

namespace kiln::coordinator {
namespace {

// Why a task found no correct candidate: the search's reason, else its first failed measurement.
std::string TaskFailure(const search::TaskReport& t) {
  if (!t.failure.empty()) return t.failure;
  if (!t.first_error.empty()) {
    return std::to_string(t.trials) + " candidates failed, the first with " + t.first_error;
  }
  return t.trials == 0 ? "no candidate was measured" : "no candidate measured correctly";
}

// The job's error when no task has a correct candidate (this run's or a stored one), naming the
// first three tasks and why; empty when some task has one. Results a device measured without
// checking them (the fake device of the service's scale tests) are no failure of the job.
std::string AllTasksFailed(const search::TuneReport& report,
                           const std::vector<database::JobTask>& stored) {
  for (size_t i = 0; i < report.tasks.size(); ++i) {
    if (report.tasks[i].best_seconds > 0 || report.tasks[i].errors.count("unchecked")) return "";
    if (i < stored.size() && stored[i].best_seconds) return "";
  }
  if (report.tasks.empty()) return "";
  std::string out = "every task failed";
  for (size_t i = 0; i < report.tasks.size() && i < 3; ++i) {
    out += (i == 0 ? ": " : "; ") + report.tasks[i].name + ": " + TaskFailure(report.tasks[i]);
  }
  if (report.tasks.size() > 3) out += "; and " + std::to_string(report.tasks.size() - 3) + " more";
  return out;
}

// Each sparse task of `job` (a GNN aggregation imported as CSR SpMM) measured against the real
// structure its model passes as constants: the model is specialised again as at submit, and a
// task whose workload it no longer yields (a TensorIR file's kernel) keeps the seeded inputs.
// A task whose structure is an input of the model is not searched (TuneTask::untunable).
void AttachSparseReferences(const database::Job& job, std::vector<search::TuneTask>& tasks) {
  bool any = false;
  for (const search::TuneTask& t : tasks) any |= compiler::sparse::IsSparseKernel(t.workload);
  if (!any) return;
  ir::model::ModelTasks model;
  try {
    model = ir::model::ExtractModelTasks(
        job.model, job.model_text,
        ModelTaskOptionsOf(ParseJobOptions(nlohmann::json::parse(job.options_json))));
  } catch (const Error& e) {
    KILN_LOG_WARN("job {}: the sparse tasks get no reference: {}", job.id, e.what());
    return;
  }
  for (search::TuneTask& t : tasks) {
    if (!compiler::sparse::IsSparseKernel(t.workload) || t.reference) continue;
    for (const ir::model::ModelTask& m : model.tasks) {
      if (!ir::StructuralEqual(m.func, t.workload)) continue;
      t.reference = compiler::sparse::ModelTaskReference(m.func, m.constant_index_args);
      break;
    }
    if (!t.reference) {
      // Its structure is an input of the model: random indices would read out of range, so
      // nothing measured on them would say anything. The compiled model runs it as written.
      t.untunable =
          "a sparse kernel whose structure (indptr, indices) is an input of the model, not a "
          "constant: it cannot be measured on random inputs and runs untuned (make the "
          "structure a constant of the model to tune it)";
    }
  }
}

// The task's design space: the target's preset, or for a sparse kernel its sparse preset (the
// dense rules refuse data-dependent loops).
search::DesignSpace SpaceOf(const std::string& preset, const search::TuneContext& context) {
  if (!compiler::sparse::IsSparseKernel(context.workload)) return search::MakeDesignSpace(preset);
  return search::MakeDesignSpace(search::IsGpuPreset(preset) ? "sparse-gpu" : "sparse-cpu");
}

}  // namespace

JobService::JobService(database::Database& db, Dispatcher& dispatcher, JobServiceOptions options)
    : db_(db), dispatcher_(dispatcher), options_(std::move(options)) {}

JobService::~JobService() { Stop(); }

void JobService::Start() {
  std::lock_guard lock(mutex_);
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { RunLoop(); });
}

void JobService::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  dispatcher_.Interrupt();  // unwinds a running job; it stays running in the database
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void JobService::SetReportObserver(ReportObserver observer) {
  std::lock_guard lock(observers_mutex_);
  observer_ = std::move(observer);
}

void JobService::SetEventSink(EventSink sink) {
  std::lock_guard lock(observers_mutex_);
  event_sink_ = std::move(sink);
}

int64_t JobService::SubmitJob(const schemas::SubmitMsg& submit, const std::string& client) {
  nlohmann::json options = nlohmann::json::parse(submit.options, nullptr, false);
  KILN_CHECK(options.is_object(), ErrorKind::kParse, "submit: options are not a JSON object");
  // The model is specialised as `tune run` does: its symbolic dims bound (dims, default_dim)
  // and one specialisation per shape bucket, a task shared by buckets tuned once.
  JobOptions job_options = ParseJobOptions(options);
  auto trials = static_cast<int64_t>(std::min<uint64_t>(submit.trials, 1ull << 62));
  CheckSubmitRequest(options_.limits, static_cast<int64_t>(submit.model_bytes.size()), trials,
                     job_options, client,
                     {db_.CountUnfinishedJobs(), db_.CountUnfinishedJobs(client)});
  ir::model::ModelTasks tasks = ir::model::ExtractModelTasks(submit.model, submit.model_bytes,
                                                             ModelTaskOptionsOf(job_options));
  CheckSubmitTasks(options_.limits, static_cast<int64_t>(tasks.tasks.size()));
  if (!tasks.defaulted.empty()) {
    // Stored with the job, so that what was tuned is on record.
    for (const auto& [dim, value] : tasks.defaulted) options["dims"][dim] = value;
    LogEvent(spdlog::level::info,
             "submit " + submit.model + ": symbolic dims bound to " + tasks.DefaultedText(),
             {{"model", submit.model}, {"defaulted", tasks.defaulted}});
  }
  JobSpec spec;
  spec.model = submit.model;
  spec.model_text = submit.model_bytes;
  spec.target = submit.target;
  spec.device = submit.device;
  spec.trials = trials;
  spec.options = std::move(options);
  spec.client = client;
  for (size_t i = 0; i < tasks.tasks.size(); ++i) {
    spec.tasks.push_back({tasks.TaskLabel(i), tasks.tasks[i].func, tasks.tasks[i].weight});
  }
  return SubmitJob(spec);
}

int64_t JobService::SubmitJob(const JobSpec& spec) {
  KILN_CHECK(spec.trials > 0 && spec.trials <= 10'000'000, ErrorKind::kParse,
             "submit: trials must be in 1..10000000, not " + std::to_string(spec.trials));
  // Validated here, so that a bad option is the submit's error, not the job's failure.
  JobOptions job_options = ParseJobOptions(spec.options);
  KILN_CHECK(!spec.tasks.empty(), ErrorKind::kUnsupported,
             "submit: " + spec.model + " has no kernels to tune");
  database::Job job;
  job.model = spec.model;
  job.model_text = spec.model_text;
  job.target = spec.target;
  job.device = spec.device;
  job.options_json = JobOptionsToJson(job_options).dump();
  job.trials_total = spec.trials;
  job.client = spec.client;
  int64_t share = (job.trials_total + static_cast<int64_t>(spec.tasks.size()) - 1) /
                  static_cast<int64_t>(spec.tasks.size());
  for (size_t i = 0; i < spec.tasks.size(); ++i) {
    const JobSpec::Task& task = spec.tasks[i];
    std::string hash = ir::StructuralHashHex(task.func);
    db_.CommitWorkload({hash, task.name, ir::PrintPrimFunc(task.func)});
    job.tasks.push_back(
        {static_cast<int>(i), task.name, hash, task.weight, share, 0, std::nullopt});
  }
  int64_t id = db_.CreateJob(job);
  LogEvent(spdlog::level::info, "job " + std::to_string(id) + " submitted: " + spec.model,
           {{"job", id},
            {"model", spec.model},
            {"tasks", spec.tasks.size()},
            {"trials", spec.trials},
            {"target", spec.target},
            {"client", spec.client},
            {"options", JobOptionsToJson(job_options)}});
  wake_.notify_all();
  return id;
}

schemas::JobEventMsg JobService::Event(const database::Job& job) {
  schemas::JobEventMsg e;
  e.job_id = static_cast<uint64_t>(job.id);
  e.state = std::string(database::JobStateName(job.state));
  e.trials_done = static_cast<uint64_t>(job.trials_done);
  e.trials_total = static_cast<uint64_t>(job.trials_total);
  e.message = job.error;
  e.model = job.model;
  e.target = job.target;
  e.client = ClientLabel(job.client);
  std::vector<TaskExtra> extras;
  {
    std::lock_guard lock(observers_mutex_);
    if (auto it = extras_.find(job.id); it != extras_.end()) extras = it->second;
    if (auto it = started_.find(job.id); it != started_.end()) {
      e.elapsed_s = options_.clock() - it->second;
    }
  }
  for (const database::JobTask& t : job.tasks) {
    schemas::TaskProgressMsg p{
        static_cast<uint32_t>(t.index),       t.name,
        static_cast<uint64_t>(t.trials_done), static_cast<uint64_t>(t.trials_total),
        t.best_seconds.value_or(0),           static_cast<double>(t.weight)};
    if (static_cast<size_t>(t.index) < extras.size()) {
      const TaskExtra& x = extras[static_cast<size_t>(t.index)];
      p.flop = x.flop;
      p.untuned_seconds = x.untuned_seconds;
      p.done = x.done;
    }
    p.done = p.done || database::IsFinished(job.state);
    e.tasks.push_back(std::move(p));
  }
  return e;
}

void JobService::Publish(int64_t job_id, bool force) {
  EventSink sink;
  {
    std::lock_guard lock(observers_mutex_);
    if (!event_sink_) return;
    double now = options_.clock();
    if (!force && now - last_event_ < options_.min_event_interval_s) return;
    last_event_ = now;
    sink = event_sink_;
  }
  try {
    if (std::optional<database::Job> job = db_.GetJob(job_id)) sink(Event(*job));
  } catch (const std::exception& e) {
    KILN_LOG_WARN("job {}: event not sent: {}", job_id, e.what());
  }
}

bool JobService::Cancel(int64_t job_id, const std::string& reason) {
  std::optional<database::Job> job;
  {
    // Stored and checked against the running job under the lock RunJob starts a job under, so
    // that a cancel landing while the job is prepared is never overwritten or missed.
    std::lock_guard lock(mutex_);
    job = db_.GetJob(job_id);
    KILN_CHECK(job.has_value(), ErrorKind::kParse, "cancel: no job " + std::to_string(job_id));
    if (database::IsFinished(job->state)) return false;
    db_.SetJobState(job->id, database::JobState::kCancelled, reason);
    if (running_job_ == job->id) dispatcher_.Interrupt();
  }
  KILN_LOG_INFO("job {}: {}", job->id, reason);
  Publish(job->id, true);
  return true;
}

schemas::Message JobService::Handle(const schemas::Message& request, const ClientContext& context) {
  if (const auto* submit = std::get_if<schemas::SubmitMsg>(&request)) {
    int64_t id = 0;
    try {
      id = SubmitJob(*submit, context.client);
    } catch (const Error& e) {
      // The client reads the refusal; the log keeps who was refused.
      KILN_LOG_INFO("submit of {} by client {}: {}", submit->model, ClientLabel(context.client),
                    e.what());
      throw;
    }
    Publish(id, true);
    return schemas::SubmittedMsg{static_cast<uint64_t>(id)};
  }
  if (const auto* cancel = std::get_if<schemas::CancelMsg>(&request)) {
    int64_t id = static_cast<int64_t>(cancel->job_id);
    Cancel(id, "cancelled by a client");
    return Event(*db_.GetJob(id));
  }
  const auto* query = std::get_if<schemas::QueryMsg>(&request);
  KILN_CHECK(query != nullptr, ErrorKind::kUnsupported,
             std::string("not a client request: ") + schemas::MessageName(request));
  switch (query->kind) {
    case schemas::QueryMsg::Kind::kJobStatus:
    case schemas::QueryMsg::Kind::kWatch: {
      std::optional<database::Job> job = db_.GetJob(static_cast<int64_t>(query->job_id));
      KILN_CHECK(job.has_value(), ErrorKind::kParse, "no job " + std::to_string(query->job_id));
      return Event(*job);
    }
    case schemas::QueryMsg::Kind::kListJobs: {
      schemas::JobListMsg list;
      for (const database::Job& job : db_.ListJobs()) list.jobs.push_back(Event(job));
      return list;
    }
    case schemas::QueryMsg::Kind::kListWorkers:
      return schemas::WorkerListMsg{dispatcher_.Workers(options_.clock())};
  }
  throw Error(ErrorKind::kInternal, "JobService: unhandled query");
}

void JobService::RunLoop() {
  while (true) {
    std::optional<database::Job> next;
    {
      std::unique_lock lock(mutex_);
      if (stop_) return;
    }
    try {
      std::vector<database::Job> unfinished = db_.ListJobs(true);
      if (!unfinished.empty()) next = unfinished.front();
    } catch (const Error& e) {
      KILN_LOG_ERROR("job runner: {}", e.what());
    }
    if (next) {
      RunJob(next->id);
      continue;
    }
    std::unique_lock lock(mutex_);
    wake_.wait_for(lock, std::chrono::milliseconds(200), [&] { return stop_; });
  }
}

void JobService::Finish() {
  dispatcher_.SetSink({});
  dispatcher_.DropAll();
  std::lock_guard lock(mutex_);
  running_job_ = 0;
}

std::optional<std::vector<schemas::RegisterMsg>> JobService::WaitForWorkers(
    const database::Job& job) {
  bool said = false;
  while (true) {
    std::vector<schemas::RegisterMsg> workers = dispatcher_.MatchingWorkers(job.target, job.device);
    if (!workers.empty()) return workers;
    if (!said) {
      KILN_LOG_INFO("job {} waits for a worker of target {}{}", job.id, job.target,
                    job.device.empty() ? "" : " and device " + job.device);
      said = true;
    }
    std::optional<database::Job> now = db_.GetJob(job.id);
    if (!now || database::IsFinished(now->state)) return std::nullopt;
    std::unique_lock lock(mutex_);
    if (wake_.wait_for(lock, std::chrono::milliseconds(50), [&] { return stop_; })) {
      return std::nullopt;
    }
  }
}

void JobService::RunJob(int64_t job_id) {
  std::optional<database::Job> loaded = db_.GetJob(job_id);
  if (!loaded || database::IsFinished(loaded->state)) return;
  database::Job job = *loaded;
  try {
    // What earlier runs of this job measured: the budget left, and seeds for the search.
    std::vector<database::TuningRecord> done = db_.History({.job_id = job_id, .limit = 1 << 30});
    int64_t left = job.trials_total - static_cast<int64_t>(done.size());
    int64_t id_base = db_.GetJobStatistics(job_id).max_candidate_id;
    {
      // A cancel stored since the job was read stays (Cancel holds the same lock).
      std::lock_guard lock(mutex_);
      std::optional<database::Job> now = db_.GetJob(job_id);
      if (!now || database::IsFinished(now->state)) return;
      db_.SetJobState(job_id, database::JobState::kRunning);
    }
    if (left <= 0) {
      db_.SetJobState(job_id, database::JobState::kDone);
      Publish(job_id, true);
      return;
    }
    search::TunerOptions tuner = options_.tuner;
    schemas::MeasureSettings settings = options_.settings;
    std::string cost_model_kind = options_.cost_model;
    ApplyJobOptions(ParseJobOptions(nlohmann::json::parse(job.options_json)), tuner, settings,
                    cost_model_kind);
    settings.target = job.target;
    tuner.max_trials_global = left;
    tuner.target = job.target;

    // The design space fits the device that will run the job: the narrowest vector register
    // and the fewest cores among the workers that may measure it.
    std::optional<std::vector<schemas::RegisterMsg>> workers = WaitForWorkers(job);
    if (!workers) return;
    uint32_t vector_bytes = 0;
    uint32_t cores = 0;
    for (const schemas::RegisterMsg& w : *workers) {
      if (w.vector_bytes > 0)
        vector_bytes = vector_bytes ? std::min(vector_bytes, w.vector_bytes) : w.vector_bytes;
      if (w.num_cores > 0) cores = cores ? std::min(cores, w.num_cores) : w.num_cores;
    }
    if (vector_bytes > 0) tuner.vector_bytes = static_cast<int>(vector_bytes);
    if (cores > 0) tuner.num_cores = static_cast<int>(cores);
    if (settings.num_threads > 0) {
      tuner.num_cores = static_cast<int>(
          std::min<uint32_t>(settings.num_threads, cores > 0 ? cores : settings.num_threads));
    }
    // Records of another device key never seed this one (they are keyed by it).
    std::string seed_device = job.device.empty() ? workers->front().device_key : job.device;
    LogEvent(spdlog::level::info, "job " + std::to_string(job_id) + " searching for " + seed_device,
             {{"job", job_id},
              {"device", seed_device},
              {"vector_bytes", tuner.vector_bytes},
              {"num_cores", tuner.num_cores},
              {"strategy", tuner.strategy},
              {"seed", tuner.seed},
              {"population", tuner.evolutionary.population_size},
              {"trials_left", left}});

    // A model tuned over shape buckets: the tasks of one operator in several buckets are a
    // family ("matmul (seq=16)", "matmul (seq=32)") whose searches share their best traces.
    bool bucketed = nlohmann::json::parse(job.options_json).contains("buckets");
    std::vector<search::TuneTask> tasks;
    std::map<std::string, size_t> task_of_hash;
    std::vector<int64_t> trials_before(job.tasks.size(), 0);
    std::vector<TaskExtra> extras;
    std::vector<std::set<std::string>> seeded(job.tasks.size());
    auto add_seed = [&](size_t task, const database::TuningRecord& r) {
      if (!seeded[task].insert(r.trace_json).second) return;
      try {
        tasks[task].seeds.push_back({search::Trace::FromJSON(nlohmann::json::parse(r.trace_json)),
                                     r.result.ok() ? r.result.median_seconds : -1});
      } catch (const std::exception&) {
        // A stored trace this build cannot read is not a seed; its record still counts.
      }
    };
    for (const database::JobTask& t : job.tasks) {
      std::optional<database::Workload> w = db_.GetWorkload(t.workload_hash);
      KILN_CHECK(w.has_value(), ErrorKind::kInternal,
                 "job " + std::to_string(job_id) + ": workload " + t.workload_hash + " missing");
      search::TuneTask task;
      task.name = t.name;
      task.workload = ir::ParsePrimFunc(w->tvmscript, "workload " + t.workload_hash);
      task.weight = t.weight;
      if (bucketed) task.family = ir::model::TaskFamily(t.name);
      try {
        task.flop = ir::EstimateFlops(task.workload, {});
      } catch (const Error&) {
        task.flop = 0;  // only the table's GFLOP/s needs it
      }
      extras.push_back({task.flop, 0, false});
      task_of_hash[t.workload_hash] = tasks.size();
      tasks.push_back(std::move(task));
    }
    for (const database::TuningRecord& r : done) {
      auto it = task_of_hash.find(r.workload_hash);
      if (it == task_of_hash.end()) continue;
      ++trials_before[it->second];
      add_seed(it->second, r);
    }
    // The best records of each workload on this target and device, from any job: the share
    // of the initial population the evolutionary search seeds from measured traces.
    int64_t top_k =
        std::max<int64_t>(1, static_cast<int64_t>(tuner.evolutionary.population_size *
                                                  tuner.evolutionary.init_measured_ratio));
    for (const database::JobTask& t : job.tasks) {
      for (const database::TuningRecord& r :
           db_.TopK(t.workload_hash, job.target, seed_device, top_k)) {
        add_seed(task_of_hash.at(t.workload_hash), r);
      }
    }
    // And the best stored trace of each of its family's other shapes, carried over.
    for (size_t i = 0; i < tasks.size(); ++i) {
      if (tasks[i].family.empty()) continue;
      for (size_t j = 0; j < tasks.size(); ++j) {
        if (j == i || tasks[j].family != tasks[i].family) continue;
        for (const database::TuningRecord& r :
             db_.TopK(job.tasks[j].workload_hash, job.target, seed_device, 1)) {
          try {
            tasks[i].hints.push_back(search::Trace::FromJSON(nlohmann::json::parse(r.trace_json)));
          } catch (const std::exception&) {
            // Not a trace this build reads: no hint.
          }
        }
      }
    }
    AttachSparseReferences(job, tasks);
    dispatcher_.Configure(settings, job.device);

    // The job's stored results: one transaction per results message. The untuned kernels
    // are timed for comparison and are no records.
    auto sink = [this, job_id, id_base, &job](
                    const schemas::RegisterMsg& worker,
                    const std::vector<search::MeasureRequest>& requests,
                    const std::vector<search::MeasureResponse>& responses) {
      std::vector<database::TuningRecord> records;
      for (size_t i = 0; i < requests.size(); ++i) {
        if (!responses[i].machinery_error.empty() || requests[i].untuned) continue;
        database::TuningRecord r;
        r.workload_hash = ir::StructuralHashHex(requests[i].workload);
        r.target = job.target;
        r.device = worker.device_key;
        r.trace_json = requests[i].trace.ToJSON().dump();
        r.result = responses[i].result;
        r.worker = responses[i].worker;
        r.job_id = job_id;
        r.candidate_id = id_base + static_cast<int64_t>(requests[i].id);
        records.push_back(std::move(r));
      }
      if (!records.empty()) db_.CommitRecords(records);
    };
    // One model per target, kept in the database: what earlier jobs learned ranks this one.
    std::unique_ptr<search::CostModel> model;
    if (cost_model_kind == "xgb") {
      cost_model::XgbOptions xgb;
      xgb.seed = tuner.seed;
      model = cost_model::MakeXgbCostModel(xgb);
      if (std::optional<std::vector<uint8_t>> bytes = db_.LoadCostModel(job.target)) {
        try {
          model->Load(*bytes);
        } catch (const std::exception& e) {
          KILN_LOG_WARN("job {}: the stored cost model of {} is not usable ({}); starting afresh",
                        job_id, job.target, e.what());
          model = cost_model::MakeXgbCostModel(xgb);
        }
      }
    } else if (cost_model_kind == "random") {
      model = cost_model::MakeRandomCostModel(tuner.seed);
    }
    auto save_model = [&] {
      if (model == nullptr || cost_model_kind != "xgb") return;
      try {
        db_.SaveCostModel(job.target, model->Save());
      } catch (const std::exception& e) {
        KILN_LOG_WARN("job {}: the cost model was not saved: {}", job_id, e.what());
      }
    };
    std::string preset = job.target.substr(0, job.target.find(' '));
    search::Tuner run(
        std::move(tasks), tuner, dispatcher_,
        [preset](const search::TuneContext& context) { return SpaceOf(preset, context); },
        model.get());
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
      // Cancelled while it was prepared (no Interrupt reached it then): it does not start.
      std::optional<database::Job> now = db_.GetJob(job_id);
      if (!now || database::IsFinished(now->state)) return;
      running_job_ = job_id;
    }
    {
      std::lock_guard lock(observers_mutex_);
      extras_[job_id] = extras;
      started_[job_id] = options_.clock();
    }
    dispatcher_.SetSink(sink);
    Publish(job_id, true);
    auto on_report = [&](const search::TuneReport& report) {
      {
        std::lock_guard lock(observers_mutex_);
        std::vector<TaskExtra>& x = extras_[job_id];
        for (size_t i = 0; i < report.tasks.size() && i < x.size(); ++i) {
          x[i].untuned_seconds = report.tasks[i].untuned_seconds;
          x[i].done = report.tasks[i].done;
        }
      }
      for (size_t i = 0; i < report.tasks.size() && i < job.tasks.size(); ++i) {
        const search::TaskReport& t = report.tasks[i];
        db_.SetTaskProgress(
            job_id, static_cast<int>(i), trials_before[i] + t.trials,
            t.best_seconds > 0 ? std::optional<double>(t.best_seconds) : job.tasks[i].best_seconds);
      }
      ReportObserver observer;
      {
        std::lock_guard lock(observers_mutex_);
        observer = observer_;
      }
      if (observer) observer(job_id, report);
      if (!report.finished) Publish(job_id, false);
    };
    search::TuneReport report = run.Run(on_report);
    Finish();
    save_model();
    if (std::string failed = AllTasksFailed(report, job.tasks); !failed.empty()) {
      LogEvent(spdlog::level::err, "job " + std::to_string(job_id) + " failed: " + failed,
               {{"job", job_id}});
      db_.SetJobState(job_id, database::JobState::kFailed, failed);
      Publish(job_id, true);
      return;
    }
    db_.SetJobState(job_id, database::JobState::kDone);
    LogEvent(spdlog::level::info, "job " + std::to_string(job_id) + " done", {{"job", job_id}});
    Publish(job_id, true);
  } catch (const Interrupted&) {
    // Cancelled (the state is already stored), or the daemon is stopping: the job stays
    // running in the database and the next start resumes it.
    Finish();
    KILN_LOG_INFO("job {} interrupted", job_id);
  } catch (const std::exception& e) {
    Finish();
    LogEvent(spdlog::level::err, "job " + std::to_string(job_id) + " failed: " + e.what(),
             {{"job", job_id}});
    db_.SetJobState(job_id, database::JobState::kFailed, e.what());
    Publish(job_id, true);
  }
}

}  // namespace kiln::coordinator
