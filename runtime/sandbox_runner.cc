// RunSandboxRequest: build, load, run once and dump, time.
#include "runtime/sandbox_runner.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <optional>

#include "runtime/cpu_module.h"
#include "runtime/cpu_wait.h"
#include "runtime/file_util.h"
#include "runtime/kernel_args.h"
#include "runtime/run_watchdog.h"
#include "runtime/timing.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

SandboxResult Failure(MeasureErrorKind kind, std::string message, SandboxResult result = {}) {
  result.error_kind = kind;
  result.message = std::move(message);
  return result;
}

// Runs the kernel once and returns its seconds; under the early cutoff's watchdog when
// `on_abandon` is given and the request has a cutoff. `contention` is the run's
// (cpu_wait.h). A run is abandoned once it has had a core for kCutoffAbandonFactor times the
// cutoff: the time its threads waited for one while the machine was busy is not the
// kernel's, so a fast kernel slowed by other work is never abandoned, and a slow one still is
// (the sandbox's own time limit holds too).
double FirstRun(const SandboxRequest& request, const SandboxResult& so_far,
                const AbandonHandler& on_abandon, const std::function<void()>& run,
                double* contention) {
  ContentionMeter meter;
  std::optional<RunWatchdog> watchdog;
  double cutoff = request.timing.cutoff_seconds;
  if (on_abandon && cutoff > 0) {
    double limit = kCutoffAbandonFactor * cutoff;
    watchdog.emplace(
        limit,
        [&, limit, probe = meter, ran = 0.0, judged = 0.0](double elapsed) mutable -> double {
          // The stretch since the last look, less the share of it spent waiting for a core.
          ran += (elapsed - judged) * std::max(0.0, 1.0 - probe.Contention());
          judged = elapsed;
          if (ran < limit) return limit - ran;
          SandboxResult abandoned = so_far;
          abandoned.cutoff = Cutoff::kAbandoned;
          abandoned.median_seconds = elapsed;
          abandoned.repeat_seconds = {elapsed};
          abandoned.number = 1;
          abandoned.kernel_seconds += elapsed;
          abandoned.outputs.clear();
          on_abandon(abandoned);
          return 0.0;
        });
  }
  auto start = std::chrono::steady_clock::now();
  run();
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  watchdog.reset();
  *contention = meter.Contention();
  return seconds;
}

// The files the kernel's tensor arguments are dumped to, by argument index, opened now;
// `refs` describes them.
std::vector<std::pair<size_t, PreopenedFile>> OpenOutputFiles(const SandboxRequest& request,
                                                              const std::vector<ir::ArgValue>& args,
                                                              std::vector<TensorFileRef>& refs) {
  std::vector<std::pair<size_t, PreopenedFile>> files;
  if (request.phase != SandboxPhase::kRunOnce && !request.dump_outputs) return files;
  for (size_t i = 0; i < args.size(); ++i) {
    const auto* tensor = std::get_if<ir::HostTensor>(&args[i]);
    if (tensor == nullptr) continue;
    TensorFileRef out;
    out.param_index = static_cast<int>(i);
    out.dtype = tensor->dtype();
    out.shape = tensor->shape();
    out.path = (std::filesystem::path(request.output_dir) / ("param" + std::to_string(i) + ".bin"))
                   .string();
    files.emplace_back(i, PreopenedFile(out.path));
    refs.push_back(std::move(out));
  }
  return files;
}

}  // namespace

SandboxResult RunSandboxRequest(const SandboxRequest& request, const AbandonHandler& on_abandon,
                                const LockdownHook& lock_down) {
  SandboxResult result;
  result.library_path = request.library_path;
  if (!request.source_path.empty()) {
    BuildResult built = BuildCSource(ReadWholeFile(request.source_path), request.build);
    result.build_seconds = built.compile_seconds;
    result.build_cache_hit = built.cache_hit;
    if (!built.ok) return Failure(MeasureErrorKind::kBuildError, built.error, result);
    result.library_path = built.library_path;
  }
  if (request.phase == SandboxPhase::kBuild) return result;

  const codegen::KernelSignature& signature = request.signature;
  KernelFunction kernel = nullptr;
  // Keeps the library loaded until the end of the request.
  std::optional<CpuModule> module;
  try {
    // Kept loaded: a parallel kernel's OpenMP worker threads outlive the request.
    module.emplace(CpuModule::Load(result.library_path, /*keep_loaded=*/true));
    kernel = module->GetKernel(signature.symbol);
  } catch (const Error& e) {
    return Failure(MeasureErrorKind::kBuildError, e.what(), result);
  }

  std::vector<ir::ArgValue> args = MaterializeArgs(request.args);
  std::vector<codegen::PackedValue> packed = PackArguments(signature, args);
  auto run = [&] { CallKernel(kernel, signature, packed); };
  // Outputs are listed in the result once written.
  std::vector<TensorFileRef> output_refs;
  std::vector<std::pair<size_t, PreopenedFile>> output_files =
      OpenOutputFiles(request, args, output_refs);
  if (lock_down) {
    CpuModule::StartOpenMpThreads();
    PinThreadWaitFiles();
    if (request.timing.flush_cache) FlushCpuCache();
    lock_down();
  }
  try {
    // The first run (the checked one when outputs are dumped) in the time phase, which the
    // early cutoff judges.
    std::optional<double> first_run;
    double first_contention = 0;
    if (request.phase == SandboxPhase::kRunOnce) {
      result.kernel_seconds += FirstRun(request, result, {}, run, &first_contention);
    } else if (request.dump_outputs || request.timing.warmup > 0) {
      first_run = FirstRun(request, result, on_abandon, run, &first_contention);
      result.kernel_seconds += *first_run;
    }
    for (auto& [index, file] : output_files) {
      WriteTensorFile(std::get<ir::HostTensor>(args[index]), file);
    }
    result.outputs = std::move(output_refs);
    if (request.phase == SandboxPhase::kTime) {
      // The first run (whose outputs were dumped, if they were) already warmed the caches and
      // the kernel's pages: it is the first warm-up run, also for the early cutoff.
      // A first run slowed by a busy machine makes a contended result (the CPU measurer times
      // it again) rather than an abandoned one.
      TimingResult timing = TimeFunction(run, request.timing, first_run);
      result.repeat_seconds = timing.seconds_per_run;
      result.median_seconds = timing.median_seconds;
      result.number = timing.number;
      result.cutoff = timing.cutoff;
      result.contention = std::max(first_contention, timing.contention);
      result.kernel_seconds += timing.total_seconds;
    }
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kRuntime) throw;
    return Failure(MeasureErrorKind::kRuntimeError, e.what(), result);
  }
  return result;
}

}  // namespace kiln::runtime
