// The stored trace corpus (tests/search/testdata/traces/): traces of realistic schedules of a
// small matmul + relu, the seed corpus of fuzz/trace_fuzzer.cc. Each file must still parse,
// replay to a function that matches the interpreter, and equal the trace that the schedule
// below records (KILN_UPDATE_GOLDEN=1 rewrites the files). The workload text is the fuzzer's.
#include <gtest/gtest.h>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "search/schedule/schedule.h"
#include "tests/search/golden.h"
#include "tests/search/test_funcs.h"
#include "tests/testing/golden.h"

namespace kiln::search {
namespace {

using nlohmann::json;
using testing::CompareNumerics;
using testing::ReadTestData;

Trace Tiled(const ir::PrimFunc& f) {
  Schedule sch(f, 1);
  BlockRV c = sch.GetBlock("C");
  BlockRV d = sch.GetBlock("D");
  auto l = sch.GetLoops(c);
  auto ti = sch.SamplePerfectTile(l[0], 3, 4);
  auto tj = sch.SamplePerfectTile(l[1], 2, 4);
  auto i = sch.Split(l[0], {ti[0], ti[1], ti[2]});
  auto j = sch.Split(l[1], {tj[0], tj[1]});
  sch.Reorder({i[0], j[0], i[1], l[2], i[2], j[1]});
  sch.ReverseComputeAt(d, j[0]);
  sch.Parallel(sch.Fuse({i[0], j[0]}));
  sch.Vectorize(j[1]);
  ExprRV unroll = sch.SampleCategorical({0, 16, 64}, {0.3, 0.3, 0.4});
  sch.Annotate(c, "pragma_auto_unroll_max_step", unroll);
  sch.DecomposeReduction(c, l[2]);
  return sch.trace();
}

Trace CachedAtSampledLocation(const ir::PrimFunc& f) {
  Schedule sch(f, 2);
  BlockRV c = sch.GetBlock("C");
  BlockRV acc = sch.CacheWrite(c, 0, "local");
  auto l = sch.GetLoops(c);
  auto ti = sch.SamplePerfectTile(l[0], 2, 8);
  auto i = sch.Split(l[0], {ti[0], ti[1]});
  sch.ReverseComputeAt(acc, i[0]);
  BlockRV d = sch.GetBlock("D");
  LoopRV at = sch.SampleComputeLocation(c);
  sch.ComputeAt(c, at);
  sch.Unroll(sch.GetLoops(d).back());
  return sch.trace();
}

Trace PackedAndAligned(const ir::PrimFunc& f) {
  Schedule sch(f, 3);
  BlockRV c = sch.GetBlock("C");
  BlockRV pack = sch.CacheRead(c, 1, "global");
  sch.TransformLayout(pack, 0, BufferIndexType::kWrite,
                      IndexMap::Parse("lambda k, j: (j // 4, k, j % 4)"));
  BlockRV a = sch.CacheRead(c, 0, "shared");
  sch.StorageAlign(a, 0, 0, 16, 4);
  sch.SetScope(c, 0, "global");
  sch.Annotate(sch.GetLoops(c)[0], "pragma_unroll_explicit", int64_t{1});
  return sch.trace();
}

Trace Factored(const ir::PrimFunc& f) {
  Schedule sch(f, 4);
  BlockRV c = sch.GetBlock("C");
  auto l = sch.GetLoops(c);
  auto tk = sch.SamplePerfectTile(l[2], 2, 4);
  auto k = sch.Split(l[2], {tk[0], tk[1]});
  BlockRV rf = sch.RFactor(k[1], 0);
  auto r = sch.GetLoops(rf);
  sch.Reorder({r[3], r[0]});
  sch.Parallel(r[3]);
  sch.Vectorize(sch.GetLoops(sch.GetBlock("D"))[1]);
  return sch.trace();
}

struct Seed {
  const char* name;
  Trace (*make)(const ir::PrimFunc&);
};
const Seed kSeeds[] = {{"tiled", Tiled},
                       {"cached_sampled_location", CachedAtSampledLocation},
                       {"packed_aligned", PackedAndAligned},
                       {"rfactor_parallel", Factored}};

TEST(TraceCorpus, WorkloadIsTheFuzzersMatmulRelu) {
  ir::PrimFunc f = ir::ParsePrimFunc(ReadTestData("traces/workload.tir"), "workload.tir");
  EXPECT_TRUE(ir::StructuralEqual(f, testing::MakeMatmulRelu(8, 8, 8)));
}

TEST(TraceCorpus, SeedsReplayAndMatchTheirSchedules) {
  ir::PrimFunc f = testing::MakeMatmulRelu(8, 8, 8);
  for (const Seed& seed : kSeeds) {
    SCOPED_TRACE(seed.name);
    Trace trace = seed.make(f);
    std::string file = std::string("traces/") + seed.name + ".json";
    std::string text = trace.ToJSON().dump() + "\n";
    EXPECT_EQ(kiln::testing::CheckGoldenFile(
                  kiln::testing::SourcePath("tests/search/testdata/" + file), text),
              "");
    Trace parsed = Trace::FromJSON(json::parse(text));
    ir::PrimFunc scheduled = ReplayTrace(f, parsed);
    EXPECT_EQ(CompareNumerics(f, scheduled), "");
    EXPECT_TRUE(ir::StructuralEqual(scheduled, ReplayTrace(f, trace)));
  }
}

}  // namespace
}  // namespace kiln::search
