// kiln.tune: `tune run`'s embedded mode from Python. The coordinator and a worker of the
// target's device run in this process over inproc (cli/commands/embedded_service.h); a model
// is submitted as a client submits one (JobService::SubmitJob: specialised per dims and
// buckets, tasks extracted, workloads committed), TensorIR kernels as `tune run FILE.tir` makes
// their job. The job runs on a thread of its own while the calling thread waits without the
// GIL and, every 50 ms, lets Python handle signals: Ctrl-C cancels the job, as `tune run` does
// on SIGINT (what was measured stays stored), and raises KeyboardInterrupt.
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>

#include "cli/commands/embedded_service.h"
#include "cli/commands/task_table.h"
#include "cli/commands/tune_report_json.h"
#include "ir/analysis/flop_count.h"
#include "ir/functor.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "python/src/bindings.h"
#include "python/src/database.h"
#include "python/src/errors.h"
#include "python/src/json_value.h"
#include "python/src/model.h"
#include "runtime/measurer.h"
#include "support/error.h"
#include "worker/device_probe.h"

namespace nb = nanobind;
using nlohmann::json;

namespace kiln::python {
namespace {

struct TuneArgs {
  std::string target = "llvm";
  int64_t trials = 0;
  std::optional<std::map<std::string, int64_t>> dims;
  std::optional<std::map<std::string, std::vector<int64_t>>> buckets;
  int64_t default_dim = 128;
  int64_t trials_per_task = 0;
  int trials_per_round = 0;
  std::string strategy = "evolutionary";
  std::string cost_model = "xgb";
  std::string task_scheduler = "gradient";
  int population = 512;
  uint64_t seed = 1;
  double min_repeat_ms = 100;
  int threads = 0;
  int build_jobs = 0;
  std::string cache_dir;
};

// The tasks of TensorIR kernels: static shapes only, structurally equal ones one task.
std::vector<coordinator::JobSpec::Task> KernelTasks(const Model& model) {
  std::vector<coordinator::JobSpec::Task> tasks;
  std::set<uint64_t> seen;
  for (const ir::PrimFunc& f : model.funcs) {
    for (const ir::Var& param : f->params) {
      auto buffer = f->BufferOf(param);
      if (!buffer) continue;
      for (const ir::Expr& extent : (*buffer)->shape) {
        ir::ForEachVar(extent, [&](const ir::Var& v) {
          throw Error(ErrorKind::kUnsupported, model.name + ": function " + f->name +
                                                   " has symbolic dim " + v.name() +
                                                   "; tuning needs static shapes");
        });
      }
    }
    if (!seen.insert(ir::StructuralHash(f)).second) {
      for (auto& t : tasks) {
        if (ir::StructuralEqual(t.func, f)) t.weight += 1;
      }
      continue;
    }
    tasks.push_back({f->name, f, 1});
  }
  return tasks;
}

std::string DatabasePathOf(nb::handle database) {
  if (database.is_none()) return cli::EmbeddedDatabasePath("");
  if (nb::isinstance<PyDatabase>(database)) return nb::cast<PyDatabase&>(database).path;
  if (nb::isinstance<nb::str>(database))
    return cli::EmbeddedDatabasePath(nb::cast<std::string>(database));
  if (nb::hasattr(database, "__fspath__")) {
    return nb::cast<std::string>(database.attr("__fspath__")());
  }
  throw Error(ErrorKind::kParse, "database: a kiln.Database, a path or None expected");
}

nb::object Tune(const Model& model, const TuneArgs& a, nb::handle database, nb::handle progress) {
  std::string device;
  try {
    device = runtime::DeviceKindOfTarget(a.target);
  } catch (const Error& e) {
    throw Error(e.kind(), std::string("target: ") + e.what());
  }
  if (device != "cpu") {
    try {
      worker::ProbeDevice(device);
    } catch (const Error& e) {
      throw Error(e.kind(), "target " + a.target + ": " + e.what());
    }
  }
  KILN_CHECK(a.trials > 0, ErrorKind::kParse,
             "trials: must be positive, not " + std::to_string(a.trials));
  // The job's options, the wire's (coordinator/job_options.h): a bad one is refused naming it.
  json options = {{"strategy", a.strategy},
                  {"seed", a.seed},
                  {"population", a.population},
                  {"trials_per_round", a.trials_per_round},
                  {"trials_per_task", a.trials_per_task},
                  {"task_scheduler", a.task_scheduler},
                  {"cost_model", a.cost_model},
                  {"measure_untuned", true},
                  {"min_repeat_ms", a.min_repeat_ms},
                  {"num_threads", a.threads}};
  if (model.is_model()) {
    if (a.dims && !a.dims->empty()) options["dims"] = *a.dims;
    if (a.buckets && !a.buckets->empty()) {
      options["buckets"] = ir::model::BucketSpecToJson(BucketSpecOf(*a.buckets));
    }
    options["default_dim"] = a.default_dim;
  } else {
    KILN_CHECK(!a.dims || a.dims->empty(), ErrorKind::kParse,
               "dims: " + model.name + " is TensorIR kernels, which must have static shapes");
    KILN_CHECK(!a.buckets || a.buckets->empty(), ErrorKind::kParse,
               "buckets: " + model.name + " is TensorIR kernels, which must have static shapes");
  }

  cli::EmbeddedOptions embedded;
  embedded.db_path = DatabasePathOf(database);
  embedded.build_jobs = a.build_jobs;
  embedded.cache_dir = a.cache_dir;
  embedded.target = a.target;
  bool draw =
      !progress.is_none() && nb::isinstance<nb::bool_>(progress) && nb::cast<bool>(progress);
  bool call = !progress.is_none() && !nb::isinstance<nb::bool_>(progress);
  KILN_CHECK(!call || PyCallable_Check(progress.ptr()), ErrorKind::kParse,
             "progress: True, False or a function of the report expected");

  std::unique_ptr<cli::EmbeddedService> service;
  int64_t job_id = 0;
  {
    nb::gil_scoped_release release;
    try {
      service = std::make_unique<cli::EmbeddedService>(embedded);
    } catch (const Error& e) {
      throw Error(e.kind(), "database " + embedded.db_path + ": " + e.what());
    }
    if (model.is_model()) {
      schemas::SubmitMsg submit;
      submit.model = model.model_name;
      submit.model_bytes = model.bytes;
      submit.target = a.target;
      submit.trials = static_cast<uint64_t>(a.trials);
      submit.options = options.dump();
      job_id = service->jobs().SubmitJob(submit, "");
    } else {
      coordinator::JobSpec spec;
      spec.model = model.model_name;
      spec.model_text = model.bytes;
      spec.target = a.target;
      spec.trials = a.trials;
      spec.options = options;
      spec.tasks = KernelTasks(model);
      job_id = service->jobs().SubmitJob(spec);
    }
  }

  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::optional<search::TuneReport> last;
  std::optional<nb::python_error> callback_error;
  cli::ProgressPrinter printer(a.trials_per_round > 0 ? a.trials_per_round : 64);
  service->jobs().SetReportObserver([&](int64_t, const search::TuneReport& r) {
    {
      std::lock_guard lock(mutex);
      last = r;
    }
    if (draw) printer(r);
    if (call) {
      nb::gil_scoped_acquire acquire;
      if (callback_error) return;
      try {
        progress(JsonToPython(cli::TuneReportJson(r)));
      } catch (nb::python_error& e) {
        callback_error.emplace(std::move(e));  // the waiting thread cancels the job
      }
    }
  });
  std::exception_ptr failure;
  std::thread runner([&] {
    try {
      service->jobs().RunJob(job_id);
    } catch (...) {
      failure = std::current_exception();
    }
    std::lock_guard lock(mutex);
    done = true;
    finished.notify_all();
  });
  std::optional<nb::python_error> interrupted;
  while (true) {
    {
      nb::gil_scoped_release release;
      std::unique_lock lock(mutex);
      finished.wait_for(lock, std::chrono::milliseconds(50), [&] { return done; });
      if (done) break;
    }
    // Cancelled from this thread, as `tune run` cancels from its signal watcher: the job's
    // thread stops at its next step and what was measured stays stored.
    std::string why;
    if (PyErr_CheckSignals() != 0) {
      interrupted.emplace();  // takes the pending KeyboardInterrupt (or the handler's error)
      why = "interrupted by SIGINT";
    } else if (callback_error) {
      why = "the progress function raised an exception";
    }
    if (!why.empty()) {
      nb::gil_scoped_release release;
      try {
        service->jobs().Cancel(job_id, why);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "kiln.tune: cancelling job %lld: %s\n", static_cast<long long>(job_id),
                     e.what());
      }
      break;
    }
  }
  std::optional<database::Job> job;
  {
    nb::gil_scoped_release release;
    runner.join();
    job = service->db().GetJob(job_id);
    service.reset();
  }
  if (interrupted) {
    std::fprintf(stderr, "kiln.tune: job %lld interrupted; its measurements are stored in %s\n",
                 static_cast<long long>(job_id), embedded.db_path.c_str());
    throw std::move(*interrupted);
  }
  if (callback_error) throw std::move(*callback_error);
  if (failure) std::rethrow_exception(failure);
  if (!job || job->state != database::JobState::kDone || !last || !last->finished) {
    std::string why = job ? job->error : "the job vanished from the database";
    throw Error(ErrorKind::kRuntime,
                "tune: job " + std::to_string(job_id) + " " +
                    (job ? std::string(database::JobStateName(job->state)) : std::string()) + ": " +
                    why);
  }
  json out = cli::TuneReportJson(*last);
  out["job"] = job_id;
  out["db"] = embedded.db_path;
  out["target"] = a.target;
  return JsonToPython(out);
}

}  // namespace

void BindTune(nb::module_& m) {
  m.def(
      "_tune",
      [](const Model& model, const std::string& target, int64_t trials, nb::handle database,
         std::optional<std::map<std::string, int64_t>> dims,
         std::optional<std::map<std::string, std::vector<int64_t>>> buckets, int64_t default_dim,
         int64_t trials_per_task, int trials_per_round, const std::string& strategy,
         const std::string& cost_model, const std::string& task_scheduler, int population,
         uint64_t seed, double min_repeat_ms, int threads, int build_jobs,
         const std::string& cache_dir, nb::handle progress) {
        TuneArgs a{.target = target,
                   .trials = trials,
                   .dims = std::move(dims),
                   .buckets = std::move(buckets),
                   .default_dim = default_dim,
                   .trials_per_task = trials_per_task,
                   .trials_per_round = trials_per_round,
                   .strategy = strategy,
                   .cost_model = cost_model,
                   .task_scheduler = task_scheduler,
                   .population = population,
                   .seed = seed,
                   .min_repeat_ms = min_repeat_ms,
                   .threads = threads,
                   .build_jobs = build_jobs,
                   .cache_dir = cache_dir};
        return Tune(model, a, database, progress);
      },
      nb::arg("module"), nb::arg("target"), nb::arg("trials"), nb::arg("database").none(),
      nb::arg("dims").none(), nb::arg("buckets").none(), nb::arg("default_dim"),
      nb::arg("trials_per_task"), nb::arg("trials_per_round"), nb::arg("strategy"),
      nb::arg("cost_model"), nb::arg("task_scheduler"), nb::arg("population"), nb::arg("seed"),
      nb::arg("min_repeat_ms"), nb::arg("threads"), nb::arg("build_jobs"), nb::arg("cache_dir"),
      nb::arg("progress").none());
}

}  // namespace kiln::python
