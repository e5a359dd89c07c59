// Random sequences of loop primitives on matmul: whatever sequence of valid split, reorder,
// fuse, parallel, vectorize and unroll calls is drawn, the result computes what the original
// does, and its trace replays to a structurally equal function.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "search/schedule/schedule.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

using testing::CompareNumerics;
using testing::MakeMatmul;
using testing::RandomFuseOfNeighbours;
using testing::RandomReorder;

// One random primitive call on block C; true when it was kept. A rejected call must be a
// schedule error that leaves the function and the trace as they were.
bool RandomStep(Schedule& sch, RandomEngine& rng) {
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  LoopRV loop = loops[rng.UniformInt(0, static_cast<int64_t>(loops.size()))];
  const ir::PrimFunc before = sch.func();
  size_t trace_before = sch.trace().size();
  int draw = static_cast<int>(rng.UniformInt(0, 6));
  try {
    switch (draw) {
      case 0: {
        auto f = sch.SamplePerfectTile(loop, 2, 0);
        // The sampling instruction stays in the trace even when the split is rejected.
        trace_before = sch.trace().size();
        sch.Split(loop, {f[0], f[1]});
        break;
      }
      case 1:
        sch.Split(loop, {std::nullopt, rng.UniformInt(2, 5)});
        break;
      case 2:
        RandomReorder(sch, loops, rng);
        break;
      case 3:
        RandomFuseOfNeighbours(sch, loops, rng);
        break;
      case 4:
        sch.Parallel(loop);
        break;
      default:
        if (rng.UniformInt(0, 2)) {
          sch.Vectorize(loop);
        } else {
          sch.Unroll(loop);
        }
    }
  } catch (const Error& e) {
    // Invalid draws are expected (fusing a parallel loop, vectorizing a reduction): they
    // must be schedule errors and leave the schedule as it was.
    EXPECT_EQ(e.kind(), ErrorKind::kSchedule) << e.what();
    EXPECT_TRUE(sch.func().same_as(before))
        << "draw " << draw << " changed the function: " << e.what();
    EXPECT_EQ(sch.trace().size(), trace_before) << "draw " << draw << " was recorded: " << e.what();
    return false;
  }
  return true;
}

TEST(RandomSchedule, LoopPrimitivesKeepResults) {
  ir::PrimFunc f = MakeMatmul(12, 8, 6);
  RandomEngine rng(2024);
  int kept = 0, rejected = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Schedule sch(f, trial);
    for (int step = 0; step < 6; ++step) (RandomStep(sch, rng) ? kept : rejected) += 1;
    ASSERT_EQ(CompareNumerics(f, sch.func(), trial), "") << sch.trace().AsPython();
    ir::PrimFunc replayed = ReplayTrace(f, Trace::FromJSON(sch.trace().ToJSON()));
    ASSERT_TRUE(ir::StructuralEqual(replayed, sch.func())) << sch.trace().AsPython();
  }
  // The test means something only when most draws are real transformations and some are
  // rejected ones.
  EXPECT_GE(kept, 120) << kept << " kept, " << rejected << " rejected";
  EXPECT_GE(rejected, 10) << kept << " kept, " << rejected << " rejected";
}

}  // namespace
}  // namespace kiln::search
