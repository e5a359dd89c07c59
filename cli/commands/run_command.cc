// `tune run MODEL|KERNEL.tir --target llvm --trials N`: tunes on this machine. The tasks come
// from a model (ONNX or Relax: the tuning pipeline and task extraction of `tune tasks`) or
// are the functions of a TensorIR file. This is the service's embedded mode: the same
// coordinator and worker code as the daemons, in this process over inproc
// (embedded_service.h), every measurement stored in the tuning database (--db, $KILN_DB, or
// ~/.cache/kiln/tuning.db). The worker builds on every core and runs one candidate at a time
// in the sandbox, every result checked against the reference; each task's search is seeded
// with the best records the database holds for its workload on this CPU, so a second run
// starts where the first ended. While it runs, a per-task table (redrawn in place on a
// terminal, progress lines otherwise) goes to stderr; at the end the table, the best trace
// of each task (or, with -o, one JSON record per task in FILE) and, with --json, one JSON
// object on the last line of stdout.
//
// Exit codes: 0 tuned (every task found a correct candidate); 1 a task found none or the
// machinery failed; 2 the input or options were unusable; 128 + N interrupted by signal N
// (SIGINT, SIGTERM), the job cancelled and its measurements kept.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "cli/commands/embedded_service.h"
#include "cli/commands/interrupt_watch.h"
#include "cli/commands/task_table.h"
#include "cli/commands/tune_report_json.h"
#include "ir/analysis/flop_count.h"
#include "ir/model/model_tasks.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "ir/text/parser.h"
#include "runtime/measurer.h"
#include "runtime/subprocess.h"
#include "search/tuner.h"
#include "support/error.h"
#include "worker/device_probe.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

struct RunOptions {
  std::string input;
  std::string target = "llvm";
  int64_t trials = 0;
  int64_t trials_per_task = 0;
  int trials_per_round = 0;
  double family_share = search::TunerOptions{}.family_follower_share;
  std::string strategy = "evolutionary";
  std::string cost_model = "xgb";
  std::string task_scheduler = "gradient";
  uint64_t seed = 1;
  bool json = false;
  std::string output;
  std::vector<std::string> dims;
  int64_t default_dim = 128;
  BucketFlags buckets;
  int threads = 0;
  int build_jobs = 0;
  double min_repeat_ms = 100;
  int population = 512;
  std::string cache_dir;
  std::string db;
};

// Symbolic dims of `f`'s parameters, by name.
std::set<std::string> SymbolicDims(const ir::PrimFunc& f) {
  std::set<std::string> names;
  for (const ir::Var& param : f->params) {
    auto buffer = f->BufferOf(param);
    if (!buffer) continue;
    for (const ir::Expr& extent : (*buffer)->shape) {
      ir::ForEachVar(extent, [&](const ir::Var& v) { names.insert(v.name()); });
    }
  }
  return names;
}

// The model specialised per bucket (ir/model/model_tasks.h), as the coordinator does for a
// submitted one; `model` keeps the buckets each task serves for the report.
std::vector<search::TuneTask> TasksOfModel(const RunOptions& o,
                                           const ir::model::BucketSpec& buckets,
                                           ir::model::ModelTasks& model) {
  ir::model::ModelTaskOptions options;
  options.dims = ParseDims(o.dims);
  options.default_dim = o.default_dim;
  options.buckets = buckets;
  model = ir::model::ExtractModelTasks(o.input, ReadFile(o.input), options);
  std::vector<search::TuneTask> tasks;
  for (size_t i = 0; i < model.tasks.size(); ++i) {
    const ir::model::ModelTask& task = model.tasks[i];
    tasks.push_back({.name = model.TaskLabel(i),
                     .workload = task.func,
                     .weight = task.weight,
                     .flop = task.flop});
  }
  return tasks;
}

// Per task of a bucketed model: "bucket", the dims of the first bucket it serves, and
// "buckets", all of them.
void AddBuckets(const ir::model::ModelTasks& model, json& tasks) {
  if (!model.bucketed()) return;
  for (size_t i = 0; i < model.tasks.size() && i < tasks.size(); ++i) {
    json served = json::array();
    for (const auto& [bucket, calls] : model.tasks[i].buckets) {
      served.push_back(model.buckets[bucket].bucket.dims);
    }
    tasks[i]["bucket"] = served.empty() ? json() : served[0];
    tasks[i]["buckets"] = served;
  }
}

std::vector<search::TuneTask> TasksOfKernelFile(const RunOptions& o) {
  std::vector<ir::PrimFunc> funcs;
  try {
    funcs = ir::ParsePrimFuncs(ReadFile(o.input), o.input);
  } catch (const Error& e) {
    throw InputError{e};
  }
  std::vector<search::TuneTask> tasks;
  std::set<uint64_t> seen;
  for (const ir::PrimFunc& f : funcs) {
    std::set<std::string> symbolic = SymbolicDims(f);
    if (!symbolic.empty()) {
      throw InputError{Error(ErrorKind::kUnsupported, o.input + ": function " + f->name +
                                                          " has symbolic dim " + *symbolic.begin() +
                                                          "; tuning needs static shapes")};
    }
    // Structurally equal functions are one task, called as often as they appear.
    if (!seen.insert(ir::StructuralHash(f)).second) {
      for (search::TuneTask& t : tasks) {
        if (ir::StructuralEqual(t.workload, f)) t.weight += 1;
      }
      continue;
    }
    tasks.push_back(
        {.name = f->name, .workload = f, .weight = 1, .flop = ir::EstimateFlops(f, {})});
  }
  KILN_CHECK(!tasks.empty(), ErrorKind::kParse, o.input + ": no function to tune");
  return tasks;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int Run(const RunOptions& o) {
  std::string device;
  try {
    device = runtime::DeviceKindOfTarget(o.target);
  } catch (const Error& e) {
    throw InputError{Error(e.kind(), std::string("--target: ") + e.what())};
  }
  // A GPU target is measured on this machine's device of that kind: one without it says so.
  if (device != "cpu") {
    try {
      worker::ProbeDevice(device);
    } catch (const Error& e) {
      throw InputError{Error(e.kind(), "--target " + o.target + ": " + e.what() +
                                           " (or submit the model to a coordinator with a " +
                                           device + " worker: tune submit --target " + o.target +
                                           ")")};
    }
  }
  KILN_CHECK(o.cost_model == "xgb" || o.cost_model == "random" || o.cost_model == "none",
             ErrorKind::kParse, "--cost-model " + o.cost_model + ": expected xgb, random or none");

  std::string extension = o.input.substr(std::min(o.input.size(), o.input.rfind('.')));
  ir::model::ModelTasks model;
  ir::model::BucketSpec buckets;
  std::vector<search::TuneTask> tasks;
  try {
    buckets = o.buckets.Parse();
    KILN_CHECK(extension != ".tir" || (buckets.empty() && o.dims.empty()), ErrorKind::kParse,
               o.input +
                   ": --dim and --bucket specialise a model; a TensorIR file's kernels "
                   "must have static shapes");
    tasks = extension == ".tir" ? TasksOfKernelFile(o) : TasksOfModel(o, buckets, model);
  } catch (const Error& e) {
    throw InputError{e};
  }
  if (!model.defaulted.empty()) {
    std::cerr << "tune run: symbolic dims bound to " << model.DefaultedText()
              << " (choose with --dim NAME=VALUE or --bucket NAME=V1,V2,...)\n";
  }
  if (model.bucketed()) {
    std::cerr << "tune run: " << model.buckets.size() << " buckets, " << tasks.size()
              << " distinct tasks\n";
  }

  // The job as a client would submit it; its options are the wire's (job_options.h).
  coordinator::JobSpec spec;
  spec.model = o.input;
  try {
    spec.model_text = ReadFile(o.input);
  } catch (const Error& e) {
    throw InputError{e};
  }
  spec.target = o.target;
  spec.trials = o.trials;
  spec.options = {{"strategy", o.strategy},
                  {"seed", o.seed},
                  {"population", o.population},
                  {"trials_per_round", o.trials_per_round},
                  {"trials_per_task", o.trials_per_task},
                  {"task_scheduler", o.task_scheduler},
                  {"cost_model", o.cost_model},
                  {"measure_untuned", true},
                  {"min_repeat_ms", o.min_repeat_ms},
                  {"num_threads", o.threads},
                  {"family_share", o.family_share}};
  // What the model was specialised to, on record with the job.
  std::map<std::string, int64_t> bound = ParseDims(o.dims);
  bound.insert(model.defaulted.begin(), model.defaulted.end());
  if (!bound.empty()) spec.options["dims"] = bound;
  if (model.bucketed()) {
    spec.options["buckets"] = ir::model::BucketSpecToJson(buckets);
  }
  for (const search::TuneTask& task : tasks) {
    spec.tasks.push_back({task.name, task.workload, task.weight});
  }

  EmbeddedOptions embedded;
  embedded.db_path = EmbeddedDatabasePath(o.db);
  embedded.build_jobs = o.build_jobs;
  embedded.cache_dir = o.cache_dir;
  embedded.target = o.target;
  std::unique_ptr<EmbeddedService> service;
  try {
    service = std::make_unique<EmbeddedService>(embedded);
  } catch (const Error& e) {
    throw InputError{Error(e.kind(), "--db " + embedded.db_path + ": " + e.what())};
  }
  int64_t job_id = 0;
  try {
    job_id = service->jobs().SubmitJob(spec);
  } catch (const Error& e) {
    throw InputError{e};
  }
  ProgressPrinter printer(o.trials_per_round > 0 ? o.trials_per_round : 64);
  std::optional<search::TuneReport> last;
  service->jobs().SetReportObserver([&](int64_t, const search::TuneReport& r) {
    printer(r);
    last = r;
  });
  int interrupted_by = 0;
  {
    // Ctrl-C cancels the job: what was measured stays stored and the job is not left
    // "running" for a coordinator to resume.
    InterruptWatch watch([&](int signal) {
      try {
        service->jobs().Cancel(job_id, "interrupted by " + runtime::SignalName(signal));
      } catch (const std::exception& e) {
        std::cerr << "tune: cancelling job " << job_id << ": " << e.what() << "\n";
      }
    });
    service->jobs().RunJob(job_id);
    interrupted_by = watch.signal();
  }
  std::optional<database::Job> job = service->db().GetJob(job_id);
  if (interrupted_by != 0 && job && job->state == database::JobState::kCancelled) {
    if (last) {
      for (const std::string& line : TaskTable(*last)) std::cout << line << "\n";
    }
    std::cerr << "tune: job " << job_id << " interrupted by " << runtime::SignalName(interrupted_by)
              << "; its measurements are stored in " << embedded.db_path << "\n";
    return 128 + interrupted_by;
  }
  if (!job || job->state != database::JobState::kDone || !last || !last->finished) {
    std::string why = job ? job->error : "the job vanished from the database";
    std::cerr << "tune: job " << job_id << " " << (job ? database::JobStateName(job->state) : "")
              << ": " << why << "\n";
    return 1;
  }
  const search::TuneReport& report = *last;

  for (const std::string& line : TaskTable(report)) std::cout << line << "\n";
  bool all_found = true;
  for (const auto& t : report.tasks) {
    if (t.best_seconds <= 0) {
      all_found = false;
      std::cout << "task " << t.name << ": no correct candidate"
                << (t.failure.empty() ? "" : " (" + t.failure + ")") << "\n";
    }
  }
  if (!o.output.empty()) {
    std::ofstream out(o.output);
    KILN_CHECK(out.good(), ErrorKind::kIO, o.output + ": cannot open file for writing");
    json tasks_json = TuneReportJson(report)["tasks"];
    AddBuckets(model, tasks_json);
    for (const json& t : tasks_json) {
      out << json{{"task", t["name"]},
                  {"bucket", t.value("bucket", json())},
                  {"workload_hash", t["workload_hash"]},
                  {"latency_s", t["best_latency_s"]},
                  {"trace", t["best_trace"]}}
                 .dump()
          << "\n";
    }
    KILN_CHECK(out.good(), ErrorKind::kIO, o.output + ": write failed");
    std::cout << "best traces written to " << o.output << "\n";
  } else if (!o.json) {
    for (const auto& t : report.tasks) {
      if (!t.best_trace) continue;
      std::cout << "\n# " << t.name << ": " << Fixed(t.best_seconds * 1e6, 2) << " us\n"
                << t.best_trace->AsPython();
    }
  }
  if (o.json) {
    json out = TuneReportJson(report);
    AddBuckets(model, out["tasks"]);
    out["job"] = job_id;
    out["db"] = embedded.db_path;
    std::cout << out.dump() << "\n";
  }
  return all_found ? 0 : 1;
}

}  // namespace

Command RegisterRunCommand(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand(
      "run", "Tune a model (.onnx, .relax) or the kernels of a .tir file on this machine");
  app->add_option("input", o->input, "an ONNX file, a Relax module or a TensorIR file")->required();
  app->add_option(
      "--target", o->target,
      "codegen target (llvm or c; vulkan, opencl, webgpu, metal or cuda on this machine's device)");
  app->add_option("--trials", o->trials, "measured candidates in all")
      ->required()
      ->check(CLI::PositiveNumber);
  app->add_option("--trials-per-task", o->trials_per_task, "a budget per task (0: none)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--trials-per-round", o->trials_per_round,
                  "candidates per measurement round (0: 64, fewer for many tasks)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--family-share", o->family_share,
                  "with buckets: each bucket's budget for an operator as a share of the median "
                  "bucket's, which is tuned first (0: all at once)")
      ->check(CLI::Range(0.0, 1.0))
      ->capture_default_str();
  app->add_option("--strategy", o->strategy, "evolutionary or random (replay-trace)")
      ->check(CLI::IsMember({"evolutionary", "random"}));
  app->add_option("--cost-model", o->cost_model, "xgb, random or none")
      ->check(CLI::IsMember({"xgb", "random", "none"}));
  app->add_option("--task-scheduler", o->task_scheduler, "gradient or round-robin")
      ->check(CLI::IsMember({"gradient", "round-robin"}));
  app->add_option("--population", o->population, "evolutionary search population")
      ->check(CLI::PositiveNumber);
  app->add_option("--seed", o->seed, "seed of every random draw");
  app->add_option("--dim", o->dims, "bind a named dimension of the ONNX inputs, NAME=VALUE");
  app->add_option("--default-dim", o->default_dim,
                  "value of an ONNX model's symbolic dims not bound with --dim")
      ->check(CLI::PositiveNumber);
  AddBucketFlags(app, &o->buckets,
                 "tune the model at each of these values of a symbolic dim, NAME=V1,V2,... "
                 "(repeatable; a bare NAME takes powers of two up to --max-dim)",
                 "how much a bucket counts in the task scheduler, NAME=V:W (1 by default)");
  app->add_option("--threads", o->threads, "threads of a kernel (0: every core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--build-jobs", o->build_jobs, "parallel builds (0: every core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--min-repeat-ms", o->min_repeat_ms, "time a candidate for at least this long")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--cache-dir", o->cache_dir, "build and reference cache (default ~/.cache/kiln)");
  app->add_option("--db", o->db,
                  "the tuning database every measurement is stored in and seeds come from "
                  "(default $KILN_DB, else ~/.cache/kiln/tuning.db)");
  app->add_option("-o,--output", o->output, "write the best trace of each task here (JSON lines)");
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() { return ExitTwoOnInputError([&] { return Run(*o); }); }};
}

}  // namespace kiln::cli
