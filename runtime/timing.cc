// TimeKernel: warm-up, growth of `number` to reach min_repeat_ms, repeats, median.
#include "runtime/timing.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include "runtime/cpu_wait.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

// Above this, growing `number` further would only risk overflow: a kernel this cheap is
// measured well enough.
constexpr int64_t kMaxNumber = int64_t{1} << 30;

// The next `number` after a batch of `number` runs took `seconds`: aim past the minimum
// with some margin (so one more batch usually suffices), and at least double.
int NextNumber(int number, double seconds, double min_seconds) {
  double target = 2.0 * number;
  if (seconds > 0) target = std::max(target, std::ceil(number * min_seconds / seconds * 1.2));
  return static_cast<int>(std::min<double>(target, static_cast<double>(kMaxNumber)));
}

size_t LastLevelCacheBytes() {
  long bytes = sysconf(_SC_LEVEL3_CACHE_SIZE);
  if (bytes <= 0) bytes = sysconf(_SC_LEVEL2_CACHE_SIZE);
  if (bytes <= 0) {
    // Fall back to sysfs (index3 is usually the L3); failing that, assume 32 MiB.
    std::ifstream in("/sys/devices/system/cpu/cpu0/cache/index3/size");
    std::string text;
    if (in >> text && !text.empty()) {
      char unit = text.back();
      long value = std::atol(text.c_str());
      bytes = unit == 'K' ? value << 10 : unit == 'M' ? value << 20 : value;
    }
  }
  if (bytes <= 0) bytes = 32L << 20;
  return static_cast<size_t>(bytes);
}

}  // namespace

BatchTimer HostBatchTimer(std::function<void()> run) {
  return [run = std::move(run)](int n) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < n; ++i) run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
}

std::string_view CutoffName(Cutoff cutoff) {
  switch (cutoff) {
    case Cutoff::kNone:
      return "none";
    case Cutoff::kFirstRun:
      return "first_run";
    case Cutoff::kNextRun:
      return "next_run";
    case Cutoff::kAbandoned:
      return "abandoned";
  }
  return "none";
}

std::optional<Cutoff> ParseCutoff(std::string_view name) {
  for (Cutoff c : {Cutoff::kNone, Cutoff::kFirstRun, Cutoff::kNextRun, Cutoff::kAbandoned}) {
    if (CutoffName(c) == name) return c;
  }
  return std::nullopt;
}

TimingResult TimeKernel(const BatchTimer& timer, const TimingConfig& config,
                        const std::function<void()>& flush,
                        std::optional<double> first_run_seconds) {
  KILN_CHECK(config.number >= 1 && config.repeat >= 1 && config.warmup >= 0 &&
                 config.min_repeat_ms >= 0 && std::isfinite(config.min_repeat_ms) &&
                 config.cutoff_seconds >= 0 && std::isfinite(config.cutoff_seconds),
             ErrorKind::kParse,
             "timing config: need number >= 1, repeat >= 1, warmup >= 0, min_repeat_ms >= 0, "
             "cutoff_seconds >= 0; got number " +
                 std::to_string(config.number) + ", repeat " + std::to_string(config.repeat) +
                 ", warmup " + std::to_string(config.warmup) + ", min_repeat_ms " +
                 std::to_string(config.min_repeat_ms) + ", cutoff_seconds " +
                 std::to_string(config.cutoff_seconds));
  auto do_flush = [&] {
    if (!config.flush_cache) return;
    if (flush) {
      flush();
    } else {
      FlushCpuCache();
    }
  };
  TimingResult result;
  result.number = config.number;
  // Per run: the run made before, or else the warm-up's.
  std::optional<double> first = first_run_seconds;
  int warmup = config.warmup;
  if (first && warmup > 0) --warmup;
  if (warmup > 0) {
    double seconds = timer(warmup);
    result.total_seconds += seconds;
    if (!first) first = seconds / warmup;
  }
  const double cutoff = config.cutoff_seconds;
  bool probe = false;
  if (cutoff > 0 && first && std::isfinite(*first) && *first >= cutoff) {
    if (*first >= kCutoffFirstRunFactor * cutoff) {
      result.cutoff = Cutoff::kFirstRun;
      result.number = first_run_seconds ? 1 : warmup;
      result.seconds_per_run.push_back(*first);
      result.median_seconds = *first;
      return result;
    }
    // One run tells whether it is still past the cutoff when warm.
    result.number = 1;
    probe = true;
  }

  double min_seconds = config.min_repeat_ms / 1000.0;
  // `number` runs in growing parts (kFirstPartDivisor), flushed before the first; once
  // min_seconds have passed the rest is left out. A machine that got busy after `number` was
  // set makes a repeat of fewer runs, not one of thousands of slow runs past every limit.
  auto batch = [&](int number) {
    int first = min_seconds > 0 ? std::max(1, number / kFirstPartDivisor) : number;
    double seconds = 0;
    int runs = 0;
    while (runs < number) {
      if (runs == 0) do_flush();
      int n = std::min(std::max(first, runs), number - runs);
      double s = timer(n);
      ++result.batches;
      KILN_CHECK(std::isfinite(s) && s >= 0, ErrorKind::kRuntime,
                 "timer reported " + std::to_string(s) + " s for " + std::to_string(n) + " runs");
      seconds += s;
      runs += n;
      if (min_seconds > 0 && seconds >= min_seconds) break;
    }
    result.total_seconds += seconds;
    return std::make_pair(seconds, runs);
  };
  ContentionMeter meter;  // over all the repeats: one may be too short to tell
  for (int r = 0; r < config.repeat && result.cutoff == Cutoff::kNone; ++r) {
    double seconds;
    int runs;
    while (true) {
      std::tie(seconds, runs) = batch(result.number);
      if (probe && result.batches == 1 && seconds >= cutoff) {
        result.cutoff = Cutoff::kNextRun;
        break;
      }
      if (seconds >= min_seconds || result.number >= kMaxNumber) break;
      result.number = NextNumber(result.number, seconds, min_seconds);
    }
    result.seconds_per_run.push_back(seconds / runs);
  }
  result.contention = meter.Contention();
  result.median_seconds = Median(result.seconds_per_run);
  return result;
}

TimingResult TimeFunction(std::function<void()> run, const TimingConfig& config,
                          std::optional<double> first_run_seconds) {
  return TimeKernel(HostBatchTimer(std::move(run)), config, {}, first_run_seconds);
}

void FlushCpuCache() {
  static const size_t bytes = 2 * LastLevelCacheBytes();
  // Per thread, so that concurrent timers do not race on it.
  thread_local std::unique_ptr<volatile uint8_t[]> buffer(new volatile uint8_t[bytes]);
  thread_local uint8_t round = 0;
  ++round;
  // One write per cache line is enough to own the line; the read-back keeps the stores.
  for (size_t i = 0; i < bytes; i += 64) buffer[i] = round;
  uint8_t sink = 0;
  for (size_t i = 0; i < bytes; i += 64) sink ^= buffer[i];
  (void)sink;
}

double Median(std::vector<double> values) {
  if (values.empty()) return 0;
  size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  double upper = values[mid];
  if (values.size() % 2 == 1) return upper;
  double lower = *std::max_element(values.begin(), values.begin() + mid);
  return (lower + upper) / 2;
}

}  // namespace kiln::runtime
