// Property: whatever valid schedule is drawn (random splits, reorders, parallel, vectorize,
// unroll, cache_write, compute_at and reverse_compute_at) of a matmul, a convolution and a
// fused matmul + bias + relu, the C the tuner builds for it computes what the reference
// interpreter computes. Every candidate goes through the real measurement pipeline
// (lower, emit, gcc, sandboxed run, comparison of every parameter with the interpreter's
// outputs); builds run two at a time, as a worker on this machine would.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "ir/interpreter/random_inputs.h"
#include "ir/structural.h"
#include "runtime/cpu_measurer.h"
#include "runtime_test_util.h"
#include "search/schedule/schedule.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::runtime {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::RandomEngine;
using search::Schedule;

// Distinct candidates per workload; three workloads give over 200.
constexpr int kCandidatesPerWorkload = 70;

struct Workload {
  std::string zoo_name;
  std::string main_block;              // the reduction block that is tiled
  std::vector<std::string> producers;  // blocks before it: compute_at candidates
  std::vector<std::string> consumers;  // blocks after it: reverse_compute_at candidates
};

std::optional<int64_t> ExtentOf(Schedule& sch, LoopRV loop) {
  return ir::AsConstInt(sch.Get(loop)->extent);
}

bool Chance(RandomEngine& rng, int percent) { return rng.UniformInt(0, 100) < percent; }

// Runs one primitive call; an invalid draw is a schedule error and leaves `sch` usable, any
// other error is a bug of the primitive.
template <typename F>
void Try(F call) {
  try {
    call();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kSchedule) throw;
  }
}

// One random schedule of `w`, drawn from `rng`.
void DrawSchedule(Schedule& sch, const Workload& w, RandomEngine& rng) {
  BlockRV main = sch.GetBlock(w.main_block);
  std::optional<BlockRV> cache;
  if (Chance(rng, 35)) {
    Try([&] { cache = sch.CacheWrite(main, 0, Chance(rng, 50) ? "global" : "local"); });
  }

  // Tile: split loops in two or three, perfectly (sampled) or not (a guard).
  for (LoopRV loop : sch.GetLoops(main)) {
    if (!Chance(rng, 60)) continue;
    std::optional<int64_t> extent = ExtentOf(sch, loop);
    if (!extent || *extent < 2) continue;
    if (Chance(rng, 75)) {
      int parts = Chance(rng, 70) ? 2 : 3;
      Try([&] {
        std::vector<search::ExprRV> f = sch.SamplePerfectTile(loop, parts, 16);
        sch.Split(loop, std::vector<search::Factor>(f.begin(), f.end()));
      });
    } else {
      Try([&] { sch.Split(loop, {std::nullopt, rng.UniformInt(2, 8)}); });
    }
  }

  // Reorder: a random permutation of the main block's loops (reduction loops may go out).
  std::vector<LoopRV> loops = sch.GetLoops(main);
  if (loops.size() >= 2 && Chance(rng, 60)) {
    std::vector<LoopRV> order = loops;
    for (size_t i = order.size(); i > 1; --i) {
      std::swap(order[i - 1], order[rng.UniformInt(0, static_cast<int64_t>(i))]);
    }
    Try([&] { sch.Reorder(order); });
  }

  // Compute locations: producers under a sampled loop of their consumer, consumers (and the
  // write cache) under a loop of the main block.
  for (const std::string& name : w.producers) {
    if (!Chance(rng, 50)) continue;
    Try([&] {
      BlockRV block = sch.GetBlock(name);
      LoopRV at = sch.SampleComputeLocation(block);
      if (!sch.IsRootMark(at)) sch.ComputeAt(block, at);
    });
  }
  // After a reorder the region written under a loop may be strided: reverse_compute_at
  // rejects those loops (a normal error, counted like any other rejected draw).
  std::vector<BlockRV> consumers;
  for (const std::string& name : w.consumers) consumers.push_back(sch.GetBlock(name));
  if (cache) consumers.insert(consumers.begin(), *cache);
  for (BlockRV block : consumers) {
    if (!Chance(rng, 50)) continue;
    loops = sch.GetLoops(main);
    LoopRV at = loops[rng.UniformInt(0, static_cast<int64_t>(loops.size()))];
    Try([&] { sch.ReverseComputeAt(block, at); });
  }

  // Parallel outer loop, vectorized inner loop, unrolled small loop.
  loops = sch.GetLoops(main);
  if (Chance(rng, 50)) Try([&] { sch.Parallel(loops.front()); });
  if (Chance(rng, 40)) {
    std::optional<int64_t> extent = ExtentOf(sch, loops.back());
    if (extent && *extent <= 64) Try([&] { sch.Vectorize(loops.back()); });
  }
  if (Chance(rng, 35)) {
    LoopRV loop = loops[rng.UniformInt(0, static_cast<int64_t>(loops.size()))];
    std::optional<int64_t> extent = ExtentOf(sch, loop);
    if (extent && *extent <= 16) Try([&] { sch.Unroll(loop); });
  }
  if (cache && Chance(rng, 40)) {
    Try([&] {
      std::vector<LoopRV> cache_loops = sch.GetLoops(*cache);
      std::optional<int64_t> extent = ExtentOf(sch, cache_loops.back());
      if (extent && *extent <= 64) sch.Vectorize(cache_loops.back());
    });
  }
}

// For a failing candidate: whether the schedule or the code generator is at fault, by
// running the scheduled function itself in the interpreter.
std::string Blame(const ir::PrimFunc& workload, const ir::PrimFunc& scheduled) {
  std::vector<ir::HostTensor> want = ir::RunWithRandomInputs(workload, {}, 1);
  std::vector<ir::HostTensor> got;
  try {
    got = ir::RunWithRandomInputs(scheduled, {}, 1);
  } catch (const Error& e) {
    return std::string("the interpreter cannot run the scheduled function (") + e.what() +
           "): a schedule primitive is at fault";
  }
  MeasureResult check;
  CheckOutputs(want, got, check);
  if (check.ok()) {
    return "the interpreter computes the right result from the scheduled function, so the "
           "difference arose in lowering or code generation (or the schedule is right only "
           "when run in order on full-size buffers)";
  }
  return "the scheduled function computes something else in the interpreter too (" + check.message +
         "): a schedule primitive is at fault";
}

TEST(RandomScheduleMeasure, EveryValidScheduleBuildsAndMatchesTheInterpreter) {
  testing::ScratchDir dir;
  MeasureOptions options;
  options.cache_dir = dir.Sub("cache");
  options.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 0};
  options.run_time_limit_s = 30;
  options.num_threads = 2;
  options.build_jobs = 2;
  CpuMeasurer measurer(options);

  const std::vector<Workload> workloads = {
      {"matmul", "C", {}, {}},
      {"conv2d_stride2_pad1", "conv2d_nchw", {"pad_temp"}, {}},
      {"dense_bias_relu", "dense", {}, {"bias_add", "relu"}},
  };
  std::map<std::string, int> instruction_counts;
  int total = 0;
  for (const Workload& w : workloads) {
    ir::PrimFunc workload = ir::zoo::ZooLookup(w.zoo_name).build();
    RandomEngine rng(20261121);
    std::set<uint64_t> seen = {ir::StructuralHash(workload)};
    std::vector<MeasureCandidate> candidates;
    std::vector<std::string> scripts;
    for (int attempt = 0; attempt < 20 * kCandidatesPerWorkload &&
                          static_cast<int>(candidates.size()) < kCandidatesPerWorkload;
         ++attempt) {
      Schedule sch(workload, static_cast<uint64_t>(attempt) + 1);
      DrawSchedule(sch, w, rng);
      if (!seen.insert(ir::StructuralHash(sch.func())).second) continue;
      for (const search::Instruction& inst : sch.trace().instructions()) {
        ++instruction_counts[inst.kind];
      }
      candidates.push_back({workload, sch.func()});
      scripts.push_back(sch.trace().AsPython());
    }
    ASSERT_EQ(static_cast<int>(candidates.size()), kCandidatesPerWorkload) << w.zoo_name;

    std::vector<MeasureResult> results = measurer.MeasureBatch(candidates);
    ASSERT_EQ(results.size(), candidates.size());
    for (size_t i = 0; i < results.size(); ++i) {
      const MeasureResult& r = results[i];
      EXPECT_TRUE(r.ok() && r.correctness_checked)
          << w.zoo_name << " candidate " << i << ": " << MeasureErrorKindName(r.error_kind) << ": "
          << r.message << "\n"
          << Blame(workload, candidates[i].scheduled) << "\nschedule:\n"
          << scripts[i];
      EXPECT_EQ(r.reference.rfind("interpreter, full", 0), 0u) << r.reference;
    }
    total += static_cast<int>(results.size());
  }
  EXPECT_GE(total, 200);

  // The draw exercised every primitive it is meant to.
  std::string counts;
  for (const auto& [kind, n] : instruction_counts) counts += kind + "=" + std::to_string(n) + " ";
  for (const char* kind : {"Split", "Reorder", "Parallel", "Vectorize", "Unroll", "CacheWrite",
                           "ComputeAt", "ReverseComputeAt", "SamplePerfectTile"}) {
    EXPECT_GE(instruction_counts[kind], 10) << kind << " is rarely valid: " << counts;
  }
  std::cout << "[ property ] " << total << " schedules; instructions: " << counts << "\n";
}

}  // namespace
}  // namespace kiln::runtime
