// bench_measure_load: the same kernels timed on a quiet machine and with busy processes on
// every core, by one CPU measurer (the sandbox, the reference check, the early cutoff), as a
// worker that shares its machine meets them. The kernels are the 16 schedules TVM's
// MetaSchedule wrote for a 128x128x128 matmul and a 32x64x64 dense + ReLU
// (tests/data/tvm/database, TVM's own database files and their scheduled functions).
//
//   bench_measure_load [--busy N] [--repeat R] [--min-repeat-ms MS] [--json]
//
// Per kernel: the quiet and the busy median, busy / quiet, each timing's contention
// (runtime/cpu_wait.h) and what became of it under load. The figures that matter: no correct
// kernel recorded as a timeout (nor abandoned by the early cutoff) under load, every busy
// timing flagged as contended, and the best kernel's busy time within a stated factor of its
// quiet one. With --json the last line is one JSON object.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "ir/text/parser.h"
#include "runtime/cpu_wait.h"
#include "runtime/measurer.h"
#include "support/busy_processes.h"
#include "support/error.h"
#include "support/file.h"

namespace kiln::bench {
namespace {

using nlohmann::json;

struct Kernel {
  std::string name;  // "record_3 (matmul 128)"
  int workload = 0;  // index into the workloads
  ir::PrimFunc scheduled;
};

struct Timed {
  runtime::MeasureResult result;
  double wall_seconds = 0;
};

// "ok", "timeout", "abandoned" (the early cutoff's timeout with a lower bound), or the kind.
std::string Outcome(const runtime::MeasureResult& r) {
  if (r.error_kind == runtime::MeasureErrorKind::kTimeout) {
    return r.median_seconds > 0 ? "abandoned" : "timeout";
  }
  if (r.ok() && !r.correctness_checked) return "unchecked";
  return std::string(runtime::MeasureErrorKindName(r.error_kind));
}

int Main(int argc, char** argv) {
  CLI::App app{"Kernels timed quiet and with busy processes on every core"};
  int busy = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  int repeat = 3;
  double min_repeat_ms = 100;
  bool as_json = false;
  app.add_option("--busy", busy, "busy processes while loaded (default: one per core)");
  app.add_option("--repeat", repeat, "timed repeats per kernel");
  app.add_option("--min-repeat-ms", min_repeat_ms, "a repeat lasts at least this long");
  app.add_flag("--json", as_json, "one JSON object on the last line");
  CLI11_PARSE(app, argc, argv);

  const std::string dir = std::string(KILN_SOURCE_DIR) + "/tests/data/tvm/database/";
  std::vector<ir::PrimFunc> workloads;
  std::vector<std::string> workload_names = {"matmul 128", "dense+relu 32x64x64"};
  for (int w = 0; w < 2; ++w) {
    std::string path = dir + "workload_" + std::to_string(w) + ".tir";
    workloads.push_back(ir::ParsePrimFunc(ReadFile(path), path));
  }
  // TVM's database lists records 0-7 for workload 0 and 8-15 for workload 1.
  std::vector<Kernel> kernels;
  for (int k = 0; k < 16; ++k) {
    std::string path = dir + "record_" + std::to_string(k) + "_scheduled.tir";
    int w = k < 8 ? 0 : 1;
    kernels.push_back({"record_" + std::to_string(k) + " (" + workload_names[w] + ")", w,
                       ir::ParsePrimFunc(ReadFile(path), path)});
  }

  runtime::MeasureOptions options;
  options.timing.repeat = repeat;
  options.timing.min_repeat_ms = min_repeat_ms;
  options.sandbox_path = KILN_SANDBOX_PATH;
  std::unique_ptr<runtime::Measurer> measurer = runtime::CreateMeasurer("cpu", options);
  auto measure = [&](const Kernel& k) {
    auto start = std::chrono::steady_clock::now();
    Timed t;
    t.result = measurer->Measure({workloads[static_cast<size_t>(k.workload)], k.scheduled, {}});
    t.wall_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return t;
  };
  // Builds and references first, so that both passes time the same cached builds.
  for (const Kernel& k : kernels) measure(k);
  std::vector<Timed> quiet, loaded;
  for (const Kernel& k : kernels) quiet.push_back(measure(k));
  {
    BusyProcesses load(busy);
    for (const Kernel& k : kernels) loaded.push_back(measure(k));
  }

  json cases = json::array();
  std::map<std::string, int> outcomes_loaded;
  int contended_loaded = 0, contended_quiet = 0, correct_loaded = 0;
  std::vector<double> ratios;
  std::vector<double> best_quiet(workloads.size(), 0), best_loaded(workloads.size(), 0);
  std::printf("%-30s %12s %12s %8s %10s %10s  %s\n", "kernel", "quiet", "busy", "ratio",
              "cont.quiet", "cont.busy", "busy outcome");
  for (size_t i = 0; i < kernels.size(); ++i) {
    const runtime::MeasureResult& q = quiet[i].result;
    const runtime::MeasureResult& l = loaded[i].result;
    std::string outcome = Outcome(l);
    ++outcomes_loaded[outcome];
    bool both_ok = q.ok() && l.ok() && q.median_seconds > 0 && l.median_seconds > 0;
    double ratio = both_ok ? l.median_seconds / q.median_seconds : 0;
    if (both_ok) ratios.push_back(ratio);
    if (l.ok()) ++correct_loaded;
    if (l.ok() && l.contention >= runtime::kContendedShare) ++contended_loaded;
    if (q.ok() && q.contention >= runtime::kContendedShare) ++contended_quiet;
    auto w = static_cast<size_t>(kernels[i].workload);
    auto keep_best = [](double& best, const runtime::MeasureResult& r) {
      if (r.ok() && r.median_seconds > 0 && (best == 0 || r.median_seconds < best)) {
        best = r.median_seconds;
      }
    };
    keep_best(best_quiet[w], q);
    keep_best(best_loaded[w], l);
    std::printf("%-30s %10.1f us %10.1f us %8.2f %10.2f %10.2f  %s\n", kernels[i].name.c_str(),
                q.median_seconds * 1e6, l.median_seconds * 1e6, ratio, q.contention, l.contention,
                outcome.c_str());
    cases.push_back({{"kernel", kernels[i].name},
                     {"quiet_s", q.median_seconds},
                     {"busy_s", l.median_seconds},
                     {"busy_over_quiet", ratio},
                     {"quiet_contention", q.contention},
                     {"busy_contention", l.contention},
                     {"quiet_outcome", Outcome(q)},
                     {"busy_outcome", outcome},
                     {"busy_message", l.message},
                     {"quiet_wall_s", quiet[i].wall_seconds},
                     {"busy_wall_s", loaded[i].wall_seconds}});
  }
  std::sort(ratios.begin(), ratios.end());
  double median_ratio = ratios.empty() ? 0 : ratios[ratios.size() / 2];
  json best = json::array();
  for (size_t w = 0; w < workloads.size(); ++w) {
    double factor = best_quiet[w] > 0 && best_loaded[w] > 0 ? best_loaded[w] / best_quiet[w] : 0;
    std::printf("best %-20s quiet %.1f us, busy %.1f us: %.2fx\n", workload_names[w].c_str(),
                best_quiet[w] * 1e6, best_loaded[w] * 1e6, factor);
    best.push_back({{"workload", workload_names[w]},
                    {"quiet_s", best_quiet[w]},
                    {"busy_s", best_loaded[w]},
                    {"busy_over_quiet", factor}});
  }
  int timeouts = outcomes_loaded["timeout"] + outcomes_loaded["abandoned"];
  std::printf(
      "%d busy processes on %u cores: %d of %zu correct under load, %d timed out or abandoned; "
      "%d of the correct flagged contended (quiet: %d); median busy / quiet %.2f\n",
      busy, std::thread::hardware_concurrency(), correct_loaded, kernels.size(), timeouts,
      contended_loaded, contended_quiet, median_ratio);
  if (as_json) {
    json out = {{"busy_processes", busy},
                {"cores", std::thread::hardware_concurrency()},
                {"kernels", cases},
                {"best", best},
                {"busy_outcomes", outcomes_loaded},
                {"busy_correct", correct_loaded},
                {"busy_timeouts", timeouts},
                {"busy_contended", contended_loaded},
                {"quiet_contended", contended_quiet},
                {"median_busy_over_quiet", median_ratio}};
    std::printf("%s\n", out.dump().c_str());
  }
  return timeouts == 0 ? 0 : 1;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  try {
    return kiln::bench::Main(argc, argv);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "bench_measure_load: %s\n", e.what());
    return 2;
  }
}
