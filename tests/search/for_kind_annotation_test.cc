// parallel, vectorize, unroll, bind, annotate and unannotate.
#include <gtest/gtest.h>

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
using testing::Skeleton;

TEST(ForKind, ParallelVectorizeUnroll) {
  ir::PrimFunc f = MakeMatmul(8, 8, 4);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Parallel(loops[0]);
  sch.Vectorize(loops[1]);
  sch.Unroll(loops[2]);
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i in 8 parallel\n"
            "    for j in 8 vectorized\n"
            "      for k in 4 unroll\n"
            "        block C [i, j, k] init\n");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("parallel_vectorize_unroll", f, sch.func()), "");
}

TEST(ForKind, RejectsParallelReduction) {
  Schedule sch(MakeMatmul(8, 8, 4));
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  ExpectError([&] { sch.Parallel(loops[2]); }, ErrorKind::kSchedule,
              "parallel: loop k is bound to the reduce iteration vk of block \"C\"");
  ExpectError([&] { sch.Vectorize(loops[2]); }, ErrorKind::kSchedule, "vectorize: loop k");
  ExpectError([&] { sch.Bind(loops[2], "blockIdx.x"); }, ErrorKind::kSchedule, "bind: loop k");
  sch.Parallel(loops[0]);
  ExpectError([&] { sch.Vectorize(loops[0]); }, ErrorKind::kSchedule, "already parallel");
  ExpectError([&] { sch.Unroll(loops[0]); }, ErrorKind::kSchedule,
              "unroll: loop i is already parallel");
  EXPECT_EQ(sch.trace().size(), 3u);  // GetBlock, GetLoops, Parallel
}

TEST(ForKind, Bind) {
  ir::PrimFunc f = MakeMatmul(8, 8, 4);
  Schedule sch(f);
  auto loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Bind(loops[0], "blockIdx.x");
  sch.Bind(loops[1], "threadIdx.x");
  sch.Bind(loops[2], "threadIdx.y");  // threads may cooperate on a reduction
  EXPECT_EQ(sch.Get(loops[0])->thread_tag, "blockIdx.x");
  EXPECT_EQ(sch.Get(loops[2])->for_kind, ir::ForKind::kThreadBinding);
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  EXPECT_EQ(CheckGolden("bind", f, sch.func()), "");
  Schedule other(MakeMatmul(8, 8, 4));
  auto l = other.GetLoops(other.GetBlock("C"));
  ExpectError([&] { other.Bind(l[0], "warp.x"); }, ErrorKind::kSchedule,
              "\"warp.x\" is not a thread axis");
}

TEST(Annotation, LoopAndBlock) {
  ir::PrimFunc f = MakeMatmul(8, 8, 4);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  sch.Annotate(loops[0], "pragma_auto_unroll_max_step", int64_t{16});
  sch.Annotate(c, "meta_schedule.tiling_structure", std::string("SSRSRS"));
  ExprRV v = sch.SampleCategorical({0, 16, 64}, {0.0, 1.0, 0.0});
  sch.Annotate(c, "meta_schedule.unroll_explicit", v);
  EXPECT_EQ(ir::AsConstInt(sch.Get(loops[0])->annotations.at("pragma_auto_unroll_max_step")), 16);
  EXPECT_EQ(ir::AsConstInt(sch.Get(c)->annotations.at("meta_schedule.unroll_explicit")), 16);
  const auto* s =
      sch.Get(c)->annotations.at("meta_schedule.tiling_structure").as<ir::StringImmNode>();
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->value, "SSRSRS");
  EXPECT_EQ(CheckGolden("annotate", f, sch.func()), "");
  ir::PrimFunc annotated = sch.func();
  sch.Unannotate(c, "meta_schedule.tiling_structure");
  sch.Unannotate(loops[0], "pragma_auto_unroll_max_step");
  EXPECT_EQ(sch.Get(c)->annotations.count("meta_schedule.tiling_structure"), 0u);
  EXPECT_EQ(CheckGolden("unannotate", annotated, sch.func()), "");
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  ExpectError([&] { sch.Unannotate(loops[1], "x"); }, ErrorKind::kSchedule,
              "unannotate: loop j has no annotation \"x\"");
  ExpectError([&] { sch.Unannotate(c, "x"); }, ErrorKind::kSchedule,
              "block \"C\" has no annotation \"x\"");
  ExpectError([&] { sch.Annotate(c, "", int64_t{1}); }, ErrorKind::kSchedule,
              "annotate: empty annotation key");
}

}  // namespace
}  // namespace kiln::search
