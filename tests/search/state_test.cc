// Schedule state and the get primitives: lookups by name, loops of a block, child blocks,
// producers and consumers, and handles that go stale when their loop disappears.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "search/schedule/schedule.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using testing::CheckGolden;
using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmul;
using testing::MakeMatmulRelu;
using testing::MakeTwoStage;

TEST(ScheduleState, GetBlockAndLoops) {
  Schedule sch(MakeMatmul(16, 16, 16));
  BlockRV c = sch.GetBlock("C");
  EXPECT_EQ(sch.Get(c)->name, "C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  ASSERT_EQ(loops.size(), 3u);
  EXPECT_EQ(sch.Get(loops[0])->loop_var.name(), "i");
  EXPECT_EQ(sch.Get(loops[2])->loop_var.name(), "k");
  EXPECT_EQ(sch.trace().size(), 2u);
}

TEST(ScheduleState, GetBlockUnknownNameIsRejected) {
  Schedule sch(MakeMatmul(16, 16, 16));
  try {
    sch.GetBlock("D");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kSchedule);
    EXPECT_NE(std::string(e.what()).find("no block named \"D\""), std::string::npos);
  }
  EXPECT_EQ(sch.trace().size(), 0u);  // a failed call records nothing
}

TEST(ScheduleState, ChildBlocksProducersConsumers) {
  Schedule sch(MakeMatmulRelu(8, 8, 8));
  BlockRV root = sch.GetBlock("root");
  std::vector<BlockRV> children = sch.GetChildBlocks(root);
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(sch.Get(children[0])->name, "C");
  EXPECT_EQ(sch.Get(children[1])->name, "D");
  std::vector<BlockRV> producers = sch.GetProducers(children[1]);
  ASSERT_EQ(producers.size(), 1u);
  EXPECT_EQ(sch.Get(producers[0])->name, "C");
  std::vector<BlockRV> consumers = sch.GetConsumers(children[0]);
  ASSERT_EQ(consumers.size(), 1u);
  EXPECT_EQ(sch.Get(consumers[0])->name, "D");
  EXPECT_TRUE(sch.GetProducers(children[0]).empty());
  std::vector<LoopRV> loops = sch.GetLoops(children[1]);
  std::vector<BlockRV> under = sch.GetChildBlocks(loops[0]);
  ASSERT_EQ(under.size(), 1u);
  EXPECT_EQ(sch.Get(under[0])->name, "D");
}

TEST(ScheduleState, StaleLoopHandleIsRejected) {
  Schedule sch(MakeMatmul(16, 16, 16));
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Split(loops[0], {std::nullopt, 4});
  try {
    sch.Get(loops[0]);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kSchedule);
    EXPECT_NE(std::string(e.what()).find("no longer exists"), std::string::npos);
  }
  // Handles to untouched loops stay valid.
  EXPECT_EQ(sch.Get(loops[1])->loop_var.name(), "j");
}

TEST(ScheduleState, SharedLoopsAndBlocksAreRejected) {
  ir::PrimFunc f = MakeTwoStage(4, 4);
  // The same stage twice: its loop and its block would each appear twice.
  auto root = f->body.as<ir::BlockRealizeNode>()->block_node();
  const auto* seq = root->body.as<ir::SeqStmtNode>();
  ASSERT_NE(seq, nullptr);
  auto new_root = std::make_shared<ir::BlockNode>(*root);
  new_root->body = ir::SeqStmt({seq->seq[0], seq->seq[0]});
  try {
    ScheduleState state(f.WithBody(ir::BlockRealize({}, ir::BoolImm(true), ir::Block(new_root))));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
  }
}

TEST(ScheduleState, SameSeedSameSamples) {
  Schedule a(MakeMatmul(64, 64, 64), 42), b(MakeMatmul(64, 64, 64), 42);
  for (int i = 0; i < 5; ++i) {
    auto la = a.GetLoops(a.GetBlock("C"));
    auto lb = b.GetLoops(b.GetBlock("C"));
    auto fa = a.SamplePerfectTile(la[0], 3, 16);
    auto fb = b.SamplePerfectTile(lb[0], 3, 16);
    for (size_t k = 0; k < 3; ++k) EXPECT_EQ(a.Get(fa[k]), b.Get(fb[k]));
  }
}

TEST(ScheduleState, GetPrimitivesLeaveTheFunctionAlone) {
  ir::PrimFunc f = MakeMatmulRelu(8, 8, 8);
  Schedule sch(f);
  BlockRV d = sch.GetBlock("D");
  sch.GetLoops(d);
  sch.GetChildBlocks(sch.GetBlock("root"));
  sch.GetChildBlocks(sch.GetLoops(d)[0]);
  sch.GetProducers(d);
  sch.GetConsumers(sch.GetBlock("C"));
  EXPECT_TRUE(sch.func().same_as(f));
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("get", f, sch.func()), "");
}

TEST(ScheduleState, StaleAndForeignHandlesAreRejected) {
  Schedule sch(MakeTwoStage(4, 4));
  BlockRV b = sch.GetBlock("B");
  std::vector<LoopRV> b_loops = sch.GetLoops(b);
  sch.ComputeInline(b);
  ExpectError([&] { sch.GetLoops(b); }, ErrorKind::kSchedule,
              "block \"B\" (b0) no longer exists in the function");
  ExpectError([&] { sch.Parallel(b_loops[0]); }, ErrorKind::kSchedule,
              "loop i (l1) no longer exists in the function");
  ExpectError([&] { sch.GetProducers(BlockRV{99}); }, ErrorKind::kSchedule,
              "b99 is not a block of this schedule");
  ExpectError(
      [&] {
        sch.Split(LoopRV{98}, {2, 2});
      },
      ErrorKind::kSchedule, "l98 is not a loop of this schedule");
  ExpectError(
      [&] {
        sch.Split(sch.GetLoops(sch.GetBlock("C"))[0], {ExprRV{97}, 2});
      },
      ErrorKind::kSchedule, "v97 is not a sampled value of this schedule");
  LoopRV root = sch.SampleComputeLocation(sch.GetBlock("C"), -1);
  ExpectError([&] { sch.Vectorize(root); }, ErrorKind::kSchedule,
              "is the root location, not a loop");
}

}  // namespace
}  // namespace kiln::search
