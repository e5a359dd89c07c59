// JobService: submit, status, cancel, and the job runner over the Tuner and the Dispatcher.
#include "coordinator/job_service.h"

#include <nlohmann/json.hpp>

#include "cost_model/xgb_cost_model.h"
#include "ir/frontend/onnx/import.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/space/design_space.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::coordinator {
namespace {

bool EndsWith(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

ir::relax::IRModule ReadModel(const std::string& name, const std::string& bytes) {
  if (EndsWith(name, ".onnx")) return ir::frontend::onnx::ImportOnnxBytes(bytes, name);
  return ir::relax::ParseModule(bytes, name);
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

int64_t JobService::SubmitJob(const schemas::SubmitMsg& submit) {
  KILN_CHECK(submit.trials > 0 && submit.trials <= 10'000'000, ErrorKind::kParse,
             "submit: trials must be in 1..10000000, not " + std::to_string(submit.trials));
  nlohmann::json options = nlohmann::json::parse(submit.options, nullptr, false);
  KILN_CHECK(options.is_object(), ErrorKind::kParse, "submit: options are not a JSON object");
  ir::relax::IRModule module = ReadModel(submit.model, submit.model_bytes);
  ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(module);
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(prepared);
  KILN_CHECK(!tasks.empty(), ErrorKind::kUnsupported,
             "submit: " + submit.model + " has no kernels to tune");
  database::Job job;
  job.model = submit.model;
  job.model_text = submit.model_bytes;
  job.target = submit.target;
  job.device = submit.device;
  job.options_json = options.dump();
  job.trials_total = static_cast<int64_t>(submit.trials);
  int64_t share = (job.trials_total + static_cast<int64_t>(tasks.size()) - 1) /
                  static_cast<int64_t>(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string hash = ir::StructuralHashHex(tasks[i].func);
    db_.CommitWorkload({hash, tasks[i].name, ir::PrintPrimFunc(tasks[i].func)});
    job.tasks.push_back(
        {static_cast<int>(i), tasks[i].name, hash, tasks[i].weight, share, 0, std::nullopt});
  }
  int64_t id = db_.CreateJob(job);
  KILN_LOG_INFO("job {}: {} ({} tasks, {} trials, target {})", id, submit.model, tasks.size(),
                submit.trials, submit.target);
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
  for (const database::JobTask& t : job.tasks) {
    e.tasks.push_back({static_cast<uint32_t>(t.index), t.name, static_cast<uint64_t>(t.trials_done),
                       static_cast<uint64_t>(t.trials_total), t.best_seconds.value_or(0)});
  }
  return e;
}

schemas::Message JobService::Handle(const schemas::Message& request) {
  if (const auto* submit = std::get_if<schemas::SubmitMsg>(&request)) {
    return schemas::SubmittedMsg{static_cast<uint64_t>(SubmitJob(*submit))};
  }
  if (const auto* cancel = std::get_if<schemas::CancelMsg>(&request)) {
    std::optional<database::Job> job = db_.GetJob(static_cast<int64_t>(cancel->job_id));
    KILN_CHECK(job.has_value(), ErrorKind::kParse,
               "cancel: no job " + std::to_string(cancel->job_id));
    if (!database::IsFinished(job->state)) {
      db_.SetJobState(job->id, database::JobState::kCancelled, "cancelled by a client");
      std::lock_guard lock(mutex_);
      if (running_job_ == job->id) dispatcher_.Interrupt();
    }
    return Event(*db_.GetJob(job->id));
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

void JobService::RunJob(int64_t job_id) {
  std::optional<database::Job> loaded = db_.GetJob(job_id);
  if (!loaded || database::IsFinished(loaded->state)) return;
  database::Job job = *loaded;
  try {
    // What earlier runs of this job measured: the budget left, and seeds for the search.
    std::vector<database::TuningRecord> done = db_.History({.job_id = job_id, .limit = 1 << 30});
    int64_t left = job.trials_total - static_cast<int64_t>(done.size());
    int64_t id_base = db_.GetJobStatistics(job_id).max_candidate_id;
    db_.SetJobState(job_id, database::JobState::kRunning);
    if (left <= 0) {
      db_.SetJobState(job_id, database::JobState::kDone);
      return;
    }
    std::vector<search::TuneTask> tasks;
    std::map<std::string, size_t> task_of_hash;
    std::vector<int64_t> trials_before(job.tasks.size(), 0);
    for (const database::JobTask& t : job.tasks) {
      std::optional<database::Workload> w = db_.GetWorkload(t.workload_hash);
      KILN_CHECK(w.has_value(), ErrorKind::kInternal,
                 "job " + std::to_string(job_id) + ": workload " + t.workload_hash + " missing");
      search::TuneTask task;
      task.name = t.name;
      task.workload = ir::ParsePrimFunc(w->tvmscript, "workload " + t.workload_hash);
      task.weight = static_cast<double>(t.weight);
      task_of_hash[t.workload_hash] = tasks.size();
      tasks.push_back(std::move(task));
    }
    for (const database::TuningRecord& r : done) {
      auto it = task_of_hash.find(r.workload_hash);
      if (it == task_of_hash.end()) continue;
      ++trials_before[it->second];
      try {
        tasks[it->second].seeds.push_back(
            {search::Trace::FromJSON(nlohmann::json::parse(r.trace_json)),
             r.result.ok() ? r.result.median_seconds : -1});
      } catch (const std::exception&) {
        // A stored trace this build cannot read is not a seed; its record still counts.
      }
    }
    schemas::MeasureSettings settings = options_.settings;
    settings.target = job.target;
    dispatcher_.Configure(settings, job.device);

    search::TunerOptions tuner = options_.tuner;
    tuner.max_trials_global = left;
    tuner.target = job.target;
    tuner.measure_untuned = false;
    // The job's stored results: one transaction per results message.
    auto sink = [this, job_id, id_base, &job](
                    const schemas::RegisterMsg& worker,
                    const std::vector<search::MeasureRequest>& requests,
                    const std::vector<search::MeasureResponse>& responses) {
      std::vector<database::TuningRecord> records;
      for (size_t i = 0; i < requests.size(); ++i) {
        if (!responses[i].machinery_error.empty()) continue;
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
    if (options_.cost_model == "xgb") {
      model = std::make_unique<cost_model::XgbCostModel>();
      if (std::optional<std::vector<uint8_t>> bytes = db_.LoadCostModel(job.target)) {
        try {
          model->Load(*bytes);
        } catch (const std::exception& e) {
          KILN_LOG_WARN("job {}: the stored cost model of {} is not usable ({}); starting afresh",
                        job_id, job.target, e.what());
          model = std::make_unique<cost_model::XgbCostModel>();
        }
      }
    }
    auto save_model = [&] {
      if (model == nullptr) return;
      try {
        db_.SaveCostModel(job.target, model->Save());
      } catch (const std::exception& e) {
        KILN_LOG_WARN("job {}: the cost model was not saved: {}", job_id, e.what());
      }
    };
    search::Tuner run(
        std::move(tasks), tuner, dispatcher_,
        [](const search::TuneContext& context) { return search::MakeDesignSpace(context.target); },
        model.get());
    {
      std::lock_guard lock(mutex_);
      if (stop_) return;
      running_job_ = job_id;
    }
    dispatcher_.SetSink(sink);
    run.Run([&](const search::TuneReport& report) {
      for (size_t i = 0; i < report.tasks.size() && i < job.tasks.size(); ++i) {
        const search::TaskReport& t = report.tasks[i];
        db_.SetTaskProgress(
            job_id, static_cast<int>(i), trials_before[i] + t.trials,
            t.best_seconds > 0 ? std::optional<double>(t.best_seconds) : job.tasks[i].best_seconds);
      }
    });
    Finish();
    save_model();
    db_.SetJobState(job_id, database::JobState::kDone);
    KILN_LOG_INFO("job {} done", job_id);
  } catch (const Interrupted&) {
    // Cancelled (the state is already stored), or the daemon is stopping: the job stays
    // running in the database and the next start resumes it.
    Finish();
    KILN_LOG_INFO("job {} interrupted", job_id);
  } catch (const std::exception& e) {
    Finish();
    KILN_LOG_ERROR("job {} failed: {}", job_id, e.what());
    db_.SetJobState(job_id, database::JobState::kFailed, e.what());
  }
}

}  // namespace kiln::coordinator
