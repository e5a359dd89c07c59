// bench_tune: Kiln's search against the libraries and against random search, in one run.
//
//   1. float32 matmul 1024^3: tuned with the evolutionary search and the XGBoost model; the
//      best kernel is built and timed in this process against oneDNN's dnnl_sgemm and
//      OpenBLAS's cblas_sgemm at the same thread count.
//   2. The tuning curve: replay-trace (random search) on the same matmul with the same
//      number of trials; how soon the guided search reaches the random search's final best.
//   3. Fused dense + bias + GELU (M=512, N=3072, K=768) against oneDNN's GEMM followed by a
//      separate bias + GELU pass.
//   4. conv2d NCHW 1x64x56x56, 64 filters 3x3, pad 1, against oneDNN's convolution primitive
//      on the same NCHW memory (conv2d_vs_onednn) and on the blocked layouts it prefers, the
//      reorders into them not timed (conv2d_vs_onednn_blocked).
//   5. Candidates per second over every tuning, with the time split into search, build, run
//      (sandbox, kernel runs, reference check) and idle, and how many the early cutoff timed
//      from fewer runs (--cutoff-factor).
//
// Ratios are library time / Kiln time (above 1: Kiln is faster), each the median over
// interleaved rounds. --json prints one JSON object on the last line. --trials and the
// per-part trial options allow a quick run.
#include <omp.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <thread>

#include "bench/baselines.h"
#include "bench/matmul_manual.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "cost_model/xgb_cost_model.h"
#include "ir/analysis/flop_count.h"
#include "ir/host_tensor.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/host_cpu.h"
#include "runtime/kernel_args.h"
#include "runtime/timing.h"
#include "search/measure/local_measurer.h"
#include "search/space/design_space.h"
#include "search/tuner.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr char kDenseBiasGelu[] = R"(
@T.prim_func
def dense_bias_gelu(A: T.Buffer((512, 768), "float32"), W: T.Buffer((768, 3072), "float32"), bias: T.Buffer((3072,), "float32"), out: T.Buffer((512, 3072), "float32")):
    T.func_attr({"tir.noalias": True})
    C = T.alloc_buffer((512, 3072), "float32")
    for i, j, k in T.grid(512, 3072, 768):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * W[vk, vj]
    for i, j in T.grid(512, 3072):
        with T.block("out"):
            vi, vj = T.axis.remap("SS", [i, j])
            out[vi, vj] = (C[vi, vj] + bias[vj]) * T.float32(0.5) * (T.float32(1) + T.erf((C[vi, vj] + bias[vj]) * T.float32(0.70710678118654757)))
)";

constexpr char kConv2d[] = R"(
@T.prim_func
def conv2d(X: T.Buffer((1, 64, 56, 56), "float32"), W: T.Buffer((64, 64, 3, 3), "float32"), Y: T.Buffer((1, 64, 56, 56), "float32")):
    T.func_attr({"tir.noalias": True})
    pad = T.alloc_buffer((1, 64, 58, 58), "float32")
    for n, c, h, w in T.grid(1, 64, 58, 58):
        with T.block("pad"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            pad[vn, vc, vh, vw] = T.Select(1 <= vh and vh < 57 and (1 <= vw and vw < 57), X[vn, vc, T.max(T.min(vh - 1, 55), 0), T.max(T.min(vw - 1, 55), 0)], T.float32(0))
    for n, f, y, x, c, r, s in T.grid(1, 64, 56, 56, 64, 3, 3):
        with T.block("conv"):
            vn, vf, vy, vx, vc, vr, vs = T.axis.remap("SSSSRRR", [n, f, y, x, c, r, s])
            with T.init():
                Y[vn, vf, vy, vx] = T.float32(0)
            Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + pad[vn, vc, vy + vr, vx + vs] * W[vf, vc, vr, vs]
)";

struct Options {
  int64_t trials = 1000;
  int64_t random_trials = 0;  // 0: --trials
  int64_t dense_trials = 0;   // 0: --trials / 2
  int64_t conv_trials = 0;    // 0: --trials / 2
  int threads = 2;
  int population = 512;
  int rounds_in_flight = search::TunerOptions{}.max_rounds_in_flight;
  int rounds = 3;
  double min_repeat_ms = 100;
  double cutoff_factor = runtime::MeasureOptions{}.cutoff_factor;
  std::vector<std::string> parts = {"matmul", "curve", "dense", "conv"};
  uint64_t seed = 1;
  bool json = false;
  std::string dump_dir;  // non-empty: each tuning's measured candidates as a cost-model dataset
};

// Passes requests through to `inner` and keeps every candidate's record and time, so that a
// tuning's measurements can be written as a cost-model dataset (cost_model/tools/dataset.h).
class RecordingMeasurer : public search::AsyncMeasurer {
 public:
  explicit RecordingMeasurer(search::AsyncMeasurer& inner) : inner_(inner) {}
  void Submit(std::vector<search::MeasureRequest> requests) override {
    for (const auto& r : requests) {
      if (!r.untuned) traces_[r.id] = r.trace;
    }
    inner_.Submit(std::move(requests));
  }
  std::vector<search::MeasureResponse> Collect(double timeout_s) override {
    std::vector<search::MeasureResponse> responses = inner_.Collect(timeout_s);
    for (const auto& r : responses) {
      auto it = traces_.find(r.id);
      if (it == traces_.end() || !r.machinery_error.empty()) continue;
      bool ok = r.result.ok() && r.result.correctness_checked && r.result.median_seconds > 0;
      records_.push_back(
          {{"trace", it->second.ToJSON()}, {"run_s", ok ? r.result.median_seconds : 0.0}});
      traces_.erase(it);
    }
    return responses;
  }
  size_t Pending() const override { return inner_.Pending(); }
  void Write(const std::string& path, const std::string& name, const ir::PrimFunc& workload) const {
    json doc = {{"name", name},
                {"workload", ir::PrintPrimFunc(workload)},
                {"target", "llvm"},
                {"records", records_}};
    std::ofstream(path) << doc.dump() << "\n";
  }

 private:
  search::AsyncMeasurer& inner_;
  std::map<uint64_t, search::Trace> traces_;
  json records_ = json::array();
};

struct Tuned {
  search::TuneReport report;
  search::LocalMeasurerStats measure;
  ir::PrimFunc best;  // the best trace replayed on the workload
};

Tuned Tune(const ir::PrimFunc& workload, const std::string& name, int64_t trials,
           const std::string& strategy, const Options& opt, const std::string& cache_dir) {
  search::LocalMeasurerOptions measure;
  measure.measure.num_threads = opt.threads;
  measure.measure.timing.min_repeat_ms = opt.min_repeat_ms;
  measure.measure.cutoff_factor = opt.cutoff_factor;
  measure.measure.cache_dir = cache_dir;
  search::LocalMeasurer local(measure);
  RecordingMeasurer measurer(local);
  search::TunerOptions options;
  options.max_trials_global = trials;
  options.strategy = strategy;
  options.evolutionary.population_size = opt.population;
  options.max_rounds_in_flight = opt.rounds_in_flight;
  options.num_cores = opt.threads;
  options.vector_bytes = runtime::HostVectorBytes();
  options.seed = opt.seed;
  options.measure_untuned = false;
  cost_model::XgbOptions xgb;
  xgb.seed = opt.seed;
  std::unique_ptr<search::CostModel> model =
      strategy == "evolutionary" ? cost_model::MakeXgbCostModel(xgb) : nullptr;
  search::Tuner tuner(
      {{.name = name, .workload = workload, .weight = 1, .flop = ir::EstimateFlops(workload, {})}},
      options, measurer, [](const search::TuneContext&) { return search::MakeDesignSpace("cpu"); },
      model.get());
  int64_t printed = 0;
  Tuned out;
  out.report = tuner.Run([&](const search::TuneReport& r) {
    if (r.total_trials < printed + 64 && !r.finished) return;
    printed = r.total_trials;
    const auto& t = r.tasks[0];
    std::cerr << "  " << name << " (" << strategy << "): " << r.total_trials << " trials, "
              << std::round(r.wall_seconds) << " s, best "
              << (t.best_seconds > 0 ? t.flop / t.best_seconds / 1e9 : 0) << " GFLOP/s\n";
  });
  out.measure = local.Stats();
  if (!opt.dump_dir.empty()) {
    std::filesystem::create_directories(opt.dump_dir);
    measurer.Write(opt.dump_dir + "/" + name + "_" + strategy + ".json", name, workload);
  }
  const auto& task = out.report.tasks[0];
  KILN_CHECK(task.best_trace.has_value(), ErrorKind::kRuntime,
             name + ": the search found no correct candidate (" + task.failure + ")");
  out.best = search::ReplayTrace(workload, *task.best_trace);
  return out;
}

struct Kernel {
  runtime::CpuModule module;
  runtime::KernelFunction fn = nullptr;
  codegen::KernelSignature signature;
};

Kernel Build(const ir::PrimFunc& scheduled, const std::string& cache_dir) {
  codegen::EmittedSource source = codegen::EmitC(
      codegen::Lower(scheduled, codegen::CTarget().DefaultLowerOptions()), "kiln_bench_tuned");
  runtime::BuildOptions build;
  build.cache_dir = cache_dir;
  runtime::BuildResult built = runtime::BuildCSource(source.code, build);
  KILN_CHECK(built.ok, ErrorKind::kRuntime, "building the tuned kernel failed: " + built.error);
  runtime::CpuModule module = runtime::CpuModule::Load(built.library_path, /*keep_loaded=*/true);
  runtime::KernelFunction fn = module.GetKernel(source.signature.symbol);
  return {std::move(module), fn, source.signature};
}

struct Contender {
  std::function<void(int)> set_threads;
  std::function<void()> run;
};

// The median over interleaved rounds of baseline time / Kiln time; contenders[0] is Kiln.
std::vector<double> Ratios(std::vector<Contender>& contenders, const Options& opt) {
  runtime::TimingConfig timing;
  timing.number = 1;
  timing.repeat = 5;
  timing.min_repeat_ms = 100;
  timing.warmup = 2;
  std::vector<std::vector<double>> seconds(contenders.size());
  for (int round = 0; round < opt.rounds; ++round) {
    for (size_t i = 0; i < contenders.size(); ++i) {
      contenders[i].set_threads(opt.threads);
      // Let the previous library's spinning workers fall asleep first.
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      seconds[i].push_back(runtime::TimeFunction(contenders[i].run, timing).median_seconds);
    }
  }
  std::vector<double> ratios;
  for (size_t i = 1; i < contenders.size(); ++i) {
    std::vector<double> r;
    for (int round = 0; round < opt.rounds; ++round)
      r.push_back(seconds[i][round] / seconds[0][round]);
    ratios.push_back(runtime::Median(r));
  }
  ratios.push_back(runtime::Median(seconds[0]));  // Kiln's own time, last
  return ratios;
}

double MaxAbsDiff(const ir::HostTensor& a, const ir::HostTensor& b) {
  const auto* x = static_cast<const float*>(a.data());
  const auto* y = static_cast<const float*>(b.data());
  double worst = 0;
  for (int64_t i = 0; i < a.numel(); ++i) worst = std::max(worst, std::fabs(double(x[i]) - y[i]));
  return worst;
}

void BiasGelu(float* c, const float* bias, int64_t m, int64_t n) {
#pragma omp parallel for
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      float x = c[i * n + j] + bias[j];
      c[i * n + j] = x * 0.5f * (1.0f + std::erf(x * 0.70710678118654757f));
    }
  }
}

bool Wants(const Options& opt, const std::string& part) {
  return std::find(opt.parts.begin(), opt.parts.end(), part) != opt.parts.end();
}

int Run(const Options& opt) {
  const ir::DataType f32 = ir::DataType::Float(32);
  char dir_template[] = "/tmp/kiln_bench_tune_XXXXXX";
  KILN_CHECK(mkdtemp(dir_template) != nullptr, ErrorKind::kIO, "cannot create a temporary folder");
  std::string cache_dir = dir_template;
  json out = {{"threads", opt.threads},
              {"trials", opt.trials},
              {"openblas", OpenBlasVersion()},
              {"onednn", OneDnnVersion()}};
  double total_wall = 0, total_search = 0, total_build = 0, total_run = 0;
  int64_t total_trials = 0;
  search::LocalMeasurerStats total_measure;
  auto account = [&](const Tuned& t) {
    total_wall += t.report.wall_seconds;
    total_search += t.report.search_seconds;
    total_build += t.measure.build_seconds;
    total_run += t.measure.run_seconds;
    total_trials += t.report.total_trials;
    total_measure.cut_off += t.measure.cut_off;
    total_measure.abandoned += t.measure.abandoned;
    total_measure.sandbox_seconds += t.measure.sandbox_seconds;
    total_measure.kernel_seconds += t.measure.kernel_seconds;
    total_measure.check_seconds += t.measure.check_seconds;
    total_measure.idle_seconds += t.measure.idle_seconds;
  };
  auto curve_json = [](const search::TaskReport& t) {
    json c = json::array();
    for (const auto& [trials, seconds] : t.curve) c.push_back({trials, t.flop / seconds / 1e9});
    return c;
  };

  std::optional<Tuned> guided;
  if (Wants(opt, "matmul") || Wants(opt, "curve")) {
    ir::PrimFunc workload = MatmulWorkload(1024, 1024, 1024);
    std::cerr << "matmul 1024^3, evolutionary + XGBoost, " << opt.trials << " trials\n";
    guided = Tune(workload, "matmul", opt.trials, "evolutionary", opt, cache_dir);
    account(*guided);
    const auto& task = guided->report.tasks[0];
    out["matmul_tuned_gflops_in_search"] = task.flop / task.best_seconds / 1e9;
    out["matmul_curve_guided"] = curve_json(task);
    out["matmul_best_trace"] = task.best_trace->ToJSON();

    Kernel kernel = Build(guided->best, cache_dir);
    std::vector<ir::ArgValue> args = {ir::HostTensor::Random(f32, {1024, 1024}, 1, -1, 1),
                                      ir::HostTensor::Random(f32, {1024, 1024}, 2, -1, 1),
                                      ir::HostTensor(f32, {1024, 1024})};
    auto packed = runtime::PackArguments(kernel.signature, args);
    const auto* a = static_cast<const float*>(std::get<ir::HostTensor>(args[0]).data());
    const auto* b = static_cast<const float*>(std::get<ir::HostTensor>(args[1]).data());
    ir::HostTensor blas_c(f32, {1024, 1024}), dnnl_c(f32, {1024, 1024});
    SgemmShape shape{1024, 1024, 1024};
    std::vector<Contender> contenders = {
        {[](int t) { SetOpenMpThreads(t); },
         [&] { runtime::CallKernel(kernel.fn, kernel.signature, packed); }},
        {[](int t) { SetOpenMpThreads(t); },
         [&] { OneDnnSgemm(shape, a, b, static_cast<float*>(dnnl_c.data())); }},
        {[](int t) { SetOpenBlasThreads(t); },
         [&] { OpenBlasSgemm(shape, a, b, static_cast<float*>(blas_c.data())); }},
    };
    std::vector<double> ratios = Ratios(contenders, opt);
    out["matmul_vs_onednn"] = ratios[0];
    out["matmul_vs_openblas"] = ratios[1];
    out["matmul_gflops"] = 2.0 * 1024 * 1024 * 1024 / ratios[2] / 1e9;
    out["matmul_max_abs_error_vs_openblas"] = MaxAbsDiff(std::get<ir::HostTensor>(args[2]), blas_c);
  }

  if (Wants(opt, "curve") && guided) {
    int64_t n = opt.random_trials > 0 ? opt.random_trials : opt.trials;
    std::cerr << "matmul 1024^3, replay-trace (random), " << n << " trials\n";
    Tuned random = Tune(MatmulWorkload(1024, 1024, 1024), "matmul", n, "random", opt, cache_dir);
    account(random);
    const auto& rt = random.report.tasks[0];
    const auto& gt = guided->report.tasks[0];
    out["matmul_curve_random"] = curve_json(rt);
    out["random_best_gflops"] = rt.flop / rt.best_seconds / 1e9;
    out["guided_best_gflops"] = gt.flop / gt.best_seconds / 1e9;
    json reached = nullptr;
    for (const auto& [trials, seconds] : gt.curve) {
      if (seconds <= rt.best_seconds) {
        reached = static_cast<double>(trials) / static_cast<double>(n);
        break;
      }
    }
    // null: the guided search never reached the random search's best.
    out["guided_trials_to_random_best"] = reached;
  }

  if (Wants(opt, "dense")) {
    ir::PrimFunc workload = ir::ParsePrimFunc(kDenseBiasGelu, "<dense_bias_gelu>");
    int64_t n = opt.dense_trials > 0 ? opt.dense_trials : std::max<int64_t>(1, opt.trials / 2);
    std::cerr << "dense + bias + GELU 512x3072x768, " << n << " trials\n";
    Tuned tuned = Tune(workload, "dense_bias_gelu", n, "evolutionary", opt, cache_dir);
    account(tuned);
    Kernel kernel = Build(tuned.best, cache_dir);
    std::vector<ir::ArgValue> args = {ir::HostTensor::Random(f32, {512, 768}, 1, -1, 1),
                                      ir::HostTensor::Random(f32, {768, 3072}, 2, -1, 1),
                                      ir::HostTensor::Random(f32, {3072}, 3, -1, 1),
                                      ir::HostTensor(f32, {512, 3072})};
    auto packed = runtime::PackArguments(kernel.signature, args);
    const auto* a = static_cast<const float*>(std::get<ir::HostTensor>(args[0]).data());
    const auto* w = static_cast<const float*>(std::get<ir::HostTensor>(args[1]).data());
    const auto* bias = static_cast<const float*>(std::get<ir::HostTensor>(args[2]).data());
    ir::HostTensor dnnl_out(f32, {512, 3072});
    std::vector<Contender> contenders = {
        {[](int t) { SetOpenMpThreads(t); },
         [&] { runtime::CallKernel(kernel.fn, kernel.signature, packed); }},
        {[](int t) { SetOpenMpThreads(t); },
         [&] {
           float* c = static_cast<float*>(dnnl_out.data());
           OneDnnSgemm({512, 3072, 768}, a, w, c);
           BiasGelu(c, bias, 512, 3072);
         }},
    };
    std::vector<double> ratios = Ratios(contenders, opt);
    out["dense_bias_gelu_vs_onednn"] = ratios[0];
    out["dense_bias_gelu_gflops"] = ir::EstimateFlops(workload, {}) / ratios[1] / 1e9;
    out["dense_bias_gelu_max_abs_error"] = MaxAbsDiff(std::get<ir::HostTensor>(args[3]), dnnl_out);
  }

  if (Wants(opt, "conv")) {
    ir::PrimFunc workload = ir::ParsePrimFunc(kConv2d, "<conv2d>");
    int64_t n = opt.conv_trials > 0 ? opt.conv_trials : std::max<int64_t>(1, opt.trials / 2);
    std::cerr << "conv2d 1x64x56x56, 64 3x3 filters, " << n << " trials\n";
    Tuned tuned = Tune(workload, "conv2d", n, "evolutionary", opt, cache_dir);
    account(tuned);
    const auto& conv_task = tuned.report.tasks[0];
    out["conv2d_tuned_gflops_in_search"] = conv_task.flop / conv_task.best_seconds / 1e9;
    out["conv2d_best_trace"] = conv_task.best_trace->ToJSON();
    Kernel kernel = Build(tuned.best, cache_dir);
    std::vector<ir::ArgValue> args = {ir::HostTensor::Random(f32, {1, 64, 56, 56}, 1, -1, 1),
                                      ir::HostTensor::Random(f32, {64, 64, 3, 3}, 2, -1, 1),
                                      ir::HostTensor(f32, {1, 64, 56, 56})};
    auto packed = runtime::PackArguments(kernel.signature, args);
    const auto* x = static_cast<const float*>(std::get<ir::HostTensor>(args[0]).data());
    const auto* w = static_cast<const float*>(std::get<ir::HostTensor>(args[1]).data());
    // The primitives are made for the thread count current at their creation.
    SetOpenMpThreads(opt.threads);
    Conv2dShape shape;  // its defaults are this convolution
    OneDnnConv2d plain(shape, ConvLayout::kPlain), blocked(shape, ConvLayout::kBlocked);
    plain.SetInputs(x, w);
    blocked.SetInputs(x, w);
    std::vector<Contender> contenders = {
        {[](int t) { SetOpenMpThreads(t); },
         [&] { runtime::CallKernel(kernel.fn, kernel.signature, packed); }},
        {[](int t) { SetOpenMpThreads(t); }, [&] { plain.Run(); }},
        {[](int t) { SetOpenMpThreads(t); }, [&] { blocked.Run(); }},
    };
    std::vector<double> ratios = Ratios(contenders, opt);
    ir::HostTensor dnnl_y(f32, {1, 64, 56, 56});
    plain.GetOutput(static_cast<float*>(dnnl_y.data()));
    out["conv2d_vs_onednn"] = ratios[0];
    out["conv2d_vs_onednn_blocked"] = ratios[1];
    out["conv2d_baseline"] = "oneDNN convolution primitive on NCHW (" + plain.Description() + ")";
    out["conv2d_blocked_baseline"] =
        "oneDNN convolution primitive on its preferred layouts, reorders not timed (" +
        blocked.Description() + ")";
    out["conv2d_gflops"] = ir::EstimateFlops(workload, {}) / ratios[2] / 1e9;
    out["conv2d_max_abs_error"] = MaxAbsDiff(std::get<ir::HostTensor>(args[2]), dnnl_y);
  }

  std::error_code ec;
  fs::remove_all(cache_dir, ec);
  out["candidates_per_s"] = total_wall > 0 ? total_trials / total_wall : 0;
  out["candidates"] = total_trials;
  out["tuning_wall_s"] = total_wall;
  // Per candidate: search time overlaps measurement; build is summed over builder threads.
  out["search_s_per_candidate"] = total_trials ? total_search / total_trials : 0;
  out["build_s_per_candidate"] = total_trials ? total_build / total_trials : 0;
  out["run_s_per_candidate"] = total_trials ? total_run / total_trials : 0;
  // The run split: the sandbox process (of which the kernel's own runs: checked run, warm-up,
  // timed batches) and the comparison with the reference; the rest is files and waiting.
  auto per_candidate = [&](double seconds) { return total_trials ? seconds / total_trials : 0; };
  out["run_sandbox_s_per_candidate"] = per_candidate(total_measure.sandbox_seconds);
  out["run_kernel_s_per_candidate"] = per_candidate(total_measure.kernel_seconds);
  out["run_check_s_per_candidate"] = per_candidate(total_measure.check_seconds);
  // Wall time with neither a build nor a run in flight (waiting for the search, or for the
  // reference of a new workload).
  out["measure_idle_s_per_candidate"] = per_candidate(total_measure.idle_seconds);
  out["cut_off_candidates"] = total_measure.cut_off;
  out["abandoned_candidates"] = total_measure.abandoned;
  out["cutoff_factor"] = opt.cutoff_factor;

  for (const auto& [key, value] : out.items()) {
    if (value.is_number() || value.is_string()) std::cout << key << ": " << value << "\n";
  }
  if (opt.json) std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  kiln::bench::Options opt;
  CLI::App app{"bench_tune: Kiln's search against oneDNN, OpenBLAS and random search"};
  app.add_option("--trials", opt.trials, "trials of the matmul tuning (default 1000)");
  app.add_option("--random-trials", opt.random_trials, "trials of the random search (0: --trials)");
  app.add_option("--dense-trials", opt.dense_trials, "trials for dense+bias+GELU (0: trials/2)");
  app.add_option("--conv-trials", opt.conv_trials, "trials for conv2d (0: trials/2)");
  app.add_option("--threads", opt.threads, "threads of every kernel and library");
  app.add_option("--population", opt.population, "evolutionary search population");
  app.add_option("--rounds-in-flight", opt.rounds_in_flight,
                 "rounds searched ahead of measurement (1: each round is searched with every "
                 "result before it)");
  app.add_option("--rounds", opt.rounds, "interleaved timing rounds against the libraries");
  app.add_option("--min-repeat-ms", opt.min_repeat_ms, "timing of candidates while tuning");
  app.add_option("--cutoff-factor", opt.cutoff_factor,
                 "time a candidate this many times slower than the best so far from one or two "
                 "runs (0: off)");
  app.add_option("--parts", opt.parts, "matmul, curve, dense, conv")->delimiter(',');
  app.add_option("--seed", opt.seed, "seed of the search");
  app.add_flag("--json", opt.json, "one JSON object on the last line");
  app.add_option("--dump-dir", opt.dump_dir,
                 "write each tuning's measured candidates here as a cost-model dataset");
  CLI11_PARSE(app, argc, argv);
  try {
    return kiln::bench::Run(opt);
  } catch (const kiln::Error& e) {
    std::cerr << "bench_tune: " << kiln::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  }
}
