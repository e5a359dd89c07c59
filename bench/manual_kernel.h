// What the hand-written-schedule benchmarks (bench_matmul_manual, bench_conv_manual) share:
// replaying a trace's JSON on its workload and building it through Kiln's C path as a worker
// would, timing contenders (Kiln and the libraries) in interleaved rounds, and small file and
// machine helpers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "codegen/kernel_abi.h"
#include "ir/function.h"
#include "runtime/cpu_module.h"
#include "runtime/timing.h"

namespace kiln::bench {

std::string ReadFile(const std::string& path);
void WriteFile(const std::string& path, const std::string& text);
// The CPU's model name from /proc/cpuinfo.
std::string CpuModel();

// The kernel, built and loaded, with what it took to get there.
struct ManualKernel {
  runtime::CpuModule module;
  runtime::KernelFunction fn = nullptr;
  codegen::KernelSignature signature;
  double codegen_s = 0;      // replay + lowering + emission
  double compile_s = 0;      // gcc's wall time (as the runtime measures it)
  double compile_cpu_s = 0;  // gcc's CPU time: unlike wall time, not inflated by other load
};

// Parses `trace_text` (named `trace_source` in errors), replays it on `workload`, lowers,
// emits C as `symbol` and builds it in a private cache folder (never a cache hit). With a
// `dump_dir`, writes the trace, the IR after each pass, the C and the library there.
ManualKernel BuildManualKernel(const ir::PrimFunc& workload, const std::string& trace_text,
                               const std::string& trace_source, const std::string& symbol,
                               const std::string& dump_dir);

// One contender's run of the workload, and how its thread count is set.
struct Contender {
  std::string name;
  std::function<void(int threads)> set_threads;
  std::function<void()> run;
};

struct ContestOptions {
  std::vector<int> threads = {1, 2};
  double min_repeat_ms = 100;
  int repeat = 5;
  int rounds = 3;
  // Time by process CPU time / threads instead of wall time: on a machine busy with other
  // work it leaves out the time the threads waited for a core, at the price of counting the
  // time OpenMP and OpenBLAS workers spin. For comparing schedules, not for reported figures.
  bool cpu_clock = false;
  // Take the fastest repeat of a round instead of the median: on a machine where other work
  // keeps descheduling threads, the least disturbed run. For comparing on a busy machine (say
  // so beside the figures), not for reported figures on a quiet one.
  bool best_repeat = false;
};

// Interleaved rounds: seconds[contender][thread index][round], each a TimeKernel median.
using Timings = std::vector<std::vector<std::vector<double>>>;
Timings TimeContenders(std::vector<Contender>& contenders, const ContestOptions& options);

// The median over rounds of contender `other`'s time over contender `kiln`'s.
double MedianRatio(const Timings& seconds, size_t other, size_t kiln, size_t thread_index);

}  // namespace kiln::bench
