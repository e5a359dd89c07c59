// Replay robustness: traces of realistic schedules (multi-level tiling of matmul and conv2d
// with sampled tiles, write caches, packing at a sampled compute location, parallel,
// vectorize, unroll annotations) replayed with randomly perturbed decisions and with
// instructions dropped; and Trace::FromJSON on mutated JSON. Every outcome must be a valid
// function that matches the interpreter or a kiln::Error of the expected kind (kSchedule for
// replay, naming the instruction; kParse for JSON): never a crash or another kind.
#include <gtest/gtest.h>

#include "search/schedule/schedule.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

using nlohmann::json;
using testing::CompareNumerics;
using testing::MakeMatmul;

// MetaSchedule's CPU multi-level tiling ("SSRSRS") of a matmul, with a write cache computed
// at a tile, a packed copy of B at a sampled location, a parallel outer loop, a vectorized
// inner loop and a sampled unroll depth.
Trace TiledMatmulTrace(const ir::PrimFunc& f, uint64_t seed) {
  Schedule sch(f, seed);
  BlockRV c = sch.GetBlock("C");
  BlockRV acc = sch.CacheWrite(c, 0, "local");
  BlockRV pack = sch.CacheRead(c, 1, "global");
  auto l = sch.GetLoops(c);
  auto ti = sch.SamplePerfectTile(l[0], 4, 8);
  auto tj = sch.SamplePerfectTile(l[1], 4, 8);
  auto tk = sch.SamplePerfectTile(l[2], 2, 8);
  auto i = sch.Split(l[0], {ti[0], ti[1], ti[2], ti[3]});
  auto j = sch.Split(l[1], {tj[0], tj[1], tj[2], tj[3]});
  auto k = sch.Split(l[2], {tk[0], tk[1]});
  sch.Reorder({i[0], j[0], i[1], j[1], k[0], i[2], j[2], k[1], i[3], j[3]});
  sch.ReverseComputeAt(acc, j[1]);
  LoopRV at = sch.SampleComputeLocation(pack);
  sch.ComputeAt(pack, at);
  sch.Parallel(sch.Fuse({i[0], j[0]}));
  sch.Vectorize(j[3]);
  ExprRV unroll = sch.SampleCategorical({0, 16, 64, 512}, {0.25, 0.25, 0.25, 0.25});
  sch.Annotate(c, "pragma_auto_unroll_max_step", unroll);
  sch.DecomposeReduction(c, k[0]);
  return sch.trace();
}

// Tiling of a conv2d's output channels and columns with a write cache.
Trace TiledConvTrace(const ir::PrimFunc& f, uint64_t seed) {
  Schedule sch(f, seed);
  BlockRV conv = sch.GetBlock("conv2d_nchw");
  BlockRV out = sch.CacheWrite(conv, 0, "local");
  auto l = sch.GetLoops(conv);
  auto tf = sch.SamplePerfectTile(l[1], 2, 4);
  auto tx = sch.SamplePerfectTile(l[3], 2, 8);
  auto ff = sch.Split(l[1], {tf[0], tf[1]});
  auto xx = sch.Split(l[3], {tx[0], tx[1]});
  sch.Reorder({ff[0], l[2], xx[0], l[4], l[5], l[6], ff[1], xx[1]});
  sch.ReverseComputeAt(out, xx[0]);
  sch.Parallel(sch.Fuse({l[0], ff[0], l[2]}));
  sch.Vectorize(xx[1]);
  ExprRV unroll = sch.SampleCategorical({0, 16, 64}, {0.3, 0.3, 0.4});
  sch.Annotate(conv, "pragma_auto_unroll_max_step", unroll);
  return sch.trace();
}

// A random decision for sampling instruction `inst`: sometimes valid, often not.
json RandomDecision(const Instruction& inst, const json& current, RandomEngine& rng) {
  if (inst.kind == "SamplePerfectTile") {
    size_t n = current.size();
    if (rng.UniformInt(0, 4) == 0) n = static_cast<size_t>(rng.UniformInt(0, 6));
    int64_t product = 1;
    for (const json& v : current) product *= v.get<int64_t>();
    if (rng.UniformInt(0, 2) == 0 && n >= 1) {
      auto all = PerfectTilings(product, static_cast<int>(n), 0);
      if (!all.empty()) return all[rng.UniformInt(0, static_cast<int64_t>(all.size()))];
    }
    json d = json::array();
    for (size_t i = 0; i < n; ++i) d.push_back(rng.UniformInt(-2, product + 3));
    return d;
  }
  if (inst.kind == "SampleCategorical") return rng.UniformInt(-2, 7);
  return rng.UniformInt(-3, 12);  // SampleComputeLocation
}

// Replays `trace` on `f`: the result must match the interpreter, or the replay must fail with
// a schedule error that names the instruction.
void ExpectValidOrScheduleError(const ir::PrimFunc& f, const Trace& trace, int* valid,
                                int* rejected) {
  Schedule sch(f, 5);
  try {
    trace.ApplyTo(sch);
  } catch (const Error& e) {
    ASSERT_EQ(e.kind(), ErrorKind::kSchedule) << e.what() << "\n" << trace.AsPython();
    ASSERT_EQ(std::string(e.what()).rfind("trace instruction ", 0), 0u) << e.what();
    ++*rejected;
    return;
  }
  ASSERT_EQ(CompareNumerics(f, sch.func()), "") << trace.AsPython();
  ++*valid;
}

Trace Without(const Trace& trace, size_t drop) {
  Trace out;
  for (size_t i = 0; i < trace.size(); ++i) {
    if (i != drop) out.Append(trace.instructions()[i], trace.GetDecision(i));
  }
  return out;
}

void PerturbAndDrop(const ir::PrimFunc& f, const Trace& base, uint64_t seed, int trials) {
  RandomEngine rng(seed);
  int valid = 0, rejected = 0;
  for (int trial = 0; trial < trials; ++trial) {
    Trace t = base;
    for (const auto& [index, decision] : base.decisions()) {
      if (rng.UniformInt(0, 2) == 0) continue;
      t = t.WithDecision(index, RandomDecision(base.instructions()[index], decision, rng));
    }
    ExpectValidOrScheduleError(f, t, &valid, &rejected);
    // The JSON form replays the same way.
    ExpectValidOrScheduleError(f, Trace::FromJSON(json::parse(t.ToJSON().dump())), &valid,
                               &rejected);
  }
  for (int d = 0; d < trials; ++d) {
    // Spread over the whole trace (every instruction when there are enough trials).
    size_t drop = static_cast<size_t>(d) * base.size() / static_cast<size_t>(trials);
    Trace dropped = Without(base, drop);
    ExpectValidOrScheduleError(f, dropped, &valid, &rejected);
    ExpectValidOrScheduleError(f, Without(dropped, rng.UniformInt(0, base.size() - 1)), &valid,
                               &rejected);
  }
  EXPECT_GT(valid, 5);
  EXPECT_GT(rejected, 5);
}

TEST(ReplayRobustness, TiledMatmulWithPerturbedAndDroppedInstructions) {
  ir::PrimFunc f = MakeMatmul(16, 24, 8);
  PerturbAndDrop(f, TiledMatmulTrace(f, 3), 11, 40);
}

TEST(ReplayRobustness, TiledConvWithPerturbedAndDroppedInstructions) {
  ir::PrimFunc f = ir::zoo::ZooLookup("conv2d_nchw").build();
  PerturbAndDrop(f, TiledConvTrace(f, 4), 12, 8);
}

TEST(ReplayRobustness, TraceOnAnotherWorkloadIsAScheduleError) {
  Trace trace = TiledMatmulTrace(MakeMatmul(16, 24, 8), 3);
  int valid = 0, rejected = 0;
  ExpectValidOrScheduleError(MakeMatmul(15, 24, 8), trace, &valid, &rejected);
  ExpectValidOrScheduleError(ir::zoo::ZooLookup("conv2d_nchw").build(), trace, &valid, &rejected);
  EXPECT_EQ(rejected, 2);
}

// A random JSON value of a few kinds.
json RandomValue(RandomEngine& rng) {
  switch (rng.UniformInt(0, 9)) {
    case 0:
      return nullptr;
    case 1:
      return rng.UniformInt(-5, 100);
    case 2:
      return int64_t{1} << 62;
    case 3:
      return 2.5;
    case 4:
      return "b" + std::to_string(rng.UniformInt(0, 40));
    case 5:
      return "\"quoted\"";
    case 6:
      return json::array({rng.UniformInt(0, 5), "l1"});
    case 7:
      return json::object({{"x", 1}});
    default:
      return true;
  }
}

// Changes a random leaf of `j` to another value of its type: integers to other (often
// small) integers, random variable names to other names of the same kind, bools flipped.
// The result usually still parses, so its replay is exercised.
void MutateLeaf(json& j, RandomEngine& rng) {
  if (j.is_array() && !j.empty()) {
    MutateLeaf(j[rng.UniformInt(0, static_cast<int64_t>(j.size()))], rng);
  } else if (j.is_number_integer()) {
    j = rng.UniformInt(0, 3) == 0 ? j.get<int64_t>() * 1000003 : rng.UniformInt(-3, 70);
  } else if (j.is_boolean()) {
    j = !j.get<bool>();
  } else if (j.is_string()) {
    std::string s = j.get<std::string>();
    if (!s.empty() && (s[0] == 'b' || s[0] == 'l' || s[0] == 'v')) {
      j = s.substr(0, 1) + std::to_string(rng.UniformInt(0, 60));
    } else {
      j = s + "x";
    }
  }
}

// Replaces, deletes or duplicates a random node of `j` (in place).
void Mutate(json& j, RandomEngine& rng, int depth = 0) {
  if (!j.is_array() || j.empty() || depth > 5) {
    j = RandomValue(rng);
    return;
  }
  if (depth == 0 && rng.UniformInt(0, 2) == 0) {
    MutateLeaf(j, rng);
    return;
  }
  size_t i = rng.UniformInt(0, static_cast<int64_t>(j.size()));
  switch (rng.UniformInt(0, 6)) {
    case 0:
      j.erase(i);
      return;
    case 1:
      j.insert(j.begin() + static_cast<std::ptrdiff_t>(i), j[i]);
      return;
    case 2:
      j[i] = RandomValue(rng);
      return;
    default:
      Mutate(j[i], rng, depth + 1);
  }
}

TEST(ReplayRobustness, MalformedJsonIsAParseErrorAndValidOnesReplay) {
  ir::PrimFunc f = MakeMatmul(16, 24, 8);
  json base = TiledMatmulTrace(f, 3).ToJSON();
  RandomEngine rng(99);
  int parsed = 0, rejected = 0, valid = 0, replay_rejected = 0;
  for (int trial = 0; trial < 300; ++trial) {
    json j = base;
    int mutations = static_cast<int>(rng.UniformInt(1, 4));
    for (int m = 0; m < mutations; ++m) Mutate(j, rng);
    Trace trace;
    try {
      trace = Trace::FromJSON(j);
    } catch (const Error& e) {
      ASSERT_EQ(e.kind(), ErrorKind::kParse) << e.what() << "\n" << j.dump();
      ASSERT_EQ(std::string(e.what()).rfind("trace JSON: ", 0), 0u) << e.what();
      ++rejected;
      continue;
    }
    ++parsed;
    ExpectValidOrScheduleError(f, trace, &valid, &replay_rejected);
  }
  EXPECT_GT(rejected, 100);
  EXPECT_GT(parsed, 30);
  // Texts that are not a trace at all.
  for (const char* text : {"null", "{}", "[]", "[[], {}]", "[[[]], []]", "[[[1, 2, 3, 4]], []]",
                           "[[[\"GetBlock\", [], [\"C\", \"main\"], [\"b0\"]]], [[0]]]"}) {
    EXPECT_THROW(Trace::FromJSON(json::parse(text)), Error) << text;
  }
}

}  // namespace
}  // namespace kiln::search
