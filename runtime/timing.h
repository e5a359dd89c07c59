// The one definition of timing a kernel that every device follows: warm-up runs, then
// `number` runs per repeat, `number` grown until one repeat lasts `min_repeat_ms`, `repeat`
// repeats (each optionally after a cache flush), every repeat kept as seconds per run, and
// the median reported. The device supplies only a BatchTimer: how long `n` back-to-back runs
// take. The host timer below uses a monotonic clock; a GPU runtime supplies one built on
// device events or timestamp queries.
//
// An optional early cutoff spends less on kernels already known to be slow (a tuner sets it
// from the best time of the workload so far): when the warm-up runs already last
// `cutoff_seconds` or more each, they are the measurement (`cut_off`), and no batch is timed.
// Such a kernel is many times slower than the best, so a run from a cold start times it well
// enough; its record says how it was timed. Without warm-up runs there is no cutoff.
#pragma once

#include <functional>
#include <vector>

namespace kiln::runtime {

struct TimingConfig {
  int number = 3;
  int repeat = 1;
  double min_repeat_ms = 100;
  bool flush_cache = false;
  int warmup = 1;
  // Seconds per run past which the warm-up runs are the whole measurement; 0: off.
  double cutoff_seconds = 0;
};

struct TimingResult {
  std::vector<double> seconds_per_run;  // one per repeat, in order
  double median_seconds = 0;
  int number = 0;            // runs per repeat at the end (after growth)
  int batches = 0;           // timed batches, growth included (excluding warm-up)
  bool cut_off = false;      // the first timed batch passed cutoff_seconds and ended it
  double total_seconds = 0;  // every run the protocol made, warm-up included
};

// Runs the kernel `n` times back to back and returns the elapsed seconds.
using BatchTimer = std::function<double(int n)>;

// A BatchTimer over a host function, timed with std::chrono::steady_clock.
BatchTimer HostBatchTimer(std::function<void()> run);

// Times with `timer` following `config` (validated: number, repeat >= 1, warmup >= 0,
// min_repeat_ms >= 0, cutoff_seconds >= 0, else kiln::Error). `flush` runs before each timed batch
// when config.flush_cache is set; by default it is FlushCpuCache.
TimingResult TimeKernel(const BatchTimer& timer, const TimingConfig& config,
                        const std::function<void()>& flush = {});

// Convenience: TimeKernel(HostBatchTimer(run), config).
TimingResult TimeFunction(std::function<void()> run, const TimingConfig& config);

// Evicts the CPU caches by writing (and reading back) a buffer twice the size of the
// last-level cache.
void FlushCpuCache();

// The median of `values` (the mean of the middle two for an even count); 0 when empty.
double Median(std::vector<double> values);

}  // namespace kiln::runtime
