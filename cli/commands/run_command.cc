// `tune run MODEL|KERNEL.tir --target llvm --trials N`: tunes on this machine. The tasks come
// from a model (ONNX or Relax: the tuning pipeline and task extraction of `tune tasks`) or
// are the functions of a TensorIR file. The tuning loop is the library's (search/tuner.h)
// over the local measurer: builds on every core, runs one candidate at a time in the
// sandbox, every result checked against the reference. While it runs, a per-task table
// (redrawn in place on a terminal, progress lines otherwise) goes to stderr; at the end the
// table, the best trace of each task (or, with -o, one JSON record per task in FILE) and,
// with --json, one JSON object on the last line of stdout.
//
// Exit codes: 0 tuned (every task found a correct candidate); 1 a task found none or the
// machinery failed; 2 the input or options were unusable.
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
#include "cli/commands/model_input.h"
#include "cost_model/random_cost_model.h"
#include "cost_model/xgb_cost_model.h"
#include "ir/analysis/flop_count.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "ir/text/parser.h"
#include "runtime/host_cpu.h"
#include "runtime/measurer.h"
#include "search/measure/local_measurer.h"
#include "search/space/design_space.h"
#include "search/tuner.h"
#include "support/error.h"

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
};

struct InputError {
  Error error;
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
    ModelInput input = LoadModel(o.input, bound);
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

std::string Pad(const std::string& s, size_t width, bool right = true) {
  if (s.size() >= width) return s;
  return right ? std::string(width - s.size(), ' ') + s : s + std::string(width - s.size(), ' ');
}

double Gflops(const search::TaskReport& t) {
  return t.best_seconds > 0 && t.flop > 0 ? t.flop / t.best_seconds / 1e9 : 0;
}

// TVM's task table: one row per task, then the totals.
std::vector<std::string> Table(const search::TuneReport& report) {
  size_t name_width = 4;
  for (const auto& t : report.tasks)
    name_width = std::max(name_width, std::min<size_t>(t.name.size(), 48));
  std::vector<std::string> lines;
  lines.push_back(Pad("ID", 3) + "  " + Pad("Name", name_width, false) + "  " + Pad("FLOP", 12) +
                  "  " + Pad("Weight", 6) + "  " + Pad("GFLOP/s", 8) + "  " +
                  Pad("Latency (us)", 12) + "  " + Pad("Weighted (us)", 13) + "  " +
                  Pad("Trials", 6) + "  Done");
  double total_weighted = 0;
  bool all_measured = true;
  for (size_t i = 0; i < report.tasks.size(); ++i) {
    const auto& t = report.tasks[i];
    std::string name = t.name.size() > 48 ? t.name.substr(0, 45) + "..." : t.name;
    bool has = t.best_seconds > 0;
    all_measured = all_measured && has;
    if (has) total_weighted += t.best_seconds * t.weight;
    lines.push_back(Pad(std::to_string(i), 3) + "  " + Pad(name, name_width, false) + "  " +
                    Pad(Fixed(t.flop, 0), 12) + "  " + Pad(Fixed(t.weight, 0), 6) + "  " +
                    Pad(has && t.flop > 0 ? Fixed(Gflops(t), 2) : "-", 8) + "  " +
                    Pad(has ? Fixed(t.best_seconds * 1e6, 2) : "-", 12) + "  " +
                    Pad(has ? Fixed(t.best_seconds * t.weight * 1e6, 2) : "-", 13) + "  " +
                    Pad(std::to_string(t.trials), 6) + "  " + (t.done ? "Y" : ""));
  }
  lines.push_back("Total trials: " + std::to_string(report.total_trials) +
                  "  Total weighted latency: " +
                  (all_measured ? Fixed(total_weighted * 1e6, 2) + " us" : std::string("-")) +
                  "  Elapsed: " + Fixed(report.wall_seconds, 1) + " s");
  return lines;
}

// Draws the table on stderr: in place on a terminal (at most a few times a second), as a
// line per finished round otherwise.
class ProgressPrinter {
 public:
  explicit ProgressPrinter(int64_t per_round) : per_round_(per_round), tty_(isatty(2) != 0) {}
  void operator()(const search::TuneReport& report) {
    auto now = std::chrono::steady_clock::now();
    if (tty_) {
      if (!report.finished && now - last_ < std::chrono::milliseconds(300)) return;
      last_ = now;
      std::vector<std::string> lines = Table(report);
      std::string out;
      if (drawn_ > 0) out += "\x1b[" + std::to_string(drawn_) + "A\x1b[J";
      for (const std::string& line : lines) out += line + "\n";
      drawn_ = lines.size();
      std::cerr << out << std::flush;
      return;
    }
    if (!report.finished && report.total_trials < printed_trials_ + per_round_) return;
    printed_trials_ = report.total_trials;
    std::string best;
    for (const auto& t : report.tasks) {
      if (t.best_seconds <= 0) continue;
      best +=
          (best.empty() ? "" : ", ") + t.name + " " +
          (t.flop > 0 ? Fixed(Gflops(t), 1) + " GFLOP/s" : Fixed(t.best_seconds * 1e6, 1) + " us");
    }
    std::cerr << "[" << Fixed(report.wall_seconds, 0) << " s] " << report.total_trials
              << " trials; best: " << (best.empty() ? "none yet" : best) << "\n";
  }

 private:
  int64_t per_round_;
  bool tty_;
  size_t drawn_ = 0;
  int64_t printed_trials_ = 0;
  std::chrono::steady_clock::time_point last_{};
};

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
  KILN_CHECK(device == "cpu", ErrorKind::kUnsupported,
             "--target " + o.target + ": tune run measures on this machine's CPU only");
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

  int cores = o.threads > 0 ? o.threads
                            : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  search::LocalMeasurerOptions measure;
  measure.measure.target = o.target;
  measure.measure.num_threads = cores;
  measure.measure.timing.min_repeat_ms = o.min_repeat_ms;
  measure.measure.cache_dir = o.cache_dir;
  measure.build_jobs = o.build_jobs;
  search::LocalMeasurer measurer(measure);

  search::TunerOptions options;
  options.max_trials_global = o.trials;
  options.max_trials_per_task = o.trials_per_task;
  options.trials_per_round = o.trials_per_round;
  options.strategy = o.strategy;
  options.task_scheduler = o.task_scheduler;
  options.evolutionary.population_size = o.population;
  options.target = o.target;
  options.num_cores = cores;
  options.vector_bytes = runtime::HostVectorBytes();
  options.seed = o.seed;
  std::unique_ptr<search::CostModel> model;
  if (o.cost_model == "xgb") {
    cost_model::XgbOptions xgb;
    xgb.seed = o.seed;
    model = cost_model::MakeXgbCostModel(xgb);
  } else if (o.cost_model == "random") {
    model = cost_model::MakeRandomCostModel(o.seed);
  }
  std::string preset = o.target.substr(0, o.target.find(' '));
  search::SpaceFactory space = [preset](const search::TuneContext&) {
    return search::MakeDesignSpace(preset);
  };

  search::Tuner tuner(std::move(tasks), options, measurer, space, model.get());
  ProgressPrinter printer(o.trials_per_round > 0 ? o.trials_per_round : 64);
  search::TuneReport report;
  try {
    report = tuner.Run(std::ref(printer));
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kParse) throw InputError{e};
    throw;
  }

  for (const std::string& line : Table(report)) std::cout << line << "\n";
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
  if (o.json) std::cout << ReportJson(report).dump() << "\n";
  return all_found ? 0 : 1;
}

}  // namespace

Command RegisterRunCommand(CLI::App& parent) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* app = parent.add_subcommand(
      "run", "Tune a model (.onnx, .relax) or the kernels of a .tir file on this machine");
  app->add_option("input", o->input, "an ONNX file, a Relax module or a TensorIR file")->required();
  app->add_option("--target", o->target, "codegen target (llvm or c)");
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
  app->add_option("-o,--output", o->output, "write the best trace of each task here (JSON lines)");
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() {
            try {
              return Run(*o);
            } catch (const InputError& e) {
              std::cerr << "tune: " << ErrorKindName(e.error.kind()) << ": " << e.error.what()
                        << "\n";
              return 2;
            }
          }};
}

}  // namespace kiln::cli
