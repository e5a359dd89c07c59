// Each postprocessor accepts what it should (rewriting it) and rejects what it should.
#include "search/space/postprocs/postprocs.h"

#include <gtest/gtest.h>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/space/rules/rules.h"
#include "search/space/space_generator.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

using testing::CompareNumerics;
using testing::Skeleton;

bool RunPostproc(std::unique_ptr<Postproc> postproc, Schedule& sch) {
  postproc->Initialize(testing::CpuContext(sch.func()));
  return postproc->Apply(sch);
}

TEST(PostprocsTest, DisallowDynamicLoopRejectsASymbolicExtent) {
  Schedule dynamic(ir::zoo::ZooLookup("matmul_symbolic_m").build());
  EXPECT_FALSE(RunPostproc(MakeDisallowDynamicLoop(), dynamic));
  Schedule fixed(testing::MakeMatmul(8, 8, 8));
  EXPECT_TRUE(RunPostproc(MakeDisallowDynamicLoop(), fixed));
}

TEST(PostprocsTest, RewriteReductionBlockDecomposesAtTheOutermostReductionLoop) {
  ir::PrimFunc f = testing::MakeMatmul(8, 12, 16);
  Schedule sch(f);
  ASSERT_TRUE(RunPostproc(MakeRewriteReductionBlock(), sch));
  EXPECT_GE(sch.state().FindBlock("C_init"), 0) << ir::PrintPrimFunc(sch.func());
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  // An elementwise function has nothing to decompose: accepted unchanged.
  Schedule plain(testing::MakeTwoStage(4, 4));
  ASSERT_TRUE(RunPostproc(MakeRewriteReductionBlock(), plain));
  EXPECT_EQ(plain.trace().size(), 0u);
}

TEST(PostprocsTest, RewriteParallelVectorizeUnrollTurnsTheBudgetsIntoLoopKinds) {
  ir::PrimFunc f = testing::MakeMatmul(64, 32, 16);
  Schedule sch(f);
  BlockRV root = sch.GetBlock("root");
  sch.Annotate(root, kParallelAnnotation, int64_t{32});
  sch.Annotate(root, kVectorizeAnnotation, int64_t{64});
  sch.Annotate(root, kUnrollExplicitAnnotation, int64_t{16});
  ASSERT_TRUE(RunPostproc(MakeRewriteParallelVectorizeUnroll(), sch));
  // i (64) is parallel; k is a reduction, so nothing inside it is vectorized.
  EXPECT_EQ(Skeleton(sch.func()),
            "block root\n"
            "  for i in 64 parallel @pragma_auto_unroll_max_step @pragma_unroll_explicit\n"
            "    for j in 32\n"
            "      for k in 16\n"
            "        block C [i, j, k] init\n")
      << ir::PrintPrimFunc(sch.func());
  const ir::BlockNode* root_block = sch.state().entry(0).block();
  EXPECT_FALSE(root_block->annotations.count(kParallelAnnotation));
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
  // A spatial inner loop is vectorized (after the reduction is decomposed, the init's too).
  Schedule two(testing::MakeTwoStage(4, 16));
  BlockRV root2 = two.GetBlock("root");
  two.Annotate(root2, kParallelAnnotation, int64_t{2});
  two.Annotate(root2, kVectorizeAnnotation, int64_t{16});
  ASSERT_TRUE(RunPostproc(MakeRewriteParallelVectorizeUnroll(), two));
  EXPECT_NE(Skeleton(two.func()).find("vectorized"), std::string::npos) << Skeleton(two.func());
  EXPECT_EQ(CompareNumerics(testing::MakeTwoStage(4, 16), two.func()), "");
}

// A parallel region is started only for 16K block iterations or more, counting every block
// under the loop that would be parallel: two 8K-element stages stay serial apart, and their
// row loop is parallel once the first stage is computed under the second's rows.
TEST(PostprocsTest, RewriteParallelVectorizeUnrollParallelizesOnlyRegionsWithEnoughWork) {
  auto annotate = [](Schedule& sch) {
    BlockRV root = sch.GetBlock("root");
    sch.Annotate(root, kParallelAnnotation, int64_t{32});
    sch.Annotate(root, kVectorizeAnnotation, int64_t{16});
  };
  ir::PrimFunc f = testing::MakeTwoStage(64, 128);
  Schedule apart(f);
  annotate(apart);
  ASSERT_TRUE(RunPostproc(MakeRewriteParallelVectorizeUnroll(), apart));
  EXPECT_EQ(Skeleton(apart.func()).find("parallel"), std::string::npos) << Skeleton(apart.func());

  Schedule fused(f);
  fused.ComputeAt(fused.GetBlock("B"), fused.GetLoops(fused.GetBlock("C"))[0], true);
  annotate(fused);
  ASSERT_TRUE(RunPostproc(MakeRewriteParallelVectorizeUnroll(), fused));
  std::string skeleton = Skeleton(fused.func());
  EXPECT_NE(skeleton.find("\n  for i in 64 parallel\n"), std::string::npos) << skeleton;
  EXPECT_EQ(CompareNumerics(f, fused.func()), "");
}

// The work counted is elements stored: a block that stores a whole tile per iteration (4 x 4
// values, as a Winograd transform does) over 64 x 64 iterations is 64K elements, worth a
// parallel region although it runs only 4K times.
TEST(PostprocsTest, RewriteParallelVectorizeUnrollCountsEveryStoreOfABlock) {
  std::string text = R"(
@T.prim_func(s_tir=True)
def tiles(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64, 16), "float32")):
    T.func_attr({"tirx.noalias": True})
    for i, j in T.grid(64, 64):
        with T.sblock("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj, 0:16])
)";
  for (int e = 0; e < 16; ++e) {
    text += "            B[vi, vj, " + std::to_string(e) + "] = A[vi, vj] * T.float32(" +
            std::to_string(e + 1) + ")\n";
  }
  ir::PrimFunc f = ir::ParsePrimFunc(text);
  Schedule sch(f);
  sch.Annotate(sch.GetBlock("root"), kParallelAnnotation, int64_t{32});
  ASSERT_TRUE(RunPostproc(MakeRewriteParallelVectorizeUnroll(), sch));
  std::string skeleton = Skeleton(sch.func());
  EXPECT_NE(skeleton.find("parallel"), std::string::npos) << skeleton;
  EXPECT_EQ(CompareNumerics(f, sch.func()), "");
}

// Inner loops are fused into one vector loop only when the fused extent is whole registers:
// 4 rows by 16 lanes becomes 4 unrolled registers, but 4 rows by 14 lanes would index its rows
// by a division inside one vector, so the 14 alone is vectorized and the rows stay a loop.
TEST(PostprocsTest, RewriteParallelVectorizeUnrollFusesInnerLoopsOnlyIntoWholeRegisters) {
  auto rewrite = [](int64_t columns) {
    ir::PrimFunc f = testing::MakeTwoStage(64, 4 * columns);
    Schedule sch(f);
    BlockRV b = sch.GetBlock("C");
    sch.Split(sch.GetLoops(b)[1], {std::nullopt, columns});
    std::vector<LoopRV> split = sch.GetLoops(b);
    sch.Reorder({split[1], split[0], split[2]});
    // C's loops: j_0 (4), i (64), j_1 (columns); i split into 16 x 4 rows, so that the rows
    // and the columns fit the vector budget together.
    sch.Split(sch.GetLoops(b)[1], {std::nullopt, int64_t{4}});
    sch.Annotate(sch.GetBlock("root"), kVectorizeAnnotation, int64_t{64});
    EXPECT_TRUE(RunPostproc(MakeRewriteParallelVectorizeUnroll(), sch));
    EXPECT_EQ(CompareNumerics(f, sch.func()), "") << columns << " columns";
    return Skeleton(sch.func());
  };
  std::string whole = rewrite(16);
  EXPECT_NE(whole.find("unroll"), std::string::npos) << whole;
  EXPECT_NE(whole.find("in 16 vectorized"), std::string::npos) << whole;
  std::string partial = rewrite(14);
  EXPECT_NE(partial.find("for i_1 in 4\n"), std::string::npos) << partial;
  EXPECT_NE(partial.find("for j_1 in 14 vectorized"), std::string::npos) << partial;
}

TEST(PostprocsTest, VerifyRejectsNestedParallelLoopsAndAVectorLoopAroundALoop) {
  Schedule plain(testing::MakeTwoStage(4, 8));
  EXPECT_TRUE(RunPostproc(MakeVerify(), plain));

  Schedule nested(testing::MakeTwoStage(4, 8));
  std::vector<LoopRV> loops = nested.GetLoops(nested.GetBlock("B"));
  nested.Parallel(loops[0]);
  nested.Parallel(loops[1]);
  EXPECT_FALSE(RunPostproc(MakeVerify(), nested));

  Schedule outer_vector(testing::MakeTwoStage(4, 8));
  outer_vector.Vectorize(outer_vector.GetLoops(outer_vector.GetBlock("B"))[0]);
  EXPECT_FALSE(RunPostproc(MakeVerify(), outer_vector));
}

TEST(PostprocsTest, VerifyRejectsALocalTileTooLargeForTheStack) {
  // A write cache computed at the root: the whole 512 x 512 result (1 MiB) as one local tile.
  Schedule big(testing::MakeMatmul(512, 512, 4));
  big.CacheWrite(big.GetBlock("C"), 0, "local");
  EXPECT_FALSE(RunPostproc(MakeVerify(), big));
  // Under the row loop, one row (2 KiB): accepted.
  Schedule row(testing::MakeMatmul(512, 512, 4));
  BlockRV c = row.GetBlock("C");
  BlockRV cache = row.CacheWrite(c, 0, "local");
  row.ReverseComputeAt(cache, row.GetLoops(c)[0]);
  EXPECT_TRUE(RunPostproc(MakeVerify(), row));
}

TEST(PostprocsTest, VerifyAcceptsARegisterTileUpdatedUnderALongReduction) {
  // A row of C (256 B) accumulated in a local tile over k = 4096: the update reads the tile
  // 4096 times, which does not make it 4096 rows.
  Schedule sch(testing::MakeMatmul(64, 64, 4096));
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  sch.Reorder({loops[0], loops[2], loops[1]});
  BlockRV cache = sch.CacheWrite(c, 0, "local");
  sch.ReverseComputeAt(cache, loops[0]);
  sch.DecomposeReduction(c, loops[2]);
  EXPECT_TRUE(RunPostproc(MakeVerify(), sch));
}

}  // namespace
}  // namespace kiln::search
