// Traces: JSON round trip, validation errors naming the instruction and field, replay with
// the same and with changed decisions, decisions that no longer fit, and the Python script.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "search/schedule/schedule.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"

namespace kiln::search {
namespace {

using nlohmann::json;
using testing::CompareNumerics;
using testing::ExpectError;
using testing::MakeMatmul;

// A tiled matmul schedule with sampled tile sizes.
Schedule TiledMatmul(uint64_t seed) {
  Schedule sch(MakeMatmul(64, 64, 32), seed);
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  auto ti = sch.SamplePerfectTile(loops[0], 2, 16);
  auto tj = sch.SamplePerfectTile(loops[1], 2, 16);
  auto i = sch.Split(loops[0], {ti[0], ti[1]});
  auto j = sch.Split(loops[1], {tj[0], tj[1]});
  sch.Reorder({i[0], j[0], loops[2], i[1], j[1]});
  LoopRV outer = sch.Fuse({i[0], j[0]});
  sch.Parallel(outer);
  sch.Vectorize(j[1]);
  ExprRV unroll = sch.SampleCategorical({0, 16, 64}, {0.3, 0.3, 0.4});
  sch.Annotate(c, "meta_schedule.unroll_explicit", unroll);
  return sch;
}

TEST(Trace, JsonShape) {
  Schedule sch(MakeMatmul(16, 16, 16));
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  auto t = sch.SamplePerfectTile(loops[0], 2, 64, std::vector<int64_t>{4, 4});
  sch.Split(loops[0], {t[0], t[1]});
  json expected = json::parse(R"([
    [["GetSBlock", [], ["C", "main"], ["b0"]],
     ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
     ["SamplePerfectTile", ["l1"], [2, 64], ["v4", "v5"]],
     ["Split", ["l1", "v4", "v5"], [1, 0], ["l6", "l7"]]],
    [[2, [4, 4]]]])");
  EXPECT_EQ(sch.trace().ToJSON(), expected);
}

TEST(Trace, JsonRoundTripAndReplay) {
  Schedule sch = TiledMatmul(5);
  json j = sch.trace().ToJSON();
  Trace parsed = Trace::FromJSON(json::parse(j.dump()));
  EXPECT_EQ(parsed.ToJSON(), j);
  ir::PrimFunc replayed = ReplayTrace(MakeMatmul(64, 64, 32), parsed, 999);
  EXPECT_TRUE(ir::StructuralEqual(replayed, sch.func()));
  EXPECT_EQ(CompareNumerics(MakeMatmul(64, 64, 32), replayed), "");
}

TEST(Trace, ReplayWithChangedDecision) {
  Schedule sch = TiledMatmul(5);
  const Trace& trace = sch.trace();
  ASSERT_EQ(trace.instructions()[2].kind, "SamplePerfectTile");
  Trace changed = trace.WithDecision(2, json({8, 8})).WithDecision(3, json({64, 1}));
  Schedule replay(MakeMatmul(64, 64, 32));
  changed.ApplyTo(replay);
  auto loops = replay.GetLoops(replay.GetBlock("C"));
  // fused (i_0, j_0) of extent 8 * 64, k, i_1 of 8, j_1 of 1
  ASSERT_EQ(loops.size(), 4u);
  EXPECT_EQ(ir::AsConstInt(replay.Get(loops[0])->extent), 512);
  EXPECT_EQ(ir::AsConstInt(replay.Get(loops[2])->extent), 8);
  EXPECT_EQ(ir::AsConstInt(replay.Get(loops[3])->extent), 1);
  EXPECT_FALSE(ir::StructuralEqual(replay.func(), sch.func()));
  EXPECT_EQ(CompareNumerics(MakeMatmul(64, 64, 32), replay.func()), "");
}

TEST(Trace, InvalidDecisionIsAScheduleError) {
  Schedule sch = TiledMatmul(5);
  Trace bad = sch.trace().WithDecision(2, json({3, 7}));
  Schedule replay(MakeMatmul(64, 64, 32));
  ExpectError([&] { bad.ApplyTo(replay); }, ErrorKind::kSchedule,
              "trace instruction 2 (SamplePerfectTile): sample_perfect_tile: decision [3,7]");
  Trace bad_cat = sch.trace().WithDecision(sch.trace().size() - 2, json(7));
  Schedule replay2(MakeMatmul(64, 64, 32));
  ExpectError([&] { bad_cat.ApplyTo(replay2); }, ErrorKind::kSchedule, "(SampleCategorical)");
  // The trace no longer fits another workload.
  Schedule other(MakeMatmul(60, 64, 32));
  ExpectError([&] { sch.trace().ApplyTo(other); }, ErrorKind::kSchedule, "not the extent 60");
  ExpectError([&] { (void)sch.trace().WithDecision(0, json(1)); }, ErrorKind::kSchedule,
              "not a sampling instruction");
}

TEST(Trace, FromJsonValidation) {
  auto parse_error = [](const std::string& text, const std::string& phrase) {
    ExpectError([&] { Trace::FromJSON(json::parse(text)); }, ErrorKind::kParse, phrase);
  };
  parse_error(R"([[]])", "expected [instructions, decisions]");
  parse_error(R"([[["Splat", [], [], []]], []])", "instruction 0: unknown instruction kind");
  parse_error(R"([[["GetLoops", ["b0"], [], ["l1"]]], []])",
              "instruction 0: (GetLoops) input 0: random variable b0 is used before it is defined");
  parse_error(R"([[["GetBlock", [], ["C"], ["b0"]]], []])",
              "instruction 0: (GetSBlock) expected 2 attrs, got 1");
  parse_error(R"([[["GetBlock", [], ["C", "main"], ["l0"]]], []])",
              "output 0: l0 should name a block");
  parse_error(R"([[["GetBlock", [], ["C", "main"], ["b0"]], ["Parallel", ["b0"], [], []]], []])",
              "instruction 1: (Parallel) input 0: \"b0\" is not what the input takes");
  parse_error(R"([[["GetBlock", [], ["C", "main"], ["b0"]]], [[0, 1]]])",
              "(GetSBlock) has a decision but is not a sampling instruction");
  parse_error(R"([[["GetBlock", [], ["C", "main"], ["b0"]], ["GetLoops", ["b0"], [], ["l1"]],
                  ["SamplePerfectTile", ["l1"], [2, 64], ["v2", "v3"]]], [[2, 4]]])",
              "instruction 2: (SamplePerfectTile) decision 4 should be a list of integers");
  parse_error(R"([[["GetBlock", [], ["C", "main"], ["b0"]]], [[5, 1]]])",
              "instruction index 5 is out of range");
  parse_error(R"([[["GetBlock", [], [1, "main"], ["b0"]]], []])", "attr 0 has the wrong type");
}

TEST(Trace, AsPython) {
  Schedule sch(MakeMatmul(128, 16, 16));
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  auto t = sch.SamplePerfectTile(loops[0], 2, 64, std::vector<int64_t>{4, 32});
  auto parts = sch.Split(loops[0], {t[0], t[1]});
  sch.Split(loops[1], {std::nullopt, 4});
  sch.Reorder({parts[1], parts[0]});
  sch.Parallel(parts[1]);
  sch.Annotate(c, "key", std::string("value"));
  sch.Bind(loops[2], "threadIdx.x");
  std::vector<LoopRV> one = sch.GetLoops(c);
  (void)one;
  EXPECT_EQ(sch.trace().AsPython(),
            "b0 = sch.get_block(\"C\")\n"
            "l1, l2, l3 = sch.get_loops(b0)\n"
            "v4, v5 = sch.sample_perfect_tile(l1, n=2, max_innermost_factor=64, decision=[4, 32])\n"
            "l6, l7 = sch.split(l1, factors=[v4, v5], preserve_unit_iters=True)\n"
            "l8, l9 = sch.split(l2, factors=[None, 4], preserve_unit_iters=True)\n"
            "sch.reorder(l7, l6)\n"
            "sch.parallel(l7)\n"
            "sch.annotate(b0, ann_key=\"key\", ann_val=\"value\")\n"
            "sch.bind(l3, \"threadIdx.x\")\n"
            "l10, l11, l12, l13, l14 = sch.get_loops(b0)\n");
}

}  // namespace
}  // namespace kiln::search
