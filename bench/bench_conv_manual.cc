// bench_conv_manual: a hand-written schedule of float32 conv2d (bench/conv_manual.h), saved as a
// trace (bench/traces/conv2d_56.json) and replayed from its JSON, built through Kiln's C path
// and timed against oneDNN's convolution primitive in the same process, for each thread count
// asked for: on plain NCHW memory (the layouts Kiln's kernel reads and writes) and on the
// layouts oneDNN prefers (the reorders into and out of them are not timed). Beside them, the
// cpu design space's candidate with the same decisions (bench/space_conv.h): the proof that
// the search can find the hand-written schedule.
//
//   bench_conv_manual [--shape C,H,W,K] [--threads 1,2] [--trace FILE | --tiles COLS,CHANNELS]
//                     [--json] ...
//
// The convolution is 1 x C x H x W, K filters of 3x3, padding 1, stride 1. Contenders are timed
// alone in interleaved rounds; a ratio is the median over rounds of oneDNN's time over Kiln's
// (above 1: Kiln is faster); "space vs hand" is the hand-written kernel's time over the space
// candidate's. With --json the last line of stdout is one JSON object.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>

#include "bench/baselines.h"
#include "bench/conv_manual.h"
#include "bench/manual_kernel.h"
#include "bench/matmul_manual.h"
#include "bench/space_conv.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/kernel_args.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

using nlohmann::json;

// The committed trace, replayed by default.
const char kDefaultTrace[] = KILN_BENCH_TRACE_DIR "/conv2d_56.json";

struct Options {
  std::vector<int64_t> shape = {64, 56, 56, 64};
  std::vector<int64_t> tiles = {};  // cols,channels: schedule with the built-in code instead
  std::string trace_file;
  std::string save_trace;
  std::string dump_dir;
  std::vector<int64_t> space_tiles = {7, 32};  // cols,channels of the design space's candidate
  int64_t space_unroll = 512;
  ContestOptions contest;
  bool json = false;
};

int Run(const Options& opt) {
  KILN_CHECK(opt.shape.size() == 4, ErrorKind::kParse, "--shape: expected C,H,W,K");
  for (int64_t d : opt.shape) {
    KILN_CHECK(d > 0 && d <= 4096, ErrorKind::kParse, "--shape: sizes must be in 1..4096");
  }
  KILN_CHECK(!opt.contest.threads.empty(), ErrorKind::kParse, "--threads: give at least one");
  for (int t : opt.contest.threads) {
    KILN_CHECK(t >= 1, ErrorKind::kParse, "--threads: counts must be >= 1");
  }
  KILN_CHECK(opt.tiles.empty() || opt.tiles.size() == 2, ErrorKind::kParse,
             "--tiles: expected COLS,CHANNELS");
  KILN_CHECK(opt.tiles.empty() || opt.trace_file.empty(), ErrorKind::kParse,
             "--tiles schedules with the built-in code; it cannot go with --trace");
  KILN_CHECK(opt.contest.rounds >= 1, ErrorKind::kParse, "--rounds: at least 1");

  Conv2dShape shape;
  shape.in_channels = opt.shape[0];
  shape.height = opt.shape[1];
  shape.width = opt.shape[2];
  shape.out_channels = opt.shape[3];
  ir::PrimFunc workload = Conv2dWorkload(shape);
  std::string trace_text, trace_source;
  if (!opt.tiles.empty()) {
    ConvTiles tiles;
    tiles.cols = opt.tiles[0];
    tiles.channels = opt.tiles[1];
    trace_source = "built-in " + std::to_string(tiles.cols) + "x" + std::to_string(tiles.channels);
    trace_text = FormatTraceJson(ManualConvTrace(workload, tiles));
  } else {
    trace_source = opt.trace_file.empty() ? kDefaultTrace : opt.trace_file;
    trace_text = ReadFile(trace_source);
  }
  if (!opt.save_trace.empty()) WriteFile(opt.save_trace, trace_text);
  ManualKernel kernel =
      BuildManualKernel(workload, trace_text, trace_source, "kiln_conv2d", opt.dump_dir);
  // The cpu design space's channel-last sketch with the hand-written schedule's decisions.
  KILN_CHECK(opt.space_tiles.size() == 2, ErrorKind::kParse,
             "--space-tiles: expected COLS,CHANNELS");
  ConvTiles space_tiles;
  space_tiles.cols = opt.space_tiles[0];
  space_tiles.channels = opt.space_tiles[1];
  std::optional<search::Candidate> candidate =
      HandLikeConvCandidate(workload, space_tiles, opt.contest.threads.back(), opt.space_unroll);
  KILN_CHECK(candidate.has_value(), ErrorKind::kSchedule,
             "the cpu design space has no channel-last candidate with tiles " +
                 std::to_string(space_tiles.cols) + "x" + std::to_string(space_tiles.channels));
  ManualKernel space_kernel = BuildManualKernel(
      workload, FormatTraceJson(candidate->postprocessed), "the space's candidate",
      "kiln_conv2d_space", opt.dump_dir.empty() ? "" : opt.dump_dir + "/space");

  const ir::DataType f32 = ir::DataType::Float(32);
  const std::vector<int64_t> x_shape = {1, shape.in_channels, shape.height, shape.width};
  const std::vector<int64_t> w_shape = {shape.out_channels, shape.in_channels, 3, 3};
  const std::vector<int64_t> y_shape = {1, shape.out_channels, shape.out_height(),
                                        shape.out_width()};
  std::vector<ir::ArgValue> args = {ir::HostTensor::Random(f32, x_shape, 1, -1, 1),
                                    ir::HostTensor::Random(f32, w_shape, 2, -1, 1),
                                    ir::HostTensor(f32, y_shape)};
  std::vector<codegen::PackedValue> packed = runtime::PackArguments(kernel.signature, args);
  ir::HostTensor space_y(f32, y_shape);
  std::vector<ir::ArgValue> space_args = {std::get<ir::HostTensor>(args[0]).Clone(),
                                          std::get<ir::HostTensor>(args[1]).Clone(), space_y};
  std::vector<codegen::PackedValue> space_packed =
      runtime::PackArguments(space_kernel.signature, space_args);
  const auto* x = static_cast<const float*>(std::get<ir::HostTensor>(args[0]).data());
  const auto* w = static_cast<const float*>(std::get<ir::HostTensor>(args[1]).data());
  const ir::HostTensor& kiln_y = std::get<ir::HostTensor>(args[2]);

  // The primitives are made for the thread count current at their creation: one per count.
  std::vector<std::unique_ptr<OneDnnConv2d>> plain, blocked;
  for (int t : opt.contest.threads) {
    SetOpenMpThreads(t);
    plain.push_back(std::make_unique<OneDnnConv2d>(shape, ConvLayout::kPlain));
    blocked.push_back(std::make_unique<OneDnnConv2d>(shape, ConvLayout::kBlocked));
    plain.back()->SetInputs(x, w);
    blocked.back()->SetInputs(x, w);
  }
  size_t thread_index = 0;
  auto use_threads = [&](int t) {
    SetOpenMpThreads(t);
    for (size_t i = 0; i < opt.contest.threads.size(); ++i) {
      if (opt.contest.threads[i] == t) thread_index = i;
    }
  };
  std::vector<Contender> contenders = {
      {"kiln", use_threads, [&] { runtime::CallKernel(kernel.fn, kernel.signature, packed); }},
      {"onednn_nchw", use_threads, [&] { plain[thread_index]->Run(); }},
      {"onednn_blocked", use_threads, [&] { blocked[thread_index]->Run(); }},
      {"kiln_space", use_threads,
       [&] { runtime::CallKernel(space_kernel.fn, space_kernel.signature, space_packed); }},
  };

  // Correctness first: Kiln and the blocked primitive against the plain primitive, and Kiln
  // against the reference interpreter when the size allows it.
  for (Contender& c : contenders) {
    c.set_threads(opt.contest.threads.back());
    c.run();
  }
  ir::HostTensor plain_y(f32, y_shape), blocked_y(f32, y_shape);
  plain[thread_index]->GetOutput(static_cast<float*>(plain_y.data()));
  blocked[thread_index]->GetOutput(static_cast<float*>(blocked_y.data()));
  const double reduction = static_cast<double>(shape.in_channels * 9);
  double atol = 1e-6 * reduction, rtol = 1e-4;
  ir::TensorComparison vs_dnnl = ir::CompareTensors(plain_y, kiln_y, rtol, atol);
  ir::TensorComparison blocked_vs_plain = ir::CompareTensors(plain_y, blocked_y, rtol, atol);
  KILN_CHECK(
      blocked_vs_plain.ok, ErrorKind::kRuntime,
      "oneDNN's blocked convolution disagrees with its plain one: " + blocked_vs_plain.message);
  KILN_CHECK(vs_dnnl.ok, ErrorKind::kRuntime,
             "Kiln's kernel disagrees with oneDNN: " + vs_dnnl.message);
  const ir::HostTensor& space_out = std::get<ir::HostTensor>(space_args[2]);
  ir::TensorComparison space_vs_dnnl = ir::CompareTensors(plain_y, space_out, rtol, atol);
  KILN_CHECK(space_vs_dnnl.ok, ErrorKind::kRuntime,
             "the space's candidate disagrees with oneDNN: " + space_vs_dnnl.message);
  bool interpreter_checked = shape.Flops() <= 1e7;
  if (interpreter_checked) {
    std::vector<ir::ArgValue> expected = {std::get<ir::HostTensor>(args[0]).Clone(),
                                          std::get<ir::HostTensor>(args[1]).Clone(),
                                          ir::HostTensor(f32, y_shape)};
    ir::Interpret(workload, expected);
    ir::Tolerance tol = ir::DefaultTolerance(f32);
    const ir::HostTensor& reference = std::get<ir::HostTensor>(expected[2]);
    ir::TensorComparison vs_interp = ir::CompareTensors(reference, kiln_y, tol.rtol, tol.atol);
    KILN_CHECK(vs_interp.ok, ErrorKind::kRuntime,
               "Kiln's kernel disagrees with the reference interpreter: " + vs_interp.message);
    ir::TensorComparison space_vs_interp =
        ir::CompareTensors(reference, space_out, tol.rtol, tol.atol);
    KILN_CHECK(space_vs_interp.ok, ErrorKind::kRuntime,
               "the space's candidate disagrees with the reference interpreter: " +
                   space_vs_interp.message);
  }

  Timings seconds = TimeContenders(contenders, opt.contest);

  json result;
  result["shape"] = {1, shape.in_channels, shape.height, shape.width, shape.out_channels, 3, 3};
  result["threads"] = opt.contest.threads;
  result["trace"] = trace_source;
  result["compile_s"] = kernel.compile_s;
  result["compile_cpu_s"] = kernel.compile_cpu_s;
  result["codegen_s"] = kernel.codegen_s;
  result["max_abs_error_vs_onednn"] = vs_dnnl.max_abs_error;
  result["interpreter_checked"] = interpreter_checked;
  result["rounds"] = opt.contest.rounds;
  result["clock"] = opt.contest.cpu_clock ? "process-cpu" : "wall";
  result["statistic"] = opt.contest.best_repeat ? "fastest repeat" : "median";
  result["cpu"] = CpuModel();
  result["onednn_nchw"] = plain.back()->Description();
  result["onednn_blocked"] = blocked.back()->Description();

  std::ostream& out = std::cout;
  char line[256];
  out << "conv2d 1x" << shape.in_channels << "x" << shape.height << "x" << shape.width << ", "
      << shape.out_channels << " filters 3x3, pad 1, float32, trace " << trace_source << "\n";
  out << "cpu: " << CpuModel() << "; " << OneDnnVersion() << "\n";
  out << "oneDNN nchw: " << plain.back()->Description()
      << "; blocked: " << blocked.back()->Description() << " (reorders not timed)\n";
  std::snprintf(line, sizeof line,
                "codegen (replay + lower + emit) %.3f s, gcc %.3f s (%.3f s CPU); "
                "max |kiln - onednn| %.2e%s\n",
                kernel.codegen_s, kernel.compile_s, kernel.compile_cpu_s, vs_dnnl.max_abs_error,
                interpreter_checked ? "; interpreter agrees" : "");
  out << line;
  std::snprintf(line, sizeof line, "%-8s %10s %12s %14s %10s %12s %11s %10s\n", "threads", "kiln",
                "onednn nchw", "onednn blocked", "vs nchw", "vs blocked", "kiln space", "vs hand");
  out << line;
  std::snprintf(line, sizeof line, "%-8s %10s %12s %14s %10s %12s %11s %10s\n", "", "GFLOP/s",
                "GFLOP/s", "GFLOP/s", "ratio", "ratio", "GFLOP/s", "ratio");
  out << line;
  for (size_t ti = 0; ti < opt.contest.threads.size(); ++ti) {
    std::vector<double> gflops;
    for (const auto& per_contender : seconds) {
      gflops.push_back(shape.Flops() / runtime::Median(per_contender[ti]) / 1e9);
    }
    double ratio_plain = MedianRatio(seconds, 1, 0, ti);
    double ratio_blocked = MedianRatio(seconds, 2, 0, ti);
    double space_vs_hand = MedianRatio(seconds, 0, 3, ti);
    std::snprintf(line, sizeof line, "%-8d %10.1f %12.1f %14.1f %10.3f %12.3f %11.1f %10.3f\n",
                  opt.contest.threads[ti], gflops[0], gflops[1], gflops[2], ratio_plain,
                  ratio_blocked, gflops[3], space_vs_hand);
    out << line;
    std::string t = std::to_string(opt.contest.threads[ti]) + "t";
    result["gflops_kiln_" + t] = gflops[0];
    result["gflops_onednn_nchw_" + t] = gflops[1];
    result["gflops_onednn_blocked_" + t] = gflops[2];
    result["ratio_vs_onednn_nchw_" + t] = ratio_plain;
    result["ratio_vs_onednn_blocked_" + t] = ratio_blocked;
    result["gflops_kiln_space_" + t] = gflops[3];
    result["ratio_space_vs_hand_" + t] = space_vs_hand;
    result["ratio_space_vs_onednn_nchw_" + t] = MedianRatio(seconds, 1, 3, ti);
    result["ratio_space_vs_onednn_blocked_" + t] = MedianRatio(seconds, 2, 3, ti);
  }
  if (opt.json) out << result.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  kiln::bench::Options opt;
  CLI::App app{
      "bench_conv_manual: a hand-written conv2d trace through Kiln's C path, against oneDNN's "
      "convolution"};
  app.add_option("--shape", opt.shape, "C,H,W,K: input channels, height, width, filters")
      ->delimiter(',')
      ->expected(4);
  app.add_option("--threads", opt.contest.threads, "thread counts to time (default 1,2)")
      ->delimiter(',');
  app.add_option("--trace", opt.trace_file,
                 std::string("trace JSON to replay (default ") + kiln::bench::kDefaultTrace + ")");
  app.add_option("--tiles", opt.tiles,
                 "schedule with the built-in code at register tile COLS,CHANNELS instead")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--space-tiles", opt.space_tiles,
                 "register tile COLS,CHANNELS of the design space's candidate (default 7,32)")
      ->delimiter(',')
      ->expected(2);
  app.add_option("--space-unroll", opt.space_unroll,
                 "unroll step of the design space's candidate (0, 16, 64 or 512)");
  app.add_option("--save-trace", opt.save_trace, "write the trace JSON used to this file");
  app.add_option("--dump", opt.dump_dir, "write the trace, the IR after each pass and the C here");
  app.add_option("--min-repeat-ms", opt.contest.min_repeat_ms, "minimum length of a timed repeat");
  app.add_option("--repeat", opt.contest.repeat, "timed repeats per round (median)");
  app.add_option("--rounds", opt.contest.rounds, "interleaved rounds over the contenders (median)");
  app.add_flag("--json", opt.json, "print one JSON object as the last line");
  app.add_flag("--cpu-clock", opt.contest.cpu_clock,
               "time by process CPU time / threads (to compare schedules on a busy machine)");
  app.add_flag("--best-repeat", opt.contest.best_repeat,
               "take each round's fastest repeat instead of the median (a busy machine)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  try {
    return kiln::bench::Run(opt);
  } catch (const kiln::Error& e) {
    std::cerr << "bench_conv_manual: " << e.what() << "\n";
    return 1;
  }
}
