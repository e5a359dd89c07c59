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
#include "ir/analysis/flop_count.h"
#include "ir/model/model_file.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
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
  std::string strategy = "evolutionary";
  std::string cost_model = "xgb";
  std::string task_scheduler = "gradient";
  uint64_t seed = 1;
  bool json = false;
  std::string output;
  std::vector<std::string> dims;
  int64_t default_dim = 128;
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

std::vector<search::TuneTask> TasksOfModel(const RunOptions& o, std::string& note) {
  std::map<std::string, int64_t> dims = ParseDims(o.dims);
  auto extract = [&](const std::map<std::string, int64_t>& bound) {
    ir::model::ModelInput input = ir::model::LoadModel(o.input, bound);
    ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(input.module);
    return std::make_pair(input.format, ir::relax::transform::ExtractTasks(prepared, input.entry));
  };
  auto [format, extracted] = extract(dims);
  std::set<std::string> symbolic;
  for (const auto& task : extracted) {
    for (const std::string& name : SymbolicDims(task.func)) symbolic.insert(name);
  }
  if (!symbolic.empty()) {
    KILN_CHECK(format == "onnx", ErrorKind::kUnsupported,
               o.input + ": the tasks have symbolic dims (" + *symbolic.begin() +
                   ", ...); tuning needs static shapes: export the model with them bound");
    for (const std::string& name : symbolic) {
      if (dims.count(name)) continue;
      dims[name] = o.default_dim;
      note += (note.empty() ? "" : ", ") + name + "=" + std::to_string(o.default_dim);
    }
    std::tie(format, extracted) = extract(dims);
    for (const auto& task : extracted) {
      KILN_CHECK(SymbolicDims(task.func).empty(), ErrorKind::kUnsupported,
                 o.input + ": task " + task.name + " keeps symbolic dims after binding " + note);
    }
  }
  std::vector<search::TuneTask> tasks;
  for (const auto& task : extracted) {
    search::TuneTask t;
    t.name = task.name;
    t.workload = task.func;
    t.weight = static_cast<double>(task.weight);
    t.flop = ir::EstimateFlops(task.func, {});
    tasks.push_back(std::move(t));
  }
  return tasks;
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

double Gflops(const search::TaskReport& t) {
  return t.best_seconds > 0 && t.flop > 0 ? t.flop / t.best_seconds / 1e9 : 0;
}

json ReportJson(const search::TuneReport& report) {
  json tasks = json::array();
  for (const auto& t : report.tasks) {
    char hash[32];
    std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(t.workload_hash));
    tasks.push_back(
        {{"name", t.name},
         {"workload_hash", hash},
         {"flop", t.flop},
         {"weight", t.weight},
         {"trials", t.trials},
         {"best_latency_s", t.best_seconds > 0 ? json(t.best_seconds) : json()},
         {"best_gflops", t.best_seconds > 0 ? json(Gflops(t)) : json()},
         {"untuned_latency_s", t.untuned_seconds > 0 ? json(t.untuned_seconds) : json()},
         {"seeded_latency_s", t.seeded_seconds > 0 ? json(t.seeded_seconds) : json()},
         {"best_trace", t.best_trace ? t.best_trace->ToJSON() : json()},
         {"errors", t.errors},
         {"failure", t.failure}});
  }
  return {{"tasks", tasks},
          {"total_trials", report.total_trials},
          {"wall_s", report.wall_seconds},
          {"search_s", report.search_seconds},
          {"errors", report.errors},
          {"rejected", report.rejected}};
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
  std::string note;
  std::vector<search::TuneTask> tasks;
  try {
    tasks = extension == ".tir" ? TasksOfKernelFile(o) : TasksOfModel(o, note);
  } catch (const Error& e) {
    throw InputError{e};
  }
  if (!note.empty()) {
    std::cerr << "tune run: symbolic dims bound to " << note << " (choose with --dim NAME=VALUE)\n";
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
                  {"num_threads", o.threads}};
  for (const search::TuneTask& task : tasks) {
    spec.tasks.push_back({task.name, task.workload, static_cast<int64_t>(task.weight)});
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
    json tasks_json = ReportJson(report)["tasks"];
    for (const json& t : tasks_json) {
      out << json{{"task", t["name"]},
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
    json out = ReportJson(report);
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
  app->add_option("--target", o->target,
                  "codegen target (llvm or c; vulkan, opencl or cuda on this machine's device)");
  app->add_option("--trials", o->trials, "measured candidates in all")
      ->required()
      ->check(CLI::PositiveNumber);
  app->add_option("--trials-per-task", o->trials_per_task, "a budget per task (0: none)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--trials-per-round", o->trials_per_round,
                  "candidates per measurement round (0: 64, fewer for many tasks)")
      ->check(CLI::NonNegativeNumber);
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
