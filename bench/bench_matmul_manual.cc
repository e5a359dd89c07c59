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
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/baselines.h"
#include "bench/manual_kernel.h"
#include "bench/matmul_manual.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/kernel_args.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

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
  ManualKernel kernel =
      BuildManualKernel(workload, trace_text, trace_source, "kiln_matmul", opt.dump_dir);

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

  ContestOptions contest;
  contest.threads = opt.threads;
  contest.min_repeat_ms = opt.min_repeat_ms;
  contest.repeat = opt.repeat;
  contest.rounds = opt.rounds;
  contest.cpu_clock = opt.cpu_clock;
  Timings seconds = TimeContenders(contenders, contest);

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
    double ratio_blas = MedianRatio(seconds, 1, 0, ti);
    double ratio_dnnl = MedianRatio(seconds, 2, 0, ti);
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
