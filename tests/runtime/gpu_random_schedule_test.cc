// Property: whatever valid thread-binding schedule is drawn (splits, reorder, outer loops bound
// to blockIdx and inner ones to threadIdx, cache_read into "shared" with compute_at and a
// cooperative fetch, cache_write "local", unroll, vectorize, producers and consumers computed
// at the block or thread level, bound on their own, or left to run on one thread) of a matmul, a
// convolution and a fused matmul + bias + relu, the kernels a GPU device kind builds compute
// what the reference interpreter computes. Every candidate goes through the device's real
// measurer (lower, emit, build on the device, run in its runner process, compare every
// parameter). Parameterized by device kind: each GPU runtime adds its kind to the
// instantiation below; a machine without the device skips, saying so. CUDA's kernels are also
// compiled for sm_90 where there is only NVRTC (the last test).
//
// KILN_GPU_PROPERTY_CANDIDATES sets the candidates per workload (default 12, so that CI stays
// near a minute on PoCL, whose compiler takes about a second per kernel on a quiet core; 70
// gives the full 210).
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <set>

#include "codegen/cuda/cuda_emitter.h"
#include "codegen/lower.h"
#include "ir/interpreter/random_inputs.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "runtime/cuda/nvrtc.h"
#include "runtime/measurer.h"
#include "runtime/sandbox_client.h"
#include "runtime_test_util.h"
#include "search/schedule/schedule.h"
#include "tests/codegen/cuda_batch_compile.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::runtime {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::RandomEngine;
using search::Schedule;

int CandidatesPerWorkload() {
  const char* env = std::getenv("KILN_GPU_PROPERTY_CANDIDATES");
  if (env && *env) return std::max(1, std::atoi(env));
  return 12;
}

struct Workload {
  std::string zoo_name;
  std::string main_block;
  std::vector<std::string> producers;
  std::vector<std::string> consumers;
};

std::optional<int64_t> ExtentOf(Schedule& sch, LoopRV loop) {
  return ir::AsConstInt(sch.Get(loop)->extent);
}

bool Chance(RandomEngine& rng, int percent) { return rng.UniformInt(0, 100) < percent; }

template <typename F>
bool Try(F call) {
  try {
    call();
    return true;
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kSchedule) throw;
    return false;
  }
}

// Whether `loop` feeds a reduction iteration of `block`.
bool IsReduceLoop(Schedule& sch, BlockRV block, LoopRV loop) {
  const ir::BlockRealizeNode* realize = sch.GetRealize(block);
  const ir::BlockNode* b = realize->block_node();
  const ir::VarNode* var = sch.Get(loop)->loop_var.get();
  for (size_t i = 0; i < b->iter_vars.size(); ++i) {
    if (b->iter_vars[i].kind != ir::IterKind::kSpatial &&
        ir::UsesVar(realize->iter_values[i], var)) {
      return true;
    }
  }
  return false;
}

// Binds a block on its own: its loops fused, split into blocks of `threads` threads.
void BindAlone(Schedule& sch, BlockRV block, int64_t threads) {
  std::vector<LoopRV> loops = sch.GetLoops(block);
  LoopRV fused = loops.size() == 1 ? loops[0] : sch.Fuse(loops);
  std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, threads});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
}

// Spreads a cache block's copy, computed at `at`, over the block's threads (x, or y then x).
void CooperativeFetch(Schedule& sch, BlockRV cache, LoopRV at, int64_t ty, int64_t tx) {
  std::vector<LoopRV> loops = sch.GetLoops(cache);
  // The copy's own loops: those below the compute location (the ones above it are shared
  // with the consumer, and binding one would bind the consumer's loop too).
  std::vector<LoopRV> own;
  bool below = false;
  for (LoopRV l : loops) {
    if (below) own.push_back(l);
    if (sch.Get(l) == sch.Get(at)) below = true;
  }
  while (own.size() > 2) own.erase(own.begin());
  if (own.empty()) return;
  LoopRV fused = own.size() == 1 ? own[0] : sch.Fuse(own);
  if (ty > 1) {
    std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, ty, tx});
    sch.Bind(parts[1], "threadIdx.y");
    sch.Bind(parts[2], "threadIdx.x");
  } else {
    std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, tx});
    sch.Bind(parts[1], "threadIdx.x");
  }
}

// One random thread-binding schedule of `w`; false when the draw is not a valid GPU schedule
// (a primitive refused it, or the block would need more than `max_threads` threads: 1024, or
// WebGPU's default 256).
bool DrawGpuSchedule(Schedule& sch, const Workload& w, RandomEngine& rng,
                     int64_t max_threads = 1024) {
  BlockRV main = sch.GetBlock(w.main_block);
  std::vector<BlockRV> read_caches;
  for (int input = 0; input < 2; ++input) {
    if (Chance(rng, 35)) Try([&] { read_caches.push_back(sch.CacheRead(main, input, "shared")); });
  }
  std::optional<BlockRV> write_cache;
  if (Chance(rng, 40)) Try([&] { write_cache = sch.CacheWrite(main, 0, "local"); });

  std::vector<LoopRV> spatial, reduce;
  for (LoopRV l : sch.GetLoops(main)) (IsReduceLoop(sch, main, l) ? reduce : spatial).push_back(l);

  // Spatial loops: [grid part, thread part, inner part]; reduction loops: [outer, inner].
  std::vector<LoopRV> grid, threads, inner, reduce_outer, reduce_inner;
  for (LoopRV l : spatial) {
    std::optional<int64_t> extent = ExtentOf(sch, l);
    if (!extent || *extent == 1) {
      grid.push_back(l);
      continue;
    }
    bool ok = false;
    if (Chance(rng, 75)) {
      ok = Try([&] {
        std::vector<search::ExprRV> f = sch.SamplePerfectTile(l, 3, 4);
        std::vector<LoopRV> p = sch.Split(l, std::vector<search::Factor>(f.begin(), f.end()));
        grid.push_back(p[0]);
        threads.push_back(p[1]);
        inner.push_back(p[2]);
      });
    } else {
      ok = Try([&] {
        std::vector<LoopRV> p = sch.Split(l, {std::nullopt, rng.UniformInt(2, 9)});
        grid.push_back(p[0]);
        threads.push_back(p[1]);
      });
    }
    if (!ok) grid.push_back(l);
  }
  for (LoopRV l : reduce) {
    std::optional<int64_t> extent = ExtentOf(sch, l);
    if (extent && *extent >= 4 && Chance(rng, 60)) {
      bool ok = Try([&] {
        std::vector<search::ExprRV> f = sch.SamplePerfectTile(l, 2, 8);
        std::vector<LoopRV> p = sch.Split(l, std::vector<search::Factor>(f.begin(), f.end()));
        reduce_outer.push_back(p[0]);
        reduce_inner.push_back(p[1]);
      });
      if (ok) continue;
    }
    reduce_outer.push_back(l);
  }
  if (threads.empty()) return false;
  std::vector<LoopRV> order;
  for (auto* group : {&grid, &threads, &reduce_outer, &reduce_inner, &inner}) {
    order.insert(order.end(), group->begin(), group->end());
  }
  if (!Try([&] { sch.Reorder(order); })) return false;

  // Grid: one fused blockIdx.x, or blockIdx.y and x. Threads likewise.
  auto bind_group = [&](std::vector<LoopRV>& loops, const char* prefix) -> std::vector<LoopRV> {
    if (loops.size() >= 2 && Chance(rng, 40)) {
      LoopRV y = loops[0];
      std::vector<LoopRV> rest(loops.begin() + 1, loops.end());
      LoopRV x = rest.size() == 1 ? rest[0] : sch.Fuse(rest);
      sch.Bind(y, std::string(prefix) + ".y");
      sch.Bind(x, std::string(prefix) + ".x");
      return {y, x};
    }
    LoopRV x = loops.size() == 1 ? loops[0] : sch.Fuse(loops);
    sch.Bind(x, std::string(prefix) + ".x");
    return {x};
  };
  std::vector<LoopRV> bound_grid, bound_threads;
  if (!Try([&] { bound_grid = bind_group(grid, "blockIdx"); })) return false;
  if (!Try([&] { bound_threads = bind_group(threads, "threadIdx"); })) return false;
  int64_t tx = *ExtentOf(sch, bound_threads.back());
  int64_t ty = bound_threads.size() == 2 ? *ExtentOf(sch, bound_threads[0]) : 1;
  if (tx * ty > max_threads) return false;

  // Shared read caches: at the outer reduction loop, the thread loop or the block loop; the
  // copy spread over the threads, or left to each thread (or to one, at block level).
  for (BlockRV cache : read_caches) {
    std::vector<LoopRV> at = {bound_grid.back(), bound_threads.back()};
    if (!reduce_outer.empty()) at.push_back(reduce_outer[0]);
    LoopRV where = at[rng.UniformInt(0, static_cast<int64_t>(at.size()))];
    if (!Try([&] { sch.ComputeAt(cache, where); })) continue;
    if (Chance(rng, 75)) Try([&] { CooperativeFetch(sch, cache, where, ty, tx); });
  }
  // The local write cache under the thread loop (or left whole: then it lives in global
  // memory between two kernels).
  if (write_cache && Chance(rng, 80)) {
    if (Try([&] { sch.ReverseComputeAt(*write_cache, bound_threads.back()); }) && Chance(rng, 40)) {
      std::vector<LoopRV> wl = sch.GetLoops(*write_cache);
      std::optional<int64_t> extent = ExtentOf(sch, wl.back());
      if (extent && (*extent == 2 || *extent == 4)) Try([&] { sch.Vectorize(wl.back()); });
    }
  }
  if (!reduce_inner.empty() && Chance(rng, 30)) {
    std::optional<int64_t> extent = ExtentOf(sch, reduce_inner[0]);
    if (extent && *extent <= 16) Try([&] { sch.Unroll(reduce_inner[0]); });
  }
  if (!inner.empty() && Chance(rng, 30)) {
    std::optional<int64_t> extent = ExtentOf(sch, inner.back());
    if (extent && *extent <= 8) Try([&] { sch.Unroll(inner.back()); });
  }

  // Producers and consumers: at the block or thread level, on their own grid, or one thread.
  for (const std::string& name : w.producers) {
    BlockRV block = sch.GetBlock(name);
    int choice = static_cast<int>(rng.UniformInt(0, 4));
    if (choice == 0) Try([&] { sch.ComputeAt(block, bound_grid.back()); });
    if (choice == 1) Try([&] { sch.ComputeAt(block, bound_threads.back()); });
    if (choice == 2) Try([&] { BindAlone(sch, block, 32); });
  }
  for (const std::string& name : w.consumers) {
    BlockRV block = sch.GetBlock(name);
    int choice = static_cast<int>(rng.UniformInt(0, 3));
    if (choice == 0) Try([&] { sch.ReverseComputeAt(block, bound_threads.back()); });
    if (choice == 1) Try([&] { BindAlone(sch, block, 64); });
  }
  return true;
}

std::string Blame(const ir::PrimFunc& workload, const ir::PrimFunc& scheduled) {
  std::vector<ir::HostTensor> want = ir::RunWithRandomInputs(workload, {}, 1);
  std::vector<ir::HostTensor> got;
  try {
    got = ir::RunWithRandomInputs(scheduled, {}, 1);
  } catch (const Error& e) {
    return std::string("the interpreter cannot run the scheduled function (") + e.what() + ")";
  }
  MeasureResult check;
  CheckOutputs(want, got, check);
  if (check.ok()) {
    return "the interpreter computes the right result from the scheduled function: the "
           "difference arose in GPU lowering or code generation";
  }
  return "the scheduled function computes something else in the interpreter too (" + check.message +
         "): a schedule primitive is at fault";
}

const std::vector<Workload>& PropertyWorkloads() {
  static const std::vector<Workload> workloads = {
      {"matmul", "C", {}, {}},
      {"conv2d_stride2_pad1", "conv2d_nchw", {"pad_temp"}, {}},
      {"dense_bias_relu", "dense", {}, {"bias_add", "relu"}},
  };
  return workloads;
}

// The first `count` distinct valid schedules of `w` (the same ones on every run and for every
// device kind), counting their instructions and keeping each one's trace as Python.
std::vector<MeasureCandidate> DrawCandidates(const Workload& w, int count,
                                             std::map<std::string, int>& instruction_counts,
                                             std::vector<std::string>& scripts,
                                             int64_t max_threads = 1024) {
  ir::PrimFunc workload = ir::zoo::ZooLookup(w.zoo_name).build();
  RandomEngine rng(20261125);
  std::set<uint64_t> seen;
  std::vector<MeasureCandidate> candidates;
  for (int attempt = 0; attempt < 50 * count && static_cast<int>(candidates.size()) < count;
       ++attempt) {
    Schedule sch(workload, static_cast<uint64_t>(attempt) + 1);
    if (!DrawGpuSchedule(sch, w, rng, max_threads)) continue;
    if (!seen.insert(ir::StructuralHash(sch.func())).second) continue;
    for (const search::Instruction& inst : sch.trace().instructions()) {
      ++instruction_counts[inst.kind];
    }
    candidates.push_back({workload, sch.func()});
    scripts.push_back(sch.trace().AsPython());
  }
  return candidates;
}

class GpuRandomSchedule : public ::testing::TestWithParam<std::string> {};

// The most threads per block a device kind's schedules may draw: WebGPU's default limit on
// "webgpu", which its runner opens the device with.
int64_t MaxThreads(const std::string& kind) { return kind == "webgpu" ? 256 : 1024; }

TEST_P(GpuRandomSchedule, EveryValidThreadBindingScheduleMatchesTheInterpreter) {
  testing::ScratchDir dir;
  MeasureOptions options;
  options.target = GetParam();
  options.cache_dir = dir.Sub("cache");
  options.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
  options.timing = {.number = 1, .repeat = 1, .min_repeat_ms = 0, .warmup = 0};
  options.run_time_limit_s = 60;
  // Two runner processes build ahead at once (the device compiles on first dispatch).
  options.build_jobs = 2;
  std::unique_ptr<Measurer> measurer;
  try {
    measurer = CreateMeasurer(DeviceKindOfTarget(GetParam()), options);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kUnsupported) GTEST_SKIP() << "skipped: " << e.what();
    throw;
  }

  const int per_workload = CandidatesPerWorkload();
  std::map<std::string, int> instruction_counts;
  int total = 0;
  for (const Workload& w : PropertyWorkloads()) {
    ir::PrimFunc workload = ir::zoo::ZooLookup(w.zoo_name).build();
    std::vector<std::string> scripts;
    std::vector<MeasureCandidate> candidates =
        DrawCandidates(w, per_workload, instruction_counts, scripts, MaxThreads(GetParam()));
    ASSERT_EQ(static_cast<int>(candidates.size()), per_workload) << w.zoo_name;
    std::vector<MeasureResult> results = measurer->MeasureBatch(candidates);
    ASSERT_EQ(results.size(), candidates.size());
    for (size_t i = 0; i < candidates.size(); ++i) {
      const MeasureResult& r = results[i];
      if (!r.ok()) {
        // Again, for the source it ran.
        MeasureDetails details;
        measurer->Measure(candidates[i], &details);
        ADD_FAILURE() << w.zoo_name << " candidate " << i << ": "
                      << MeasureErrorKindName(r.error_kind) << ": " << r.message << "\n"
                      << (r.error_kind == MeasureErrorKind::kWrongResult
                              ? Blame(workload, candidates[i].scheduled)
                              : "")
                      << "\nschedule:\n"
                      << scripts[i] << "\nsource:\n"
                      << details.source.code;
      }
      ++total;
    }
  }
  EXPECT_EQ(total, 3 * per_workload);
  std::string counts;
  for (const auto& [kind, n] : instruction_counts) counts += kind + "=" + std::to_string(n) + " ";
  for (const char* kind : {"Split", "Reorder", "Bind", "Fuse", "CacheRead", "CacheWrite",
                           "ComputeAt", "ReverseComputeAt", "SamplePerfectTile"}) {
    EXPECT_GE(instruction_counts[kind], per_workload / 8) << kind << " is rarely drawn: " << counts;
  }
  std::cout << "[ property ] " << GetParam() << ": " << total
            << " thread-binding schedules; instructions: " << counts << "\n";
}

INSTANTIATE_TEST_SUITE_P(DeviceKinds, GpuRandomSchedule,
                         ::testing::Values("opencl", "vulkan", "cuda", "webgpu", "metal"),
                         [](const auto& info) { return info.param; });

// CUDA without a GPU: the same schedules (KILN_GPU_PROPERTY_CANDIDATES per workload; 70 gives
// the 210) emitted by the CUDA target and compiled by NVRTC for sm_90 in one batch. A machine
// with a CUDA device also runs them above and compares them with the interpreter.
TEST(GpuRandomScheduleCudaCompile, EveryThreadBindingScheduleCompilesForSm90) {
  std::string why;
  if (!cuda::NvrtcAvailable(&why)) GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << ")";
  const int per_workload = CandidatesPerWorkload();
  std::map<std::string, int> instruction_counts;
  std::vector<codegen::testing::NamedSource> sources;
  for (const Workload& w : PropertyWorkloads()) {
    std::vector<std::string> scripts;
    std::vector<MeasureCandidate> candidates =
        DrawCandidates(w, per_workload, instruction_counts, scripts);
    ASSERT_EQ(static_cast<int>(candidates.size()), per_workload) << w.zoo_name;
    for (size_t i = 0; i < candidates.size(); ++i) {
      codegen::CudaTarget target;
      std::string name = w.zoo_name + " candidate " + std::to_string(i);
      try {
        codegen::EmittedSource source =
            target.Emit(codegen::Lower(candidates[i].scheduled, target.DefaultLowerOptions()),
                        "kiln_k" + std::to_string(sources.size()));
        sources.push_back({name + ", schedule:\n" + scripts[i], source.code});
      } catch (const Error& e) {
        ADD_FAILURE() << name << ": " << e.what() << "\nschedule:\n" << scripts[i];
      }
    }
  }
  EXPECT_EQ(static_cast<int>(sources.size()), 3 * per_workload);
  EXPECT_EQ(codegen::testing::CompileAllForSm90(sources), "");
  std::cout << "[ property ] cuda: " << sources.size()
            << " thread-binding schedules compiled for sm_90\n";
}

}  // namespace
}  // namespace kiln::runtime
