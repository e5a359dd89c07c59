// bench_matmul_manual: a hand-written schedule of float32 matmul (bench/matmul_manual.h),
// saved as a trace (bench/traces/matmul_1024.json) and replayed from its JSON, built through
// Kiln's C path (Lower, EmitC, runtime::BuildCSource, CpuModule) and timed with
// runtime::TimeKernel against OpenBLAS's cblas_sgemm and oneDNN's dnnl_sgemm in the same
// process, for each thread count asked for.
//
//   bench_matmul_manual [--size M,N,K] [--threads 1,2] [--trace FILE] [--json] ...
//
// Each library is timed alone (its threads set, the others' idle), in interleaved rounds so
// that a change in machine load hits every library alike; a ratio is the median over rounds
// of the library's time over Kiln's (above 1: Kiln is faster). With --json the last line of
// stdout is one JSON object. bench/README.md has the options and the figures.
#include <sys/resource.h>
#include <time.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "bench/baselines.h"
#include "bench/matmul_manual.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "runtime/timing.h"
#include "search/schedule/trace.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The committed trace, replayed by default.
const char kDefaultTrace[] = KILN_BENCH_TRACE_DIR "/matmul_1024.json";

struct Options {
  std::vector<int64_t> size = {1024, 1024, 1024};
  std::vector<int> threads = {1, 2};
  std::vector<int64_t> tiles = {};  // rows,cols: schedule with the built-in code instead
  std::string trace_file;
  std::string save_trace;
  std::string dump_dir;
  double min_repeat_ms = 100;
  int repeat = 5;
  int rounds = 3;
  bool json = false;
  bool cpu_clock = false;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.good(), ErrorKind::kIO, "cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  KILN_CHECK(out.good(), ErrorKind::kIO, "cannot write " + path.string());
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// User and system CPU seconds of the child processes waited for so far.
double ChildrenCpuSeconds() {
  struct rusage usage {};
  getrusage(RUSAGE_CHILDREN, &usage);
  auto seconds = [](const timeval& t) { return static_cast<double>(t.tv_sec) + t.tv_usec * 1e-6; };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

// A BatchTimer on the process's CPU clock divided by the thread count: on a machine busy with
// other work it leaves out the time the threads waited for a core (wall time does not), at the
// price of counting the time OpenMP and OpenBLAS workers spin. For comparing schedules on a
// loaded machine, not for the reported figures.
runtime::BatchTimer ProcessCpuTimer(std::function<void()> run, int threads) {
  return [run = std::move(run), threads](int n) {
    auto now = [] {
      timespec t{};
      clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
      return static_cast<double>(t.tv_sec) + t.tv_nsec * 1e-9;
    };
    double start = now();
    for (int i = 0; i < n; ++i) run();
    return (now() - start) / threads;
  };
}

std::string CpuModel() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("model name", 0) == 0) {
      size_t colon = line.find(':');
      return colon == std::string::npos ? line : line.substr(colon + 2);
    }
  }
  return "unknown";
}

// The trace's JSON text and where it came from: the committed file, another file, or (with
// --tiles) the built-in schedule at other tiles.
std::pair<std::string, std::string> TraceText(const Options& opt, const ir::PrimFunc& workload) {
  if (!opt.tiles.empty()) {
    MatmulTiles tiles;
    tiles.rows = opt.tiles[0];
    tiles.cols = opt.tiles[1];
    std::string name = "built-in " + std::to_string(tiles.rows) + "x" + std::to_string(tiles.cols);
    return {FormatTraceJson(ManualMatmulTrace(workload, tiles)), name};
  }
  std::string path = opt.trace_file.empty() ? kDefaultTrace : opt.trace_file;
  return {ReadFile(path), path};
}

// The kernel, built and loaded, with what it took to get there.
struct Kernel {
  runtime::CpuModule module;
  runtime::KernelFunction fn = nullptr;
  codegen::KernelSignature signature;
  double codegen_s = 0;      // replay + lowering + emission
  double compile_s = 0;      // gcc's wall time (as the runtime measures it)
  double compile_cpu_s = 0;  // gcc's CPU time: unlike wall time, not inflated by other load
};

Kernel BuildKernel(const ir::PrimFunc& workload, const std::string& trace_text,
                   const std::string& trace_source, const std::string& dump_dir) {
  auto start = std::chrono::steady_clock::now();
  // As a worker would: the trace's JSON parsed, validated and replayed on the workload.
  json parsed;
  try {
    parsed = json::parse(trace_text);
  } catch (const json::exception& e) {
    throw Error(ErrorKind::kParse, trace_source + ": not JSON: " + e.what());
  }
  search::Trace trace = search::Trace::FromJSON(parsed);
  ir::PrimFunc scheduled = search::ReplayTrace(workload, trace);
  codegen::LowerOptions lower_options = codegen::CTarget().DefaultLowerOptions();
  int pass_index = 0;
  if (!dump_dir.empty()) {
    fs::create_directories(dump_dir);
    WriteFile(fs::path(dump_dir) / "trace.py", trace.AsPython());
    WriteFile(fs::path(dump_dir) / "scheduled.tir", ir::PrintPrimFunc(scheduled));
    lower_options.after_pass = [&](std::string_view pass, const ir::PrimFunc& f) {
      std::string name = std::to_string(++pass_index) + "_" + std::string(pass) + ".tir";
      WriteFile(fs::path(dump_dir) / name, ir::PrintPrimFunc(f));
    };
  }
  codegen::EmittedSource source =
      codegen::EmitC(codegen::Lower(scheduled, lower_options), "kiln_matmul");
  double codegen_s = Seconds(start);
  if (!dump_dir.empty()) WriteFile(fs::path(dump_dir) / "kernel.c", source.code);

  // A private cache folder, so that the compile is this candidate's and never a cache hit.
  runtime::BuildOptions build;
  char cache_dir[] = "/tmp/kiln_bench_XXXXXX";
  KILN_CHECK(mkdtemp(cache_dir) != nullptr, ErrorKind::kIO, "cannot create a temporary folder");
  build.cache_dir = cache_dir;
  double children_before = ChildrenCpuSeconds();
  runtime::BuildResult built = runtime::BuildCSource(source.code, build);
  double compile_cpu_s = ChildrenCpuSeconds() - children_before;
  KILN_CHECK(built.ok, ErrorKind::kRuntime, "building the kernel failed: " + built.error);
  std::error_code ec;
  if (!dump_dir.empty()) {
    fs::copy_file(built.library_path, fs::path(dump_dir) / "kernel.so",
                  fs::copy_options::overwrite_existing, ec);
  }
  // Kept mapped after the module goes: the kernel's OpenMP workers outlive the call.
  runtime::CpuModule module = runtime::CpuModule::Load(built.library_path, /*keep_loaded=*/true);
  runtime::KernelFunction fn = module.GetKernel(source.signature.symbol);
  Kernel kernel{std::move(module),     fn,           source.signature, codegen_s,
                built.compile_seconds, compile_cpu_s};
  fs::remove_all(cache_dir, ec);
  return kernel;
}

// One library's run of the workload, and how its thread count is set.
struct Contender {
  std::string name;
  std::function<void(int threads)> set_threads;
  std::function<void()> run;
};

// Interleaved rounds: seconds[contender][thread index][round], each a TimeKernel median.
using Timings = std::vector<std::vector<std::vector<double>>>;

Timings TimeContenders(std::vector<Contender>& contenders, const Options& opt) {
  runtime::TimingConfig timing;
  timing.number = 1;
  timing.repeat = opt.repeat;
  timing.min_repeat_ms = opt.min_repeat_ms;
  timing.warmup = 2;
  Timings seconds(contenders.size(), std::vector<std::vector<double>>(opt.threads.size()));
  for (size_t ti = 0; ti < opt.threads.size(); ++ti) {
    for (int round = 0; round < opt.rounds; ++round) {
      for (size_t ci = 0; ci < contenders.size(); ++ci) {
        Contender& c = contenders[ci];
        c.set_threads(opt.threads[ti]);
        // Let the previous library's spinning workers fall asleep before timing this one.
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        runtime::TimingResult r =
            opt.cpu_clock ? runtime::TimeKernel(ProcessCpuTimer(c.run, opt.threads[ti]), timing)
                          : runtime::TimeFunction(c.run, timing);
        seconds[ci][ti].push_back(r.median_seconds);
      }
    }
  }
  return seconds;
}

int Run(const Options& opt) {
  KILN_CHECK(opt.size.size() == 3, ErrorKind::kParse, "--size: expected M,N,K");
  const int64_t m = opt.size[0], n = opt.size[1], k = opt.size[2];
  KILN_CHECK(m > 0 && n > 0 && k > 0, ErrorKind::kParse, "--size: dimensions must be positive");
  KILN_CHECK(!opt.threads.empty(), ErrorKind::kParse, "--threads: give at least one count");
  for (int t : opt.threads) KILN_CHECK(t >= 1, ErrorKind::kParse, "--threads: counts must be >= 1");
  KILN_CHECK(opt.tiles.empty() || opt.tiles.size() == 2, ErrorKind::kParse,
             "--tiles: expected R,C");
  KILN_CHECK(opt.tiles.empty() || opt.trace_file.empty(), ErrorKind::kParse,
             "--tiles schedules with the built-in code; it cannot go with --trace");
  KILN_CHECK(opt.rounds >= 1, ErrorKind::kParse, "--rounds: at least 1");

  ir::PrimFunc workload = MatmulWorkload(m, n, k);
  auto [trace_text, trace_source] = TraceText(opt, workload);
  if (!opt.save_trace.empty()) WriteFile(opt.save_trace, trace_text);
  Kernel kernel = BuildKernel(workload, trace_text, trace_source, opt.dump_dir);

  const ir::DataType f32 = ir::DataType::Float(32);
  std::vector<ir::ArgValue> args = {ir::HostTensor::Random(f32, {m, k}, 1, -1, 1),
                                    ir::HostTensor::Random(f32, {k, n}, 2, -1, 1),
                                    ir::HostTensor(f32, {m, n})};
  std::vector<codegen::PackedValue> packed = runtime::PackArguments(kernel.signature, args);
  const auto* a = static_cast<const float*>(std::get<ir::HostTensor>(args[0]).data());
  const auto* b = static_cast<const float*>(std::get<ir::HostTensor>(args[1]).data());
  const ir::HostTensor& kiln_c = std::get<ir::HostTensor>(args[2]);
  ir::HostTensor blas_c(f32, {m, n}), dnnl_c(f32, {m, n});
  SgemmShape shape{m, n, k};
  std::vector<Contender> contenders = {
      {"kiln", [](int t) { SetOpenMpThreads(t); },
       [&] { runtime::CallKernel(kernel.fn, kernel.signature, packed); }},
      {"openblas", [](int t) { SetOpenBlasThreads(t); },
       [&] { OpenBlasSgemm(shape, a, b, static_cast<float*>(blas_c.data())); }},
      {"onednn", [](int t) { SetOpenMpThreads(t); },
       [&] { OneDnnSgemm(shape, a, b, static_cast<float*>(dnnl_c.data())); }},
  };

  // Correctness first: Kiln against OpenBLAS (and oneDNN against OpenBLAS, which checks the
  // baseline calls), and against the reference interpreter when the size allows it.
  for (Contender& c : contenders) {
    c.set_threads(opt.threads.back());
    c.run();
  }
  // Accumulation orders differ between the libraries: allow K roundings of the sum's size.
  double atol = 1e-6 * static_cast<double>(k), rtol = 1e-4;
  ir::TensorComparison vs_blas = ir::CompareTensors(blas_c, kiln_c, rtol, atol);
  ir::TensorComparison dnnl_vs_blas = ir::CompareTensors(blas_c, dnnl_c, rtol, atol);
  KILN_CHECK(dnnl_vs_blas.ok, ErrorKind::kRuntime,
             "oneDNN disagrees with OpenBLAS: " + dnnl_vs_blas.message);
  KILN_CHECK(vs_blas.ok, ErrorKind::kRuntime,
             "Kiln's kernel disagrees with OpenBLAS: " + vs_blas.message);
  bool interpreter_checked = m * n * k <= (int64_t{1} << 21);
  if (interpreter_checked) {
    std::vector<ir::ArgValue> expected = {std::get<ir::HostTensor>(args[0]).Clone(),
                                          std::get<ir::HostTensor>(args[1]).Clone(),
                                          ir::HostTensor(f32, {m, n})};
    ir::Interpret(workload, expected);
    ir::Tolerance tol = ir::DefaultTolerance(f32);
    ir::TensorComparison vs_interp =
        ir::CompareTensors(std::get<ir::HostTensor>(expected[2]), kiln_c, tol.rtol, tol.atol);
    KILN_CHECK(vs_interp.ok, ErrorKind::kRuntime,
               "Kiln's kernel disagrees with the reference interpreter: " + vs_interp.message);
  }

  Timings seconds = TimeContenders(contenders, opt);

  json result;
  result["size"] = {m, n, k};
  result["threads"] = opt.threads;
  result["trace"] = trace_source;
  result["compile_s"] = kernel.compile_s;
  result["compile_cpu_s"] = kernel.compile_cpu_s;
  result["codegen_s"] = kernel.codegen_s;
  result["max_abs_error_vs_openblas"] = vs_blas.max_abs_error;
  result["interpreter_checked"] = interpreter_checked;
  result["rounds"] = opt.rounds;
  result["clock"] = opt.cpu_clock ? "process-cpu" : "wall";
  result["cpu"] = CpuModel();

  std::ostream& out = std::cout;
  char line[256];
  out << "matmul " << m << "x" << n << "x" << k << " float32, trace " << trace_source << "\n";
  out << "cpu: " << CpuModel() << "; " << OpenBlasVersion() << "; " << OneDnnVersion() << "\n";
  std::snprintf(line, sizeof line,
                "codegen (replay + lower + emit) %.3f s, gcc %.3f s (%.3f s CPU); "
                "max |kiln - openblas| %.2e%s\n",
                kernel.codegen_s, kernel.compile_s, kernel.compile_cpu_s, vs_blas.max_abs_error,
                interpreter_checked ? "; interpreter agrees" : "");
  out << line;
  std::snprintf(line, sizeof line, "%-8s %10s %10s %10s %12s %12s\n", "threads", "kiln", "openblas",
                "onednn", "vs openblas", "vs onednn");
  out << line;
  std::snprintf(line, sizeof line, "%-8s %10s %10s %10s %12s %12s\n", "", "GFLOP/s", "GFLOP/s",
                "GFLOP/s", "ratio", "ratio");
  out << line;
  const double flops =
      2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  for (size_t ti = 0; ti < opt.threads.size(); ++ti) {
    std::vector<double> gflops;
    for (const auto& per_thread : seconds) {
      gflops.push_back(flops / runtime::Median(per_thread[ti]) / 1e9);
    }
    std::vector<double> vs_blas_rounds, vs_dnnl_rounds;
    for (int r = 0; r < opt.rounds; ++r) {
      vs_blas_rounds.push_back(seconds[1][ti][r] / seconds[0][ti][r]);
      vs_dnnl_rounds.push_back(seconds[2][ti][r] / seconds[0][ti][r]);
    }
    double ratio_blas = runtime::Median(vs_blas_rounds);
    double ratio_dnnl = runtime::Median(vs_dnnl_rounds);
    std::snprintf(line, sizeof line, "%-8d %10.1f %10.1f %10.1f %12.3f %12.3f\n", opt.threads[ti],
                  gflops[0], gflops[1], gflops[2], ratio_blas, ratio_dnnl);
    out << line;
    std::string t = std::to_string(opt.threads[ti]) + "t";
    result["gflops_kiln_" + t] = gflops[0];
    result["gflops_openblas_" + t] = gflops[1];
    result["gflops_onednn_" + t] = gflops[2];
    result["ratio_vs_openblas_" + t] = ratio_blas;
    result["ratio_vs_onednn_" + t] = ratio_dnnl;
  }
  if (opt.json) out << result.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  kiln::bench::Options opt;
  CLI::App app{
      "bench_matmul_manual: a hand-written matmul trace through Kiln's C path, "
      "against OpenBLAS and oneDNN"};
  app.add_option("--size", opt.size, "M,N,K (default 1024,1024,1024)")->delimiter(',')->expected(3);
  app.add_option("--threads", opt.threads, "thread counts to time (default 1,2)")->delimiter(',');
  app.add_option("--trace", opt.trace_file,
                 std::string("trace JSON to replay (default ") + kiln::bench::kDefaultTrace + ")");
  app.add_option("--tiles", opt.tiles,
                 "schedule with the built-in code at register tile R,C instead of a trace file")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--save-trace", opt.save_trace, "write the trace JSON used to this file");
  app.add_option("--dump", opt.dump_dir, "write the trace, the IR after each pass and the C here");
  app.add_option("--min-repeat-ms", opt.min_repeat_ms, "minimum length of one timed repeat");
  app.add_option("--repeat", opt.repeat, "timed repeats per round (median)");
  app.add_option("--rounds", opt.rounds, "interleaved rounds over the libraries (median)");
  app.add_flag("--json", opt.json, "print one JSON object as the last line");
  app.add_flag("--cpu-clock", opt.cpu_clock,
               "time by process CPU time / threads (to compare schedules on a busy machine)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return kiln::bench::Run(opt);
  } catch (const kiln::Error& e) {
    std::cerr << "bench_matmul_manual: " << e.what() << "\n";
    return 1;
  }
}
