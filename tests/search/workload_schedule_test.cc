// Realistic schedules on multi-dimensional and multi-block workloads (conv2d with strides and
// padding, dense + bias + relu, a packed and register-tiled matmul): golden text and numeric
// equivalence; then random schedules of the kind the measurement pipeline draws (split,
// reorder, fuse, parallel, vectorize, unroll, cache_write, cache_read, compute_at,
// reverse_compute_at, inlining, decompose_reduction, rfactor) on each, where every draw must
// either keep the results or be rejected with a schedule error that leaves the schedule usable.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "ir/structural.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

using testing::CheckGolden;
using testing::CompareNumerics;
using testing::MakeMatmul;
using testing::RandomFuseOfNeighbours;
using testing::RandomReorder;

ir::PrimFunc Zoo(const char* name) { return ir::zoo::ZooLookup(name).build(); }

TEST(Workload, Conv2dTiledWithWriteCache) {
  ir::PrimFunc f = Zoo("conv2d_nchw");
  Schedule sch(f);
  BlockRV conv = sch.GetBlock("conv2d_nchw");
  BlockRV out = sch.CacheWrite(conv, 0, "local");
  auto l = sch.GetLoops(conv);  // nn ff yy xx rc ry rx
  auto ff = sch.Split(l[1], {2, 4});
  auto xx = sch.Split(l[3], {std::nullopt, 4});
  sch.Reorder({ff[0], l[2], xx[0], l[4], l[5], l[6], ff[1], xx[1]});
  LoopRV outer = sch.Fuse({l[0], ff[0], l[2]});
  sch.Parallel(outer);
  sch.ReverseComputeAt(out, xx[0]);
  sch.Vectorize(xx[1]);
  sch.Unroll(ff[1]);
  sch.DecomposeReduction(conv, l[4]);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("workload_conv2d_tiled", f, sch.func()), "");
  ir::PrimFunc replayed = ReplayTrace(f, Trace::FromJSON(sch.trace().ToJSON()));
  EXPECT_TRUE(ir::StructuralEqual(replayed, sch.func()));
}

TEST(Workload, Conv2dPaddingComputedAtRows) {
  ir::PrimFunc f = Zoo("conv2d_stride2_pad1");
  Schedule sch(f);
  BlockRV conv = sch.GetBlock("conv2d_nchw");
  auto l = sch.GetLoops(conv);
  sch.ComputeAt(sch.GetBlock("pad_temp"), l[2]);  // the rows that output row yy needs
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("workload_conv2d_pad_compute_at", f, sch.func()), "");
  Schedule inl(f);
  inl.ComputeInline(inl.GetBlock("pad_temp"));
  EXPECT_EQ(CompareNumerics(f, inl.func()), "");
}

TEST(Workload, DenseBiasReluFused) {
  ir::PrimFunc f = Zoo("dense_bias_relu");
  Schedule sch(f);
  sch.ComputeInline(sch.GetBlock("bias_add"));
  BlockRV dense = sch.GetBlock("dense");
  BlockRV relu = sch.GetBlock("relu");
  auto l = sch.GetLoops(dense);
  auto i = sch.Split(l[0], {std::nullopt, 4});
  auto j = sch.Split(l[1], {std::nullopt, 8});
  sch.Reorder({i[0], j[0], l[2], i[1], j[1]});
  sch.ReverseComputeAt(relu, j[0]);
  sch.Parallel(sch.Fuse({i[0], j[0]}));
  sch.Vectorize(j[1]);
  sch.DecomposeReduction(dense, l[2]);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("workload_dense_bias_relu", f, sch.func()), "");
}

// The shape of a hand-written high-performance matmul: panel packing, a write cache in
// registers, a register tile, decomposed reduction, vectorize, unroll, parallel, fuse.
TEST(Workload, PackedRegisterTiledMatmul) {
  ir::PrimFunc f = MakeMatmul(32, 64, 16);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV acc = sch.CacheWrite(c, 0, "local");
  BlockRV pack = sch.CacheRead(c, 1, "global");
  auto l = sch.GetLoops(c);
  auto i = sch.Split(l[0], {std::nullopt, 8});
  auto j = sch.Split(l[1], {std::nullopt, 16});
  sch.Reorder({j[0], i[0], l[2], i[1], j[1]});
  sch.ComputeAt(pack, j[0]);
  sch.ReverseComputeAt(acc, i[0]);
  sch.DecomposeReduction(c, l[2]);
  sch.Vectorize(j[1]);
  sch.Unroll(i[1]);
  sch.Parallel(j[0]);
  // The packing copy: its two loops fused, the inner part vectorized.
  auto p = sch.GetLoops(pack);
  auto copy = sch.Split(sch.Fuse({p[1], p[2]}), {std::nullopt, 16});
  sch.Vectorize(copy[1]);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("workload_matmul_packed", f, sch.func()), "");
  ir::PrimFunc replayed = ReplayTrace(f, Trace::FromJSON(sch.trace().ToJSON()));
  EXPECT_TRUE(ir::StructuralEqual(replayed, sch.func()));
}

// ---- random schedules --------------------------------------------------------------------

template <typename T>
const T& Pick(RandomEngine& rng, const std::vector<T>& v) {
  return v[rng.UniformInt(0, static_cast<int64_t>(v.size()))];
}

// One random primitive call on a random block of `sch`.
void RandomStep(Schedule& sch, RandomEngine& rng) {
  std::vector<BlockRV> blocks = sch.GetChildBlocks(sch.GetBlock("root"));
  if (blocks.empty()) return;
  BlockRV block = Pick(rng, blocks);
  std::vector<LoopRV> loops = sch.GetLoops(block);
  auto any_loop = [&]() -> std::optional<LoopRV> {
    if (loops.empty()) return std::nullopt;
    return Pick(rng, loops);
  };
  switch (rng.UniformInt(0, 14)) {
    case 0:
    case 1:
      if (auto loop = any_loop()) {
        auto f = sch.SamplePerfectTile(*loop, static_cast<int>(rng.UniformInt(2, 4)), 16);
        std::vector<Factor> factors(f.begin(), f.end());
        sch.Split(*loop, factors);
      }
      break;
    case 2:
      if (auto loop = any_loop()) sch.Split(*loop, {std::nullopt, rng.UniformInt(2, 6)});
      break;
    case 3:
      RandomReorder(sch, loops, rng);
      break;
    case 4:
      RandomFuseOfNeighbours(sch, loops, rng);
      break;
    case 5:
      if (auto loop = any_loop()) sch.Parallel(*loop);
      break;
    case 6:
      if (auto loop = any_loop()) sch.Vectorize(*loop);
      break;
    case 7:
      if (auto loop = any_loop()) sch.Unroll(*loop);
      break;
    case 8:
      sch.CacheWrite(block, 0, "local");
      break;
    case 9: {
      LoopRV at = sch.SampleComputeLocation(block);
      sch.ComputeAt(block, at, rng.UniformInt(0, 2) == 1);
      break;
    }
    case 10: {
      std::vector<BlockRV> producers = sch.GetProducers(block);
      if (producers.empty() || loops.empty()) break;
      BlockRV consumer = block;
      std::vector<BlockRV> later = sch.GetConsumers(Pick(rng, producers));
      if (!later.empty()) consumer = Pick(rng, later);
      std::vector<LoopRV> targets = sch.GetLoops(Pick(rng, producers));
      if (!targets.empty()) sch.ReverseComputeAt(consumer, Pick(rng, targets));
      break;
    }
    case 11:
      if (rng.UniformInt(0, 2)) {
        sch.ComputeInline(block);
      } else {
        sch.ReverseComputeInline(block);
      }
      break;
    case 12:
      if (auto loop = any_loop()) {
        if (rng.UniformInt(0, 2)) {
          sch.DecomposeReduction(block, *loop);
        } else {
          sch.RFactor(*loop, static_cast<int>(rng.UniformInt(0, 2)));
        }
      }
      break;
    default:
      sch.CacheRead(block, static_cast<int>(rng.UniformInt(0, 2)), "global");
  }
}

// For a failure report: the first instruction of `trace` after which `f` computes something
// else, with the function before and after it.
std::string Diagnose(const ir::PrimFunc& f, const Trace& trace) {
  ir::PrimFunc previous = f;
  for (size_t n = 1; n <= trace.size(); ++n) {
    ir::PrimFunc current = ReplayTrace(f, trace.Prefix(n));
    std::string diff = CompareNumerics(f, current);
    if (!diff.empty()) {
      return "instruction " + std::to_string(n - 1) + " (" + trace.instructions()[n - 1].kind +
             ") breaks the results: " + diff + "\nbefore:\n" + ir::PrintPrimFunc(previous) +
             "after:\n" + ir::PrintPrimFunc(current);
    }
    previous = current;
  }
  return "no prefix of the trace breaks the results";
}

// KILN_SCHEDULE_STRESS=N runs N times as many trials, each with other seeds.
int StressFactor() {
  const char* v = std::getenv("KILN_SCHEDULE_STRESS");
  return v ? std::max(1, std::atoi(v)) : 1;
}

void RandomSchedules(const ir::PrimFunc& f, uint64_t seed, int trials, int steps) {
  trials *= StressFactor();
  if (StressFactor() > 1) seed += 7919 * StressFactor();
  RandomEngine rng(seed);
  int kept = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Schedule sch(f, seed * 1000 + trial);
    for (int step = 0; step < steps; ++step) {
      size_t before = sch.trace().size();
      ir::PrimFunc before_func = sch.func();
      try {
        RandomStep(sch, rng);
        ++kept;
      } catch (const Error& e) {
        ASSERT_EQ(e.kind(), ErrorKind::kSchedule) << e.what() << "\n" << sch.trace().AsPython();
        // A rejected call changes nothing but the sampling calls recorded before it.
        ASSERT_TRUE(ir::StructuralEqual(before_func, sch.func())) << e.what();
        ASSERT_GE(sch.trace().size(), before);
      }
    }
    ASSERT_EQ(CompareNumerics(f, sch.func(), trial), "") << Diagnose(f, sch.trace());
    Trace trace = Trace::FromJSON(nlohmann::json::parse(sch.trace().ToJSON().dump()));
    ir::PrimFunc replayed = ReplayTrace(f, trace);
    ASSERT_TRUE(ir::StructuralEqual(replayed, sch.func())) << sch.trace().AsPython();
  }
  EXPECT_GT(kept, trials * steps / 4);  // the draws are not all rejected
}

TEST(RandomWorkloadSchedule, Matmul) { RandomSchedules(MakeMatmul(24, 16, 12), 1, 60, 8); }

TEST(RandomWorkloadSchedule, Conv2d) { RandomSchedules(Zoo("conv2d_nchw"), 2, 40, 8); }

TEST(RandomWorkloadSchedule, Conv2dStridedPadded) {
  RandomSchedules(Zoo("conv2d_stride2_pad1"), 3, 40, 8);
}

TEST(RandomWorkloadSchedule, DenseBiasRelu) { RandomSchedules(Zoo("dense_bias_relu"), 4, 60, 8); }

}  // namespace
}  // namespace kiln::search
