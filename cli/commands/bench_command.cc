// `tune bench MODEL.kiln [--threads N] [--repeat R] [--json]`: times a compiled model on
// random inputs (or on .npy files, --input NAME=FILE.npy, as `tune infer` takes them) with the one
// timing definition (runtime/timing.h: warm-up, runs per repeat grown to --min-repeat-ms, the
// median over repeats) and reports the memory its plan needs: the arena of intermediates after
// reuse (against the live-bytes lower bound and against no reuse), outputs and weights. Symbolic
// dims take --dim values, else --default-dim. The graph that runs (a model with shape buckets has
// one per bucket beside the fallback) is named: "graph: bucket seq_len=32 (exact)", "(padded from
// batch=5)", or "fallback", with what choosing it costs a call (`dispatch_s`).
// --profile adds where the time goes: per node of that graph (each kernel or library call, and
// each view at no cost) its kind, task, the variant that ran (tuned with its record, untuned,
// the library), median microseconds over --repeat runs timed one step
// at a time, and its share of their sum; in --json, a "profile" array.
//
// Exit codes: 0 measured; 1 the run failed; 2 the artifact or options were unusable.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "cli/commands/model_runner.h"
#include "runtime/timing.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

struct BenchOptions {
  std::string model;
  int threads = 0;
  int repeat = 10;
  int warmup = 3;
  double min_repeat_ms = 100;
  std::vector<std::string> dims;
  int64_t default_dim = 128;
  uint64_t seed = 1;
  std::vector<std::string> inputs;  // NAME=FILE.npy: these instead of random inputs
  bool profile = false;
  bool json = false;
};

struct ProfileRow {
  std::string node;
  std::string kind;  // kernel, library or view
  std::string task;
  std::string variant;  // "tuned (record 12)", "untuned", "library:dnnl_sgemm", "view"
  double median_s = 0;
};

// How the chosen graph runs `task`, from its manifest entry.
std::string Variant(const std::vector<runtime::model::ManifestTask>& tasks,
                    const std::string& task) {
  for (const runtime::model::ManifestTask& t : tasks) {
    if (t.name != task) continue;
    if (t.kind != "kernel") return t.impl;
    return t.record_id ? "tuned (record " + std::to_string(*t.record_id) + ")" : "untuned";
  }
  return "-";
}

// Per step of the graph these inputs run, the median over `runs` runs; views last at zero.
std::vector<ProfileRow> ProfileSteps(runtime::model::Executor& executor,
                                     const std::vector<ir::HostTensor>& inputs, int runs) {
  std::vector<std::vector<int64_t>> shapes;
  for (const ir::HostTensor& t : inputs) shapes.push_back(t.shape());
  const runtime::model::GraphChoice& choice = executor.Choose(shapes);
  const runtime::model::Graph& g = executor.GraphOf(choice);
  const runtime::model::Manifest& m = executor.artifact().manifest;
  const std::vector<runtime::model::ManifestTask>& tasks =
      choice.bucket < 0 ? m.tasks : m.buckets[choice.bucket].tasks;
  std::vector<std::vector<double>> samples(g.steps.size());
  std::vector<double> step_seconds;
  for (int r = 0; r < runs; ++r) {
    executor.Run(inputs, &step_seconds);
    for (size_t s = 0; s < step_seconds.size(); ++s) samples[s].push_back(step_seconds[s]);
  }
  std::vector<ProfileRow> rows;
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const runtime::model::GraphKernel& k = g.kernels[g.steps[s].kernel];
    std::string node =
        std::to_string(s) + " " +
        (g.steps[s].outputs.empty() ? k.symbol : g.values[g.steps[s].outputs[0]].name);
    rows.push_back({node, k.library.empty() ? "kernel" : "library", k.task, Variant(tasks, k.task),
                    runtime::Median(samples[s])});
  }
  for (const runtime::model::GraphValue& v : g.values) {
    if (v.kind == runtime::model::ValueKind::kView) {
      rows.push_back({"- " + v.name, "view", "view of " + g.values[v.source].name,
                      v.check.empty() ? "view" : "checked view", 0});
    }
  }
  return rows;
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

json ProfileJson(const std::vector<ProfileRow>& rows) {
  double total = 0;
  for (const ProfileRow& r : rows) total += r.median_s;
  json out = json::array();
  for (const ProfileRow& r : rows) {
    out.push_back({{"node", r.node},
                   {"kind", r.kind},
                   {"task", r.task},
                   {"variant", r.variant},
                   {"median_s", r.median_s},
                   {"share", total > 0 ? r.median_s / total : 0.0}});
  }
  return out;
}

int Run(const BenchOptions& o) {
  std::unique_ptr<runtime::model::Executor> executor;
  std::vector<std::vector<int64_t>> shapes;
  std::vector<std::string> defaulted;
  std::vector<ir::HostTensor> inputs;
  try {
    executor = LoadModelArtifact(o.model, o.threads);
    if (!o.inputs.empty()) {
      KILN_CHECK(o.dims.empty(), ErrorKind::kParse,
                 "--dim and --input: the input files give the shapes");
      inputs = ReadInputFiles(*executor, o.inputs);
      for (const ir::HostTensor& t : inputs) shapes.push_back(t.shape());
      executor->Choose(shapes);  // inputs that do not fit the model are refused here
    } else {
      shapes = InputShapes(*executor, ParseDims(o.dims), o.default_dim, &defaulted);
    }
  } catch (const Error& e) {
    std::cerr << "tune: " << ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 2;
  }
  if (!defaulted.empty()) {
    std::string names;
    for (const std::string& d : defaulted) names += (names.empty() ? "" : ", ") + d;
    std::cerr << "tune bench: " << names << " = " << o.default_dim << " (choose with --dim)\n";
  }
  std::vector<runtime::model::InputInfo> infos = executor->inputs();
  for (size_t i = inputs.size(); i < infos.size(); ++i) {
    inputs.push_back(ir::HostTensor::Random(infos[i].dtype, shapes[i], o.seed + i));
  }
  runtime::model::PlanStats plan = executor->Plan(shapes);
  runtime::TimingConfig timing;
  timing.number = 1;
  timing.repeat = o.repeat;
  timing.warmup = o.warmup;
  timing.min_repeat_ms = o.min_repeat_ms;
  runtime::TimingResult result = runtime::TimeFunction([&] { executor->Run(inputs); }, timing);
  double best = result.seconds_per_run.empty() ? 0 : result.seconds_per_run[0];
  for (double s : result.seconds_per_run) best = std::min(best, s);

  // What choosing the graph costs a call (the input shapes read, the choice looked up), over
  // enough calls to be above the clock's resolution.
  runtime::TimingConfig dispatch_timing;
  dispatch_timing.repeat = 5;
  dispatch_timing.min_repeat_ms = 10;
  runtime::TimingResult dispatch = runtime::TimeFunction(
      [&] {
        std::vector<std::vector<int64_t>> called;
        called.reserve(inputs.size());
        for (const ir::HostTensor& t : inputs) called.push_back(t.shape());
        executor->Choose(called);
      },
      dispatch_timing);

  const runtime::model::Manifest& m = executor->artifact().manifest;
  const runtime::model::GraphChoice& choice = executor->Choose(shapes);
  const std::vector<runtime::model::ManifestTask>& graph_tasks =
      choice.bucket < 0 ? m.tasks : m.buckets[choice.bucket].tasks;
  int64_t tuned = 0, untuned = 0, library = 0;
  for (const auto& t : graph_tasks) {
    library += t.kind == "library" ? 1 : 0;
    if (t.kind != "kernel") continue;
    (t.record_id ? tuned : untuned) += 1;
  }
  std::vector<ProfileRow> profile;
  if (o.profile) profile = ProfileSteps(*executor, inputs, o.repeat);
  std::string shape_text;
  for (size_t i = 0; i < shapes.size(); ++i) {
    shape_text += (i ? ", " : "") + infos[i].name + ShapeText(shapes[i]);
  }
  std::cout << o.model << ": " << shape_text << ", " << executor->threads() << " threads\n"
            << "graph: " << choice.Describe(m)
            << " (choosing it: " << Fixed(dispatch.median_seconds * 1e9, 0) << " ns a call)\n"
            << "latency: median " << Fixed(result.median_seconds * 1e3, 4) << " ms, best "
            << Fixed(best * 1e3, 4) << " ms over " << o.repeat << " repeats of " << result.number
            << " runs\n"
            << "memory: peak " << plan.peak_bytes() << " bytes (intermediates " << plan.arena_bytes
            << ", lower bound " << plan.lower_bound_bytes << ", without reuse "
            << plan.unshared_bytes << "; outputs " << plan.output_bytes << "; weights "
            << plan.constant_bytes << ")\n"
            << "kernels: " << plan.kernel_calls << " calls, " << plan.views << " views; tasks "
            << tuned << " tuned, " << untuned << " untuned, " << library << " library\n";
  if (o.profile) {
    double total = 0;
    size_t node_width = 4, task_width = 4;
    for (const ProfileRow& r : profile) {
      total += r.median_s;
      node_width = std::max(node_width, std::min<size_t>(r.node.size(), 40));
      task_width = std::max(task_width, std::min<size_t>(r.task.size(), 48));
    }
    auto pad = [](std::string text, size_t w) {
      text = text.substr(0, w);
      return text + std::string(w - text.size(), ' ');
    };
    std::cout << "\nprofile (median of " << o.repeat << " runs, one step at a time):\n"
              << pad("node", node_width) << "  " << pad("kind", 7) << "  "
              << pad("task", task_width) << "  " << pad("variant", 18) << "  "
              << pad("median us", 11) << "  share\n";
    for (const ProfileRow& r : profile) {
      std::cout << pad(r.node, node_width) << "  " << pad(r.kind, 7) << "  "
                << pad(r.task, task_width) << "  " << pad(r.variant, 18) << "  "
                << pad(Fixed(r.median_s * 1e6, 1), 11) << "  "
                << Fixed(total > 0 ? 100 * r.median_s / total : 0, 1) << "%\n";
    }
    std::cout << pad("total", node_width) << "  " << pad("", 7) << "  " << pad("", task_width)
              << "  " << pad("", 18) << "  " << Fixed(total * 1e6, 1) << "\n";
  }
  if (o.json) {
    json input_shapes = json::object();
    for (size_t i = 0; i < shapes.size(); ++i) input_shapes[infos[i].name] = shapes[i];
    json out = {{"model", o.model},
                {"threads", executor->threads()},
                {"input_shapes", input_shapes},
                {"median_s", result.median_seconds},
                {"best_s", best},
                {"dispatch_s", dispatch.median_seconds},
                {"repeats_s", result.seconds_per_run},
                {"runs_per_repeat", result.number},
                {"peak_bytes", plan.peak_bytes()},
                {"arena_bytes", plan.arena_bytes},
                {"lower_bound_bytes", plan.lower_bound_bytes},
                {"unshared_bytes", plan.unshared_bytes},
                {"output_bytes", plan.output_bytes},
                {"constant_bytes", plan.constant_bytes},
                {"kernel_calls", plan.kernel_calls},
                {"views", plan.views},
                {"tuned_tasks", tuned},
                {"untuned_tasks", untuned},
                {"library_tasks", library},
                {"graph", choice.Describe(m)},
                {"bucket", choice.bucket < 0 ? json() : json(m.buckets[choice.bucket].name)},
                {"padded", choice.how == runtime::model::GraphChoice::How::kPadded}};
    if (o.profile) out["profile"] = ProfileJson(profile);
    std::cout << out.dump() << "\n";
  }
  return 0;
}

}  // namespace

Command RegisterBenchCommand(CLI::App& parent) {
  auto o = std::make_shared<BenchOptions>();
  CLI::App* app = parent.add_subcommand(
      "bench", "Time a compiled model (tune compile's artifact) on random inputs");
  app->add_option("model", o->model, "a model artifact directory (MODEL.kiln)")->required();
  app->add_option("--threads", o->threads, "threads of the kernels (0: every core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--repeat", o->repeat, "timed repeats; the median is reported")
      ->check(CLI::PositiveNumber);
  app->add_option("--warmup", o->warmup, "untimed runs first")->check(CLI::NonNegativeNumber);
  app->add_option("--min-repeat-ms", o->min_repeat_ms, "each repeat lasts at least this long")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--dim", o->dims, "value of a symbolic dim of the inputs, NAME=VALUE");
  app->add_option("--default-dim", o->default_dim, "value of the symbolic dims not given")
      ->check(CLI::PositiveNumber);
  app->add_option("--seed", o->seed, "seed of the random inputs");
  app->add_option("--input", o->inputs,
                  "time on these inputs instead of random ones, NAME=FILE.npy (one per input)");
  app->add_flag("--profile", o->profile,
                "time each node of the graph (kernel, library call, view) over --repeat runs");
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() { return Run(*o); }};
}

}  // namespace kiln::cli
