// TimeKernel: warm-up, growth of `number` to min_repeat_ms, repeats kept, median, flushes;
// checked on a synthetic timer (exact) and on a host function with a known cost.
#include "runtime/timing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>

#include "support/error.h"

namespace kiln::runtime {
namespace {

// Each run "costs" cost_s; every batch is logged.
struct SyntheticTimer {
  std::vector<double> costs = {};  // per batch; the last one for every batch after
  std::vector<int> batches = {};
  size_t calls = 0;
  double Time(int n) {
    batches.push_back(n);
    double cost = costs[std::min(calls++, costs.size() - 1)];
    return n * cost;
  }
};

TEST(TimingTest, NumberGrowsUntilARepeatLastsMinRepeatMs) {
  SyntheticTimer fake{.costs = {1e-3}};
  TimingConfig config;  // number 3, repeat 1, 100 ms, warmup 1
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config);
  // The warm-up, the configured 3 runs (in parts of 1), then the grown number in growing
  // parts, until 100 ms have passed.
  ASSERT_GE(fake.batches.size(), 5u);
  EXPECT_EQ(std::vector<int>(fake.batches.begin(), fake.batches.begin() + 4),
            (std::vector<int>{1, 1, 1, 1}));
  int runs = 0;
  for (size_t i = 4; i < fake.batches.size(); ++i) {
    if (i > 5) {
      EXPECT_EQ(fake.batches[i], runs);  // each part as many as made so far
    }
    runs += fake.batches[i];
  }
  EXPECT_GE(runs * 1e-3, 0.1);
  EXPECT_LE(runs, r.number);
  EXPECT_GE(r.number * 1e-3, 0.1);
  EXPECT_LE(r.number, 200);  // grown by measured time, not blindly
  ASSERT_EQ(r.seconds_per_run.size(), 1u);
  EXPECT_DOUBLE_EQ(r.seconds_per_run[0], 1e-3);
  EXPECT_DOUBLE_EQ(r.median_seconds, 1e-3);
}

TEST(TimingTest, AllRepeatsKeptAndMedianReported) {
  // Per-run costs 5, 1, 3, 2, 4 ms; min_repeat_ms 0 so number stays put.
  SyntheticTimer fake{.costs = {9e-3, 5e-3, 1e-3, 3e-3, 2e-3, 4e-3}};  // first is the warm-up
  TimingConfig config{.number = 2, .repeat = 5, .min_repeat_ms = 0, .warmup = 1};
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config);
  ASSERT_EQ(r.seconds_per_run.size(), 5u);
  EXPECT_DOUBLE_EQ(r.seconds_per_run[0], 5e-3);
  EXPECT_DOUBLE_EQ(r.seconds_per_run[4], 4e-3);
  EXPECT_DOUBLE_EQ(r.median_seconds, 3e-3);
  EXPECT_EQ(r.number, 2);
  EXPECT_EQ(r.batches, 5);
}

TEST(TimingTest, NumberKeptAcrossRepeatsAndFlushBeforeEachBatch) {
  SyntheticTimer fake{.costs = {1e-4}};
  int flushes = 0;
  TimingConfig config{
      .number = 1, .repeat = 3, .min_repeat_ms = 10, .flush_cache = true, .warmup = 0};
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config, [&] { ++flushes; });
  EXPECT_EQ(static_cast<int>(fake.batches.size()), r.batches);
  // Growth in the first repeat (one run, then the grown number: two flushes); the other two
  // repeat it with the same parts, each flushed once before its first.
  EXPECT_EQ(flushes, 4);
  ASSERT_EQ((fake.batches.size() - 1) % 3, 0u);
  size_t parts = (fake.batches.size() - 1) / 3;
  for (size_t i = 1 + parts; i < fake.batches.size(); ++i) {
    EXPECT_EQ(fake.batches[i], fake.batches[i - parts]);
  }
  EXPECT_EQ(r.seconds_per_run.size(), 3u);
}

TEST(TimingTest, ZeroDurationTimerStillTerminates) {
  TimingConfig config{.number = 1, .repeat = 1, .min_repeat_ms = 1, .warmup = 0};
  TimingResult r = TimeKernel([](int) { return 0.0; }, config);
  EXPECT_EQ(r.number, 1 << 30);
  EXPECT_EQ(r.median_seconds, 0);
}

TEST(TimingTest, CutoffTimesASlowKernelFromOneMoreRun) {
  // 30 ms per run against a cutoff of 20 ms: the warm-up shows it, one more run confirms it
  // and is the measurement; no repeat follows.
  SyntheticTimer fake{.costs = {30e-3}};
  TimingConfig config{.number = 3, .repeat = 3, .min_repeat_ms = 100, .warmup = 1};
  config.cutoff_seconds = 20e-3;
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config);
  EXPECT_EQ(fake.batches, (std::vector<int>{1, 1}));
  EXPECT_EQ(r.cutoff, Cutoff::kNextRun);
  EXPECT_EQ(r.number, 1);
  EXPECT_EQ(r.batches, 1);
  ASSERT_EQ(r.seconds_per_run.size(), 1u);
  EXPECT_DOUBLE_EQ(r.median_seconds, 30e-3);
  EXPECT_DOUBLE_EQ(r.total_seconds, 60e-3);
}

TEST(TimingTest, CutoffTakesAFirstRunFarPastItAlone) {
  // 250 ms against a cutoff of 20 ms: over kCutoffFirstRunFactor times it, the warm-up run
  // is the measurement (TimeKernel cannot stop a run: it never abandons one).
  SyntheticTimer fake{.costs = {250e-3}};
  TimingConfig config{.number = 3, .repeat = 3, .min_repeat_ms = 100, .warmup = 1};
  config.cutoff_seconds = 20e-3;
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config);
  EXPECT_EQ(fake.batches, (std::vector<int>{1}));
  EXPECT_EQ(r.cutoff, Cutoff::kFirstRun);
  EXPECT_EQ(r.number, 1);
  EXPECT_EQ(r.batches, 0);
  ASSERT_EQ(r.seconds_per_run.size(), 1u);
  EXPECT_DOUBLE_EQ(r.median_seconds, 250e-3);
}

TEST(TimingTest, ARunMadeBeforeStandsForTheFirstWarmUpRun) {
  TimingConfig config{.number = 3, .repeat = 1, .min_repeat_ms = 100, .warmup = 1};
  config.cutoff_seconds = 20e-3;
  // Far past the cutoff: nothing more is run.
  SyntheticTimer none{.costs = {1}};
  TimingResult r = TimeKernel([&](int n) { return none.Time(n); }, config, {}, 0.5);
  EXPECT_TRUE(none.batches.empty());
  EXPECT_EQ(r.cutoff, Cutoff::kFirstRun);
  EXPECT_EQ(r.number, 1);
  EXPECT_DOUBLE_EQ(r.median_seconds, 0.5);
  // Past it: no warm-up of its own, one run to confirm.
  SyntheticTimer one{.costs = {25e-3}};
  r = TimeKernel([&](int n) { return one.Time(n); }, config, {}, 30e-3);
  EXPECT_EQ(one.batches, (std::vector<int>{1}));
  EXPECT_EQ(r.cutoff, Cutoff::kNextRun);
  EXPECT_DOUBLE_EQ(r.median_seconds, 25e-3);
  // Below it: the whole protocol, without a warm-up of its own (3 runs, in parts of 1).
  SyntheticTimer fast{.costs = {1e-3}};
  r = TimeKernel([&](int n) { return fast.Time(n); }, config, {}, 2e-3);
  EXPECT_EQ(r.cutoff, Cutoff::kNone);
  ASSERT_GE(fast.batches.size(), 3u);
  EXPECT_EQ(std::vector<int>(fast.batches.begin(), fast.batches.begin() + 3),
            (std::vector<int>{1, 1, 1}));
  EXPECT_GE(r.number * 1e-3, 0.1);
}

TEST(TimingTest, CutoffTrustsTheConfirmingRunOverASlowFirstOne) {
  // A cold first run past the cutoff, warm runs well below it: the whole protocol, grown from
  // a single run.
  SyntheticTimer fake{.costs = {30e-3, 5e-3, 5e-3, 5e-3, 5e-3}};
  TimingConfig config{.number = 3, .repeat = 1, .min_repeat_ms = 100, .warmup = 1};
  config.cutoff_seconds = 20e-3;
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config);
  ASSERT_GE(fake.batches.size(), 3u);
  EXPECT_EQ(fake.batches[1], 1);
  EXPECT_EQ(r.cutoff, Cutoff::kNone);
  EXPECT_GE(r.number * 5e-3, 0.1);
  EXPECT_DOUBLE_EQ(r.median_seconds, 5e-3);
}

TEST(TimingTest, CutoffLeavesAFastKernelTheWholeProtocol) {
  // The same protocol, batch for batch, as without a cutoff.
  SyntheticTimer with{.costs = {1e-3}}, without{.costs = {1e-3}};
  TimingConfig config{.number = 3, .repeat = 2, .min_repeat_ms = 100, .warmup = 1};
  TimingResult plain = TimeKernel([&](int n) { return without.Time(n); }, config);
  config.cutoff_seconds = 20e-3;
  TimingResult r = TimeKernel([&](int n) { return with.Time(n); }, config);
  EXPECT_EQ(r.cutoff, Cutoff::kNone);
  EXPECT_EQ(plain.cutoff, Cutoff::kNone);
  EXPECT_EQ(with.batches, without.batches);
  EXPECT_EQ(r.number, plain.number);
  EXPECT_EQ(r.seconds_per_run, plain.seconds_per_run);
  EXPECT_GE(r.number * 1e-3, 0.1);
  int runs = 0;  // the warm-up's and every batch's
  for (int n : with.batches) runs += n;
  EXPECT_DOUBLE_EQ(r.total_seconds, runs * 1e-3);
}

TEST(TimingTest, WithoutWarmUpThereIsNoCutoff) {
  SyntheticTimer fake{.costs = {30e-3}};
  TimingConfig config{.number = 2, .repeat = 2, .min_repeat_ms = 10, .warmup = 0};
  config.cutoff_seconds = 20e-3;
  TimingResult r = TimeKernel([&](int n) { return fake.Time(n); }, config);
  // Each repeat ends after its first run: it already lasted past 10 ms.
  EXPECT_EQ(fake.batches, (std::vector<int>{1, 1}));
  EXPECT_EQ(r.cutoff, Cutoff::kNone);
  EXPECT_EQ(r.seconds_per_run.size(), 2u);
}

TEST(TimingTest, InvalidConfigIsRejected) {
  auto timer = [](int n) { return n * 1e-3; };
  EXPECT_THROW(TimeKernel(timer, TimingConfig{.number = 0}), Error);
  EXPECT_THROW(TimeKernel(timer, TimingConfig{.repeat = 0}), Error);
  EXPECT_THROW(TimeKernel(timer, TimingConfig{.min_repeat_ms = -1}), Error);
  EXPECT_THROW(TimeKernel(timer, TimingConfig{.cutoff_seconds = -1}), Error);
}

TEST(TimingTest, BrokenTimerIsAnError) {
  TimingConfig config{.number = 1, .repeat = 1, .min_repeat_ms = 1, .warmup = 0};
  EXPECT_THROW(TimeKernel([](int) { return -1.0; }, config), Error);
}

TEST(TimingTest, CutoffNamesRoundTrip) {
  for (Cutoff c : {Cutoff::kNone, Cutoff::kFirstRun, Cutoff::kNextRun, Cutoff::kAbandoned}) {
    EXPECT_EQ(ParseCutoff(CutoffName(c)), c);
  }
  EXPECT_FALSE(ParseCutoff("sometimes").has_value());
}

TEST(TimingTest, MedianOfEvenAndOddCounts) {
  EXPECT_EQ(Median({}), 0);
  EXPECT_EQ(Median({3, 1, 2}), 2);
  EXPECT_EQ(Median({4, 1, 3, 2}), 2.5);
}

TEST(TimingTest, HostFunctionWithKnownCost) {
  // A busy wait of 0.5 ms per call: a 20 ms repeat needs about 40 calls.
  constexpr double kCost = 0.5e-3;
  int calls = 0;
  auto run = [&] {
    ++calls;
    auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(kCost);
    while (std::chrono::steady_clock::now() < until) {
    }
  };
  TimingConfig config{.number = 1, .repeat = 3, .min_repeat_ms = 20, .warmup = 2};
  TimingResult r = TimeFunction(run, config);
  EXPECT_GE(r.number * kCost, 0.02 * 0.99);
  ASSERT_EQ(r.seconds_per_run.size(), 3u);
  for (double s : r.seconds_per_run) EXPECT_GE(s, kCost);
  EXPECT_GE(r.median_seconds, kCost);
  // Generous (the machine is shared), yet far below a batch's time mistaken for a run's.
  EXPECT_LT(r.median_seconds, 10 * kCost);
  // Each repeat ran at least its first part (until it lasted 20 ms: all of `number` when the
  // machine is quiet, fewer when other work slows the calls down).
  EXPECT_GE(calls, 2 + 3 * std::max(1, r.number / kFirstPartDivisor));
}

// The machine gets busy once `number` is set: each run 100 times slower. A repeat stops once
// it has lasted min_repeat_ms (after its first part, 1/16 of `number`), not after `number`
// slow runs: about 8 x min_repeat_ms each instead of 120 x.
TEST(TimingTest, ARepeatIsBoundedByTimeWhenTheMachineGetsBusy) {
  TimingConfig config{.number = 1, .repeat = 3, .min_repeat_ms = 100, .warmup = 1};
  double elapsed = 0;
  std::vector<int> calls;
  auto timer = [&](int n) {
    calls.push_back(n);
    double per_run = elapsed < 0.11 ? 1e-5 : 1e-3;  // quiet until the first repeat ends
    elapsed += n * per_run;
    return n * per_run;
  };
  TimingResult r = TimeKernel(timer, config);
  ASSERT_EQ(r.seconds_per_run.size(), 3u);
  EXPECT_DOUBLE_EQ(r.seconds_per_run[0], 1e-5);
  EXPECT_DOUBLE_EQ(r.seconds_per_run[1], 1e-3);
  EXPECT_DOUBLE_EQ(r.seconds_per_run[2], 1e-3);
  EXPECT_GE(r.number, 10000);
  // Unbounded, the busy repeats would last 2 x number x 1 ms, over 20 s.
  EXPECT_LT(r.total_seconds, 2.5);
}

TEST(TimingTest, FlushCpuCacheRuns) {
  auto start = std::chrono::steady_clock::now();
  FlushCpuCache();
  FlushCpuCache();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 5);
}

}  // namespace
}  // namespace kiln::runtime
