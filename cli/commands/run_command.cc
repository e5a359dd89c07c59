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
// object on the last line of stdout. With --until-faster-than (tuning_target.h) the budget
// runs in stages, a job each, until the compiled model beats the target; the table and the
// JSON's tasks are then the last stage's, and its "until" holds every stage.
//
// Exit codes: 0 tuned (every task found a correct candidate); 1 a task found none or the
// machinery failed; 2 the input or options were unusable; 128 + N interrupted by signal N
// (SIGINT, SIGTERM), the job cancelled and its measurements kept.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
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
#include "cli/commands/tuning_target.h"
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
  std::string winograd = "off";
  std::string sparse_attention = "auto";
  int threads = 0;
  int build_jobs = 0;
  double min_repeat_ms = 100;
  int population = 512;
  std::string cache_dir;
  std::string db;
  std::string until;  // --until-faster-than: "ort" or a latency; empty: the whole budget
  std::string python = KILN_VENV_PYTHON;
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
  options.pipeline.winograd.mode = *ir::relax::transform::ParseWinogradMode(o.winograd);
  options.sparse_attention = *ir::frontend::onnx::ParseSparseAttentionMode(o.sparse_attention);
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

std::string SelfExecutable() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  KILN_CHECK(!ec, ErrorKind::kIO, "--until-faster-than: cannot find this program (/proc/self/exe)");
  return self.string();
}

// A folder of its own under the system's temporary folder for the stages' artifacts, removed
// however the run ends.
class ScratchWorkDir {
 public:
  ScratchWorkDir()
      : path_((std::filesystem::temp_directory_path() / "kiln-until-XXXXXX").string()) {
    KILN_CHECK(::mkdtemp(path_.data()) != nullptr, ErrorKind::kIO,
               "--until-faster-than: cannot make a folder like " + path_);
  }
  ~ScratchWorkDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchWorkDir(const ScratchWorkDir&) = delete;
  ScratchWorkDir& operator=(const ScratchWorkDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

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
  std::optional<TuningTarget> target;
  if (!o.until.empty()) {
    target = ParseTuningTarget(o.until);
    if (!target) {
      throw InputError{
          Error(ErrorKind::kParse,
                "--until-faster-than " + o.until +
                    ": expected ort or a latency with its unit (2.5ms, 800us, 0.01s)")};
    }
    const bool onnx = o.input.size() > 5 && o.input.substr(o.input.size() - 5) == ".onnx";
    if (!onnx || !o.buckets.Parse().empty() || o.target != "llvm") {
      throw InputError{Error(ErrorKind::kUnsupported,
                             "--until-faster-than: takes an ONNX model tuned for this CPU "
                             "(--target llvm) at one shape (--dim, not --bucket); " +
                                 o.input + " is not that")};
    }
  }

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
                  {"family_share", o.family_share},
                  {"winograd", o.winograd},
                  {"sparse_attention", o.sparse_attention}};
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
  // One job of `trials` (the whole budget, or a stage of --until-faster-than): 0 when it
  // finished, else the exit code.
  int64_t job_id = 0;
  ProgressPrinter printer(o.trials_per_round > 0 ? o.trials_per_round : 64);
  std::optional<search::TuneReport> last;
  service->jobs().SetReportObserver([&](int64_t, const search::TuneReport& r) {
    printer(r);
    last = r;
  });
  auto run_job = [&](int64_t trials) -> int {
    spec.trials = trials;
    last.reset();
    try {
      job_id = service->jobs().SubmitJob(spec);
    } catch (const Error& e) {
      throw InputError{e};
    }
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
      std::cerr << "tune: job " << job_id << " interrupted by "
                << runtime::SignalName(interrupted_by) << "; its measurements are stored in "
                << embedded.db_path << "\n";
      return 128 + interrupted_by;
    }
    if (!job || job->state != database::JobState::kDone || !last || !last->finished) {
      std::string why = job ? job->error : "the job vanished from the database";
      std::cerr << "tune: job " << job_id << " " << (job ? database::JobStateName(job->state) : "")
                << ": " << why << "\n";
      return 1;
    }
    return 0;
  };
  std::optional<TargetCheck> until;
  std::optional<ScratchWorkDir> work_dir;  // outlives `until`'s use of it
  if (target) {
    work_dir.emplace();
    TargetRun target_run{.tune = SelfExecutable(),
                         .python = o.python,
                         .model = o.input,
                         .dims = bound,
                         .winograd = o.winograd,
                         .sparse_attention = o.sparse_attention,
                         .threads = o.threads > 0 ? o.threads
                                                  : static_cast<int>(std::max(
                                                        1u, std::thread::hardware_concurrency())),
                         .db = embedded.db_path,
                         .work_dir = work_dir->path()};
    until.emplace(*target, target_run);
    std::cerr << "tune run: the target: " << Fixed(until->TargetSeconds() * 1e3, 4) << " ms ("
              << target->spelling << ", " << target_run.threads << " threads)\n";
    for (int64_t trials : TargetStages(o.trials)) {
      const auto start = std::chrono::steady_clock::now();
      if (int code = run_job(trials); code != 0) return code;
      const TargetCheck::Stage& stage = until->AfterStage(
          trials, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      std::cerr << "tune run: after " << trials
                << " more trials: " << Fixed(stage.latency_s * 1e3, 4) << " ms, "
                << (stage.faster ? "faster than the target: done" : "not yet faster") << "\n";
      if (stage.faster) break;
    }
  } else if (int code = run_job(o.trials); code != 0) {
    return code;
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
    if (until) out["until"] = until->Json();
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
  AddImportOptions(app, &o->winograd, &o->sparse_attention);
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
  app->add_option("--until-faster-than", o->until,
                  "tune in stages (a quarter of --trials, a quarter, the rest) and stop once the "
                  "compiled model is faster than this: ort (ONNX Runtime here, same threads and "
                  "inputs) or a latency (2.5ms, 800us)");
  app->add_option("--python", o->python,
                  "with --until-faster-than ort: the Python with onnxruntime")
      ->capture_default_str();
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() { return ExitTwoOnInputError([&] { return Run(*o); }); }};
}

}  // namespace kiln::cli
