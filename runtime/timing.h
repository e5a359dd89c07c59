// The one definition of timing a kernel that every device follows: warm-up runs, then
// `number` runs per repeat, `number` grown until one repeat lasts `min_repeat_ms`, `repeat`
// repeats (each optionally after a cache flush), every repeat kept as seconds per run, and
// the median reported. A repeat is bounded by time, not by its count: its runs go in growing
// parts and stop once it has lasted `min_repeat_ms`, so that a machine that gets busy after
// `number` was set gives a repeat of fewer runs, not one of minutes (a kernel 100 times slower
// than when `number` was set lasts about 8 x min_repeat_ms, not 120 x). The repeats'
// contention (cpu_wait.h: how long this process's threads waited for a core, per second) is
// measured alongside. The device supplies only a BatchTimer: how long `n` back-to-back runs
// take. The host timer below uses a monotonic clock; a GPU runtime supplies one built on
// device events or timestamp queries.
//
// An optional early cutoff spends less on kernels already known to be slow (a tuner sets it
// from the best time of the workload so far). A kernel whose first run (the first warm-up
// run, or a run made just before, such as the sandbox's checked run) lasts `cutoff_seconds`
// or more is timed from one more run, and when that run is past the cutoff too it is the
// measurement; a first run over kCutoffFirstRunFactor times the cutoff is the measurement
// by itself (no noise makes a kernel that much slower). A runner that can stop a run (the
// sandbox, runtime/sandbox_runner.h) abandons a first run still going at
// kCutoffAbandonFactor times the cutoff: its time is then a lower bound. The result says
// which.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <vector>

namespace kiln::runtime {

// How the early cutoff shortened a measurement.
enum class Cutoff {
  kNone,       // the whole protocol
  kFirstRun,   // the first run, far past the cutoff, is the measurement
  kNextRun,    // the first run was past the cutoff; one more run, past it too, is the measurement
  kAbandoned,  // the first run was stopped, still going, at kCutoffAbandonFactor x the cutoff
};
// "none", "first_run", "next_run", "abandoned".
std::string_view CutoffName(Cutoff cutoff);
std::optional<Cutoff> ParseCutoff(std::string_view name);

// A first run this many times past the cutoff is a measurement by itself. In a matmul
// tuning's first rounds most candidates run 5-200 times slower than the best so far:
// confirming them, or waiting for them to end, was most of the time spent on candidates.
inline constexpr double kCutoffFirstRunFactor = 2;
// A first run still going at this many times the cutoff is stopped (where the runner can).
inline constexpr double kCutoffAbandonFactor = 4;

struct TimingConfig {
  int number = 3;
  int repeat = 1;
  double min_repeat_ms = 100;
  bool flush_cache = false;
  int warmup = 1;
  // Seconds per run past which a kernel is timed from one or two runs; 0: off.
  double cutoff_seconds = 0;
};

// A repeat's runs go in parts (when min_repeat_ms > 0): the first is 1/kFirstPartDivisor of
// them, each next as many as made so far (1/16, 1/16, 1/8, 1/4, 1/2).
inline constexpr int kFirstPartDivisor = 16;

struct TimingResult {
  std::vector<double> seconds_per_run;  // one per repeat, in order
  double median_seconds = 0;
  int number = 0;   // runs per repeat at the end (after growth; a repeat cut short made fewer)
  int batches = 0;  // timed batches, growth included (excluding warm-up)
  Cutoff cutoff = Cutoff::kNone;
  double total_seconds = 0;  // every run the protocol made, warm-up included
  // The contention over the repeats, growth included (cpu_wait.h); 0 where it cannot be
  // measured.
  double contention = 0;
};

// Runs the kernel `n` times back to back and returns the elapsed seconds.
using BatchTimer = std::function<double(int n)>;

// A BatchTimer over a host function, timed with std::chrono::steady_clock.
BatchTimer HostBatchTimer(std::function<void()> run);

// Times with `timer` following `config` (validated: number, repeat >= 1, warmup >= 0,
// min_repeat_ms >= 0, cutoff_seconds >= 0, else kiln::Error). `flush` runs before each timed
// batch when config.flush_cache is set; by default it is FlushCpuCache. `first_run_seconds`
// is the time of a run made just before (the sandbox's checked run): it stands for the first
// warm-up run, and the cutoff judges it.
TimingResult TimeKernel(const BatchTimer& timer, const TimingConfig& config,
                        const std::function<void()>& flush = {},
                        std::optional<double> first_run_seconds = std::nullopt);

// Convenience: TimeKernel(HostBatchTimer(run), config, {}, first_run_seconds).
TimingResult TimeFunction(std::function<void()> run, const TimingConfig& config,
                          std::optional<double> first_run_seconds = std::nullopt);

// Evicts the CPU caches by writing (and reading back) a buffer twice the size of the
// last-level cache.
void FlushCpuCache();

// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double Median(std::vector<double> values);

}  // namespace kiln::runtime
