// The space generator: post order over blocks, every rule applied to every block, a faulty
// rule never losing the space, and the cpu preset's sketches of matmul and conv2d printed
// as traces (golden files, as MetaSchedule's check_sketches).
#include "search/space/space_generator.h"

#include <gtest/gtest.h>

#include "ir/text/printer.h"
#include "search/space/block_info.h"
#include "search/space/design_space.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

TEST(SpaceGeneratorTest, BlocksAreVisitedChildrenFirst) {
  Schedule sch(testing::MakeMatmulRelu(8, 8, 8));
  EXPECT_EQ(BlocksInPostOrder(sch.state()), (std::vector<std::string>{"C", "D", "root"}));
}

// Records the order of the blocks it sees, and forks each schedule in two on block "C".
class RecordingRule : public ScheduleRule {
 public:
  std::vector<std::string>* seen = nullptr;
  std::string Name() const override { return "recording"; }
  void Initialize(const TuneContext&) override {}
  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    seen->push_back(sch.Get(block)->name);
    if (sch.Get(block)->name != "C") return {sch};
    Schedule other = sch;
    other.Annotate(block, "fork", int64_t{1});
    return {sch, other};
  }
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<RecordingRule>(*this);
  }
};

class ThrowingRule : public RecordingRule {
 public:
  std::vector<Schedule> Apply(const Schedule&, BlockRV) override {
    throw Error(ErrorKind::kSchedule, "a rule that fails");
  }
};

TEST(SpaceGeneratorTest, RulesApplyToEveryBlockFromTheLastAndForksMultiply) {
  std::vector<std::string> seen;
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  auto rule = std::make_unique<RecordingRule>();
  rule->seen = &seen;
  rules.push_back(std::move(rule));
  auto second = std::make_unique<RecordingRule>();
  second->seen = &seen;
  rules.push_back(std::move(second));
  std::vector<Schedule> sketches = GenerateSketches(testing::MakeMatmulRelu(8, 8, 8), rules);
  // Two rules, each forking on C: four sketches.
  EXPECT_EQ(sketches.size(), 4u);
  // First rule: root, D, C once; second rule: root, D, C for each of the two schedules.
  EXPECT_EQ(seen, (std::vector<std::string>{"root", "D", "C", "root", "D", "C", "root", "D", "C"}));
  for (const Schedule& sch : sketches) {
    EXPECT_EQ(ir::PrintPrimFunc(ReplayTrace(testing::MakeMatmulRelu(8, 8, 8), sch.trace())),
              ir::PrintPrimFunc(sch.func()));
  }
}

TEST(SpaceGeneratorTest, AThrowingRuleLeavesTheScheduleAsItWas) {
  std::vector<std::unique_ptr<ScheduleRule>> rules;
  rules.push_back(std::make_unique<ThrowingRule>());
  std::vector<Schedule> sketches = GenerateSketches(testing::MakeMatmul(8, 8, 8), rules);
  ASSERT_EQ(sketches.size(), 1u);
  EXPECT_EQ(ir::PrintPrimFunc(sketches[0].func()), ir::PrintPrimFunc(testing::MakeMatmul(8, 8, 8)));
}

TEST(SpaceGeneratorTest, CpuSketchesOfMatmul) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  DesignSpace space = MakeDesignSpace("cpu");
  TuneContext context = testing::CpuContext(f);
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  // Multi-level tiling: no write cache or one at either level, each with or without the
  // packed B.
  EXPECT_EQ(sketches.size(), 6u);
  testing::ExpectGoldenSketches(sketches, "cpu_matmul");
}

TEST(SpaceGeneratorTest, CpuSketchesOfConv2d) {
  ir::PrimFunc f = ir::zoo::ZooLookup("conv2d_stride2_pad1").build();
  DesignSpace space = MakeDesignSpace("cpu");
  TuneContext context = testing::CpuContext(f);
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  EXPECT_GE(sketches.size(), 3u);
  testing::ExpectGoldenSketches(sketches, "cpu_conv2d");
}

}  // namespace
}  // namespace kiln::search
