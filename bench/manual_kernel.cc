// Building and timing a hand-written schedule's kernel against the libraries.
#include "bench/manual_kernel.h"

#include <sys/resource.h>
#include <time.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <thread>

#include "codegen/c/c_emitter.h"
#include "codegen/lower.h"
#include "ir/text/printer.h"
#include "runtime/cpu_builder.h"
#include "search/schedule/trace.h"
#include "support/error.h"

namespace kiln::bench {

namespace fs = std::filesystem;
using nlohmann::json;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.good(), ErrorKind::kIO, "cannot read " + path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

void WriteFile(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  KILN_CHECK(out.good(), ErrorKind::kIO, "cannot write " + path);
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

namespace {

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

}  // namespace

ManualKernel BuildManualKernel(const ir::PrimFunc& workload, const std::string& trace_text,
                               const std::string& trace_source, const std::string& symbol,
                               const std::string& dump_dir) {
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
  codegen::EmittedSource source = codegen::EmitC(codegen::Lower(scheduled, lower_options), symbol);
  double codegen_s = Seconds(start);
  if (!dump_dir.empty()) WriteFile(fs::path(dump_dir) / "kernel.c", source.code);

  // A private cache folder, so that the compile is this kernel's and never a cache hit.
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
  ManualKernel kernel{std::move(module),     fn,           source.signature, codegen_s,
                      built.compile_seconds, compile_cpu_s};
  fs::remove_all(cache_dir, ec);
  return kernel;
}

Timings TimeContenders(std::vector<Contender>& contenders, const ContestOptions& opt) {
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
        double value = r.median_seconds;
        if (opt.best_repeat && !r.seconds_per_run.empty()) {
          value = *std::min_element(r.seconds_per_run.begin(), r.seconds_per_run.end());
        }
        seconds[ci][ti].push_back(value);
      }
    }
  }
  return seconds;
}

double MedianRatio(const Timings& seconds, size_t other, size_t kiln, size_t thread_index) {
  std::vector<double> ratios;
  for (size_t r = 0; r < seconds[kiln][thread_index].size(); ++r) {
    ratios.push_back(seconds[other][thread_index][r] / seconds[kiln][thread_index][r]);
  }
  return runtime::Median(ratios);
}

}  // namespace kiln::bench
