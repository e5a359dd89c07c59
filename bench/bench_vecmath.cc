// bench_vecmath: the C target's inline vector math and SIMD reductions against libm calls and
// serial reductions, on the BERT-base layer's non-GEMM kernels at sequence length 128: softmax
// (1x12x128x128), layer_norm (1x128x768) and the GELU epilogue of its 768x3072 dense layer
// (erf over 128x3072). Each kernel is built twice from the same lowered function, once with
// CEmitOptions{inline_math = false, simd_reductions = false} ("libm") and once with the
// defaults ("kiln"), as written (untuned), with the transcendental loops vectorized by 16
// (the cpu design space's vectorize decision) and, for softmax and layer_norm, as the cpu
// space's per-row candidate (one parallel row loop holding every stage, the intermediate row
// in a stack buffer, inner loops vectorized: "per_row"); the two builds' outputs must agree within
// float32 tolerance, and they are timed in interleaved rounds on one thread.
//
//   bench_vecmath [--rounds R] [--repeat N] [--min-repeat-ms MS] [--cpu-clock] [--json]
//
// Ratios: libm time / kiln time (above 1: the inline math is faster). With --json the last
// line is one JSON object with every case.
#include <omp.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "bench/manual_kernel.h"
#include "bench/reduction_tasks.h"
#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/host_tensor.h"
#include "ir/text/parser.h"
#include "runtime/cpu_builder.h"
#include "runtime/cpu_module.h"
#include "runtime/kernel_args.h"
#include "search/schedule/schedule.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"

namespace kiln::bench {
namespace {

using nlohmann::json;

// The three tasks as `tune tasks build/models/bert_layer/model.onnx --show NAME` prints them,
// with seq_len bound to 128: softmax and layer_norm from bench/reduction_tasks.h; GELU, the
// fused dense layer's epilogue alone.
const char kGelu[] = R"(# from tvm.script import tirx as T
@T.prim_func(s_tir=True)
def gelu(A: T.Buffer((T.int64(128), T.int64(3072)), "float32"), B: T.Buffer((T.int64(128), T.int64(3072)), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i, j in T.grid(T.int64(128), T.int64(3072)):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = T.float32(0.5) * A[vi, vj] * (T.float32(1.0) + T.erf(A[vi, vj] * T.float32(0.70710678118654757)))
)";

struct Task {
  const char* name;
  std::string text;
  std::vector<std::string> vectorized_blocks;  // blocks whose innermost loop is vectorized
  int64_t row_loop = -1;  // the output's row loop, for the per-row candidate (-1: none)
};

// The innermost loop of each block split by 16 and vectorized.
ir::PrimFunc Vectorized(const ir::PrimFunc& f, const std::vector<std::string>& blocks) {
  search::Schedule sch(f);
  for (const std::string& block : blocks) {
    std::vector<search::LoopRV> loops = sch.GetLoops(sch.GetBlock(block));
    sch.Vectorize(sch.Split(loops.back(), {std::nullopt, 16})[1]);
  }
  return sch.func();
}

// The cpu design space's candidate a person would write: its first sketch with every
// sampled compute location at loop `row` of the consumer (every stage computed per row inside
// one parallel row loop) and no unrolling; the tile decisions of seed 1.
ir::PrimFunc PerRow(const ir::PrimFunc& f, int64_t row) {
  search::TuneContext context;
  context.workload = f;
  context.task_name = f->name;
  context.num_cores = 2;
  search::DesignSpace space = search::MakeDesignSpace("cpu");
  space.Initialize(context);
  search::Trace trace = space.Sketches(context).front().trace();
  for (size_t i = 0; i < trace.size(); ++i) {
    const std::string& kind = trace.instructions()[i].kind;
    if (kind == "SampleComputeLocation") trace = trace.WithDecision(i, row);
    if (kind == "SampleCategorical") trace = trace.WithDecision(i, 0);
  }
  std::optional<search::Candidate> c = search::ApplyTrace(f, trace, space.postprocs, 1, nullptr);
  KILN_CHECK(c.has_value(), ErrorKind::kSchedule, f->name + ": the per-row candidate failed");
  return c->scheduled;
}

struct Built {
  runtime::CpuModule module;
  runtime::KernelFunction fn = nullptr;
  codegen::KernelSignature signature;
};

Built Build(const ir::PrimFunc& scheduled, const codegen::CEmitOptions& options,
            const std::string& symbol, const runtime::BuildOptions& build) {
  codegen::EmittedSource source = codegen::EmitC(
      codegen::Lower(scheduled, codegen::CTarget().DefaultLowerOptions()), symbol, options);
  runtime::BuildResult built = runtime::BuildCSource(source.code, build);
  KILN_CHECK(built.ok, ErrorKind::kRuntime, symbol + ": build failed: " + built.error);
  Built b{runtime::CpuModule::Load(built.library_path, true), nullptr, source.signature};
  b.fn = b.module.GetKernel(symbol);
  return b;
}

int Main(int argc, char** argv) {
  CLI::App app{"The C target's inline vector math and SIMD reductions vs libm and serial loops"};
  ContestOptions contest;
  contest.threads = {1};
  bool as_json = false;
  app.add_option("--rounds", contest.rounds, "interleaved rounds");
  app.add_option("--repeat", contest.repeat, "timed repeats per round (median)");
  app.add_option("--min-repeat-ms", contest.min_repeat_ms, "a repeat lasts at least this long");
  app.add_flag("--cpu-clock", contest.cpu_clock,
               "time by process CPU time (leaves out waits for a busy machine's cores)");
  app.add_flag("--json", as_json, "one JSON object on the last line");
  CLI11_PARSE(app, argc, argv);

  char dir_template[] = "/tmp/kiln_bench_vecmath_XXXXXX";
  KILN_CHECK(mkdtemp(dir_template) != nullptr, ErrorKind::kIO, "cannot create a temporary folder");
  runtime::BuildOptions build;
  build.cache_dir = dir_template;

  const std::vector<Task> tasks = {
      {"softmax", bench::SoftmaxTensorIr(12, 128, 128), {"T_softmax_exp", "T_softmax_norm"}, 2},
      {"layer_norm", bench::LayerNormTensorIr(128, 768), {"T_layer_norm"}, 1},
      {"gelu_3072", kGelu, {"B"}},
  };
  codegen::CEmitOptions libm;
  libm.inline_math = false;
  libm.simd_reductions = false;
  json cases = json::array();
  bool all_agree = true;
  std::printf("%-12s %-10s %12s %12s %8s  %s\n", "task", "schedule", "libm (us)", "kiln (us)",
              "ratio", "outputs");
  int count = 0;
  for (const Task& task : tasks) {
    ir::PrimFunc f = ir::ParsePrimFunc(task.text, task.name);
    for (const char* schedule : {"untuned", "vectorized", "per_row"}) {
      std::string mode = schedule;
      if (mode == "per_row" && task.row_loop < 0) continue;
      ir::PrimFunc scheduled = mode == "untuned"      ? f
                               : mode == "vectorized" ? Vectorized(f, task.vectorized_blocks)
                                                      : PerRow(f, task.row_loop);
      std::string tag = std::to_string(count++);
      Built slow = Build(scheduled, libm, "kiln_libm_" + tag, build);
      Built fast = Build(scheduled, {}, "kiln_inline_" + tag, build);
      std::vector<ir::ArgValue> slow_args, fast_args;
      for (size_t i = 0; i < f->params.size(); ++i) {
        const ir::Buffer buffer = *f->BufferOf(f->params[i]);
        std::vector<int64_t> shape;
        for (const ir::Expr& e : buffer->shape) shape.push_back(*ir::AsConstInt(e));
        ir::HostTensor t = ir::HostTensor::Random(buffer->dtype, shape, 11 + i, -4, 4);
        slow_args.push_back(t.Clone());
        fast_args.push_back(t.Clone());
      }
      std::vector<codegen::PackedValue> slow_packed =
          runtime::PackArguments(slow.signature, slow_args);
      std::vector<codegen::PackedValue> fast_packed =
          runtime::PackArguments(fast.signature, fast_args);
      runtime::CallKernel(slow.fn, slow.signature, slow_packed);
      runtime::CallKernel(fast.fn, fast.signature, fast_packed);
      const ir::HostTensor& want = std::get<ir::HostTensor>(slow_args.back());
      ir::Tolerance tol = ir::DefaultTolerance(want.dtype());
      ir::TensorComparison cmp =
          ir::CompareTensors(want, std::get<ir::HostTensor>(fast_args.back()), tol.rtol, tol.atol);
      all_agree = all_agree && cmp.ok;

      std::vector<Contender> contenders = {
          {"libm", omp_set_num_threads,
           [&] { runtime::CallKernel(slow.fn, slow.signature, slow_packed); }},
          {"kiln", omp_set_num_threads,
           [&] { runtime::CallKernel(fast.fn, fast.signature, fast_packed); }},
      };
      Timings seconds = TimeContenders(contenders, contest);
      double libm_s = runtime::Median(seconds[0][0]);
      double kiln_s = runtime::Median(seconds[1][0]);
      double ratio = MedianRatio(seconds, 0, 1, 0);
      std::printf("%-12s %-10s %12.1f %12.1f %8.2f  %s\n", task.name, schedule, libm_s * 1e6,
                  kiln_s * 1e6, ratio, cmp.ok ? "agree" : cmp.message.c_str());
      cases.push_back({{"task", task.name},
                       {"schedule", schedule},
                       {"libm_us", libm_s * 1e6},
                       {"kiln_us", kiln_s * 1e6},
                       {"libm_over_kiln", ratio},
                       {"outputs_agree", cmp.ok}});
    }
  }
  std::error_code ec;
  std::filesystem::remove_all(dir_template, ec);
  double load = 0;
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (std::fscanf(f, "%lf", &load) != 1) load = 0;
    std::fclose(f);
  }
  std::printf("1-minute load %.2f; %s clock, 1 thread\n", load,
              contest.cpu_clock ? "process CPU" : "wall");
  if (as_json) {
    json out = {{"cases", cases},
                {"load_1min", load},
                {"cpu_clock", contest.cpu_clock},
                {"cpu", CpuModel()},
                {"outputs_agree", all_agree}};
    std::printf("%s\n", out.dump().c_str());
  }
  return all_agree ? 0 : 1;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  try {
    return kiln::bench::Main(argc, argv);
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "bench_vecmath: %s\n", e.what());
    return 1;
  }
}
