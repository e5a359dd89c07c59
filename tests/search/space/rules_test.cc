// Each schedule rule alone on matmul and conv2d: its sketches printed as traces with a fixed
// seed and compared with golden files (MetaSchedule's check_sketches), plus the behaviour
// that decides whether a rule applies.
#include "search/space/rules/rules.h"

#include <gtest/gtest.h>

#include "ir/text/printer.h"
#include "search/space/space_generator.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

std::vector<Schedule> SketchesOf(std::unique_ptr<ScheduleRule> rule, const ir::PrimFunc& f) {
  rule->Initialize(testing::CpuContext(f));
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  rules.push_back(std::move(rule));
  return GenerateSketches(f, rules);
}

struct RuleCase {
  std::string name;
  std::unique_ptr<ScheduleRule> (*make)();
};

std::vector<RuleCase> Rules() {
  return {{"auto_inline", [] { return MakeAutoInline(); }},
          {"add_rfactor", [] { return MakeAddRFactor(); }},
          {"multi_level_tiling", [] { return MakeMultiLevelTiling(); }},
          {"parallel_vectorize_unroll", [] { return MakeParallelVectorizeUnroll(); }},
          {"random_compute_location", [] { return MakeRandomComputeLocation(); }}};
}

TEST(RulesTest, GoldenSketchesOnMatmulAndConv2d) {
  for (const char* workload : {"matmul", "conv2d_stride2_pad1"}) {
    ir::PrimFunc f = ir::zoo::ZooLookup(workload).build();
    for (const RuleCase& rule : Rules()) {
      SCOPED_TRACE(rule.name + " on " + workload);
      std::vector<Schedule> sketches = SketchesOf(rule.make(), f);
      ASSERT_FALSE(sketches.empty());
      testing::ExpectGoldenSketches(sketches, rule.name + "__" + workload);
    }
  }
}

TEST(RulesTest, AutoInlineInlinesAnElementwiseProducerButNotAnExpensiveOne) {
  // B = A * 2 is inlined into C = B + 1.
  std::vector<Schedule> two = SketchesOf(MakeAutoInline(), testing::MakeTwoStage(8, 8));
  ASSERT_EQ(two.size(), 1u);
  EXPECT_LT(two[0].state().FindBlock("B"), 0);
  // softmax's exp stage stays (and so does every reduction).
  ir::PrimFunc softmax = ir::zoo::ZooLookup("softmax").build();
  std::vector<Schedule> kept = SketchesOf(MakeAutoInline(), softmax);
  ASSERT_EQ(kept.size(), 1u);
  int exp_blocks = 0;
  for (size_t i = 0; i < kept[0].state().size(); ++i) {
    const ir::BlockNode* block = kept[0].state().entry(static_cast<int>(i)).block();
    if (block && block->name.find("exp") != std::string::npos) ++exp_blocks;
  }
  EXPECT_GE(exp_blocks, 1) << ir::PrintPrimFunc(kept[0].func());
}

TEST(RulesTest, MultiLevelTilingLeavesElementwiseBlocksAlone) {
  ir::PrimFunc f = testing::MakeTwoStage(8, 8);
  std::vector<Schedule> sketches = SketchesOf(MakeMultiLevelTiling(), f);
  ASSERT_EQ(sketches.size(), 1u);
  EXPECT_EQ(ir::PrintPrimFunc(sketches[0].func()), ir::PrintPrimFunc(f));
}

TEST(RulesTest, MultiLevelTilingFusesAnElementwiseEpilogueAsItsWriteCache) {
  // dense + bias + relu: after auto-inline one elementwise block consumes the dense block.
  ir::PrimFunc f = ir::zoo::ZooLookup("dense_bias_relu").build();
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  rules.push_back(MakeAutoInline());
  rules.push_back(MakeMultiLevelTiling());
  for (auto& rule : rules) rule->Initialize(testing::CpuContext(f));
  std::vector<Schedule> sketches = GenerateSketches(f, rules);
  int fused = 0;
  for (const Schedule& sch : sketches) {
    std::string text = sch.trace().AsPython();
    if (text.find("get_consumers") != std::string::npos &&
        text.find("reverse_compute_at") != std::string::npos &&
        text.find("cache_write") == std::string::npos) {
      ++fused;
    }
  }
  // Both write-cache levels, each with and without the packed operand, and the channel-last
  // register tile (W is indexed W[j, k]: packed at the root as [k, j], vectors along j).
  EXPECT_EQ(fused, 5) << testing::SketchesText(sketches);
  EXPECT_NE(testing::SketchesText(sketches).find("index_map=lambda i0, i1: (i1, i0)"),
            std::string::npos);
  // At the register level the intermediate becomes local.
  EXPECT_NE(testing::SketchesText(sketches).find("set_scope"), std::string::npos);
}

TEST(RulesTest, MultiLevelTilingAddsAChannelLastSketchOnlyWhereNoOperandIsContiguous) {
  // matmul reads B[k, j] along its innermost iteration: no channel-last sketch.
  for (const Schedule& sch : SketchesOf(MakeMultiLevelTiling(), testing::MakeMatmul(64, 64, 64))) {
    EXPECT_EQ(sch.trace().AsPython().find("transform_layout"), std::string::npos);
  }
  // conv2d NCHW reads its input at x + s: the last sketch packs the weights channels-last and
  // lays the register tile out channels-last, the output-channel loop innermost.
  ir::PrimFunc conv = ir::zoo::ZooLookup("conv2d_stride2_pad1").build();
  std::vector<Schedule> sketches = SketchesOf(MakeMultiLevelTiling(), conv);
  std::string last = sketches.back().trace().AsPython();
  EXPECT_NE(last.find("transform_layout(b1, buffer=(\"write\", 0), index_map=lambda i0, i1, i2, "
                      "i3: (i0, i2, i3, i1))"),
            std::string::npos)
      << last;
  EXPECT_NE(last.find("index_map=lambda i0, i1, i2, i3: (i1, i2, i3, i0)"), std::string::npos)
      << last;
  Schedule tiled = sketches.back();
  std::vector<LoopRV> loops = tiled.GetLoops(tiled.GetBlock("conv2d_nchw"));
  EXPECT_EQ(tiled.Get(loops.back())->loop_var->name.substr(0, 3), "ff_");
  // With 4-float vectors (8 output channels split 2 x 4) the channel axis is split by the lanes
  // before its outer part is tiled: every sampled register tile is whole vectors.
  std::unique_ptr<ScheduleRule> narrow = MakeMultiLevelTiling();
  TuneContext context = testing::CpuContext(conv);
  context.vector_bytes = 16;
  narrow->Initialize(context);
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  rules.push_back(std::move(narrow));
  std::string split = GenerateSketches(conv, rules).back().trace().AsPython();
  EXPECT_NE(split.find("factors=[None, 4]"), std::string::npos) << split;
  EXPECT_EQ(last.find("factors=[None, 4]"), std::string::npos) << last;
  MultiLevelTilingConfig off;
  off.channel_last = false;
  EXPECT_EQ(SketchesOf(MakeMultiLevelTiling(off), conv).size(), sketches.size() - 1);
}

TEST(RulesTest, AddRFactorFactorsALongReductionWithLittleParallelism) {
  // A row sum of 1 x 4096: one output, a long reduction.
  ir::PrimFunc f = ir::zoo::ZooLookup("sum_keepdims").build();
  std::vector<Schedule> sketches = SketchesOf(MakeAddRFactor(), f);
  // And the matmul has enough spatial work: untouched.
  EXPECT_EQ(SketchesOf(MakeAddRFactor(), testing::MakeMatmul(64, 64, 64)).size(), 1u);
  bool factored = false;
  for (const Schedule& sch : sketches) {
    for (size_t i = 0; i < sch.state().size(); ++i) {
      const ir::BlockNode* block = sch.state().entry(static_cast<int>(i)).block();
      if (block && block->name.size() > 3 && block->name.substr(block->name.size() - 3) == "_rf") {
        factored = true;
      }
    }
  }
  EXPECT_EQ(factored, sketches.size() > 1);
}

TEST(RulesTest, ParallelVectorizeUnrollAnnotatesOnlyTheRoot) {
  std::vector<Schedule> sketches =
      SketchesOf(MakeParallelVectorizeUnroll(), testing::MakeMatmul(8, 8, 8));
  ASSERT_EQ(sketches.size(), 1u);
  const ir::BlockNode* root = sketches[0].state().entry(0).block();
  ASSERT_NE(root, nullptr);
  EXPECT_EQ(ir::AsConstInt(root->annotations.at(kParallelAnnotation)), 32);
  EXPECT_EQ(ir::AsConstInt(root->annotations.at(kVectorizeAnnotation)), 64);
  EXPECT_TRUE(root->annotations.count(kUnrollExplicitAnnotation));
  EXPECT_NE(sketches[0].trace().AsPython().find("sample_categorical"), std::string::npos);
}

}  // namespace
}  // namespace kiln::search
