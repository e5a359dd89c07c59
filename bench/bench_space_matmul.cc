// bench_space_matmul: is the cpu design space good enough? The hand-written GEMM schedule
// (bench/traces/matmul_1024.json) against the candidate the space gives with the same
// decisions (bench/space_matmul.h), both built through Kiln's C path and timed in the same
// process in interleaved rounds; and how many candidates per second the sampler draws from
// the matmul's sketches (the search's inner loop).
//
//   bench_space_matmul [--size M,N,K] [--threads T] [--rounds R] [--samples S] [--json]
//
// Ratios: hand time / space time (above 1: the space's candidate is faster). With --json the
// last line of stdout is one JSON object.
#include <time.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "bench/baselines.h"
#include "bench/matmul_manual.h"
#include "bench/space_matmul.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "runtime/timing.h"
#include "search/space/design_space.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

using nlohmann::json;

const char kHandTrace[] = KILN_BENCH_TRACE_DIR "/matmul_1024.json";

struct Built {
  runtime::CpuModule module;
  runtime::KernelFunction fn = nullptr;
  codegen::KernelSignature signature;
};

Built Build(const ir::PrimFunc& scheduled, const std::string& symbol) {
  codegen::EmittedSource source =
      codegen::EmitC(codegen::Lower(scheduled, codegen::CTarget().DefaultLowerOptions()), symbol);
  runtime::BuildResult built = runtime::BuildCSource(source.code, {});
  KILN_CHECK(built.ok, ErrorKind::kRuntime, "building " + symbol + " failed: " + built.error);
  runtime::CpuModule module = runtime::CpuModule::Load(built.library_path, /*keep_loaded=*/true);
  runtime::KernelFunction fn = module.GetKernel(symbol);
  return {std::move(module), fn, source.signature};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Main(int argc, char** argv) {
  CLI::App app{"The cpu design space's GEMM candidate against the hand-written schedule"};
  std::vector<int64_t> size = {1024, 1024, 1024};
  int threads = 2, rounds = 3, samples = 300;
  double min_repeat_ms = 100;
  bool as_json = false;
  std::string dump_dir;
  app.add_option("--size", size, "M,N,K")->delimiter(',')->expected(3);
  app.add_option("--threads", threads, "threads of every kernel");
  app.add_option("--rounds", rounds, "interleaved timing rounds");
  app.add_option("--samples", samples, "candidates drawn to measure the sampler");
  app.add_option("--min-repeat-ms", min_repeat_ms, "timing: least milliseconds per repeat");
  app.add_flag("--json", as_json, "one JSON object on the last line");
  app.add_option("--dump", dump_dir, "write both scheduled functions and the space's trace here");
  CLI11_PARSE(app, argc, argv);

  ir::PrimFunc workload = MatmulWorkload(size[0], size[1], size[2]);
  std::ifstream in(kHandTrace);
  std::stringstream text;
  text << in.rdbuf();
  ir::PrimFunc hand =
      search::ReplayTrace(workload, search::Trace::FromJSON(json::parse(text.str())));
  std::optional<search::Candidate> space = HandLikeGemmCandidate(workload, MatmulTiles{}, threads);
  KILN_CHECK(space.has_value(), ErrorKind::kRuntime,
             "the cpu space has no hand-like candidate for this size");

  if (!dump_dir.empty()) {
    std::ofstream(dump_dir + "/hand.tir") << ir::PrintPrimFunc(hand);
    std::ofstream(dump_dir + "/space.tir") << ir::PrintPrimFunc(space->scheduled);
    std::ofstream(dump_dir + "/space_trace.py") << space->postprocessed.AsPython();
  }

  // The sampler's rate: fresh candidates from the matmul's sketches, round robin.
  search::TuneContext context;
  context.workload = workload;
  context.num_cores = threads;
  search::DesignSpace design = search::MakeDesignSpace("cpu");
  design.Initialize(context);
  std::vector<search::Schedule> sketches = design.Sketches(context);
  search::RandomEngine rng(1);
  search::SampleStats stats;
  // CPU time of this thread as well as wall time: on a machine shared with other work, the
  // wall-clock rate says more about the load than about the sampler.
  auto thread_cpu = [] {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
  };
  double cpu_start = thread_cpu();
  auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < samples; ++i) {
    search::SampleCandidate(workload, sketches[i % sketches.size()].trace(), design.postprocs, rng,
                            &stats);
  }
  double sample_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  double per_s = samples / sample_s;
  double per_cpu_s = samples / std::max(1e-9, thread_cpu() - cpu_start);

  Built hand_kernel = Build(hand, "kiln_hand_matmul");
  Built space_kernel = Build(space->scheduled, "kiln_space_matmul");
  ir::DataType f32 = ir::DataType::Float(32);
  ir::HostTensor a = ir::HostTensor::Random(f32, {size[0], size[2]}, 1, -1, 1);
  ir::HostTensor b = ir::HostTensor::Random(f32, {size[2], size[1]}, 2, -1, 1);
  std::vector<ir::ArgValue> hand_args = {a.Clone(), b.Clone(),
                                         ir::HostTensor(f32, {size[0], size[1]})};
  std::vector<ir::ArgValue> space_args = {a.Clone(), b.Clone(),
                                          ir::HostTensor(f32, {size[0], size[1]})};
  auto hand_packed = runtime::PackArguments(hand_kernel.signature, hand_args);
  auto space_packed = runtime::PackArguments(space_kernel.signature, space_args);
  SetOpenMpThreads(threads);
  runtime::CallKernel(hand_kernel.fn, hand_kernel.signature, hand_packed);
  runtime::CallKernel(space_kernel.fn, space_kernel.signature, space_packed);
  ir::TensorComparison same = ir::CompareTensors(
      std::get<ir::HostTensor>(hand_args[2]), std::get<ir::HostTensor>(space_args[2]), 1e-4, 1e-3);
  KILN_CHECK(same.ok, ErrorKind::kRuntime, "the two kernels disagree: " + same.message);

  runtime::TimingConfig timing;
  timing.min_repeat_ms = min_repeat_ms;
  timing.repeat = 3;
  std::vector<double> hand_s, space_s;
  for (int r = 0; r < rounds; ++r) {
    hand_s.push_back(
        runtime::TimeFunction(
            [&] { runtime::CallKernel(hand_kernel.fn, hand_kernel.signature, hand_packed); },
            timing)
            .median_seconds);
    space_s.push_back(
        runtime::TimeFunction(
            [&] { runtime::CallKernel(space_kernel.fn, space_kernel.signature, space_packed); },
            timing)
            .median_seconds);
  }
  double flop = 2.0 * size[0] * size[1] * size[2];
  double ratio = Median(hand_s) / Median(space_s);
  std::printf("matmul %lldx%lldx%lld, %d threads\n", static_cast<long long>(size[0]),
              static_cast<long long>(size[1]), static_cast<long long>(size[2]), threads);
  std::printf("  hand-written trace   %8.1f GFLOP/s\n", flop / Median(hand_s) * 1e-9);
  std::printf("  cpu space candidate  %8.1f GFLOP/s\n", flop / Median(space_s) * 1e-9);
  std::printf("  space vs hand        %8.3f (hand time / space time)\n", ratio);
  std::printf(
      "  sampler              %8.1f candidates/s wall, %.1f per CPU second (%lld of %lld kept, "
      "%zu sketches)\n",
      per_s, per_cpu_s, static_cast<long long>(stats.kept), static_cast<long long>(stats.tried),
      sketches.size());
  if (as_json) {
    json out = {{"space_vs_hand", ratio},
                {"hand_gflops", flop / Median(hand_s) * 1e-9},
                {"space_gflops", flop / Median(space_s) * 1e-9},
                {"sampler_candidates_per_s", per_s},
                {"sampler_candidates_per_cpu_s", per_cpu_s},
                {"sampler_kept_fraction",
                 static_cast<double>(stats.kept) / std::max<int64_t>(1, stats.tried)},
                {"threads", threads}};
    std::printf("%s\n", out.dump().c_str());
  }
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  try {
    return kiln::bench::Main(argc, argv);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "bench_space_matmul: %s\n", e.what());
    return 1;
  }
}
