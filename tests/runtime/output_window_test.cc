// The interpreter's cost estimate and output windows: a windowed run computes exactly what
// the full run computes on the window's regions, at a fraction of the cost, also when the
// output has producers (fused bias and relu, a padding stage) that must be restricted too.
#include "runtime/output_window.h"

#include <gtest/gtest.h>

#include <set>

#include "ir/functor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/interpreter/random_inputs.h"
#include "runtime/interpreter_cost.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::runtime {
namespace {

ir::PrimFunc Zoo(const std::string& name) { return ir::zoo::ZooLookup(name).build(); }

// Runs `f` and the window of it on the same inputs and expects every region of the window
// to hold bit for bit what the full run computed there (same operations, same order).
void ExpectWindowMatchesFullRun(const ir::PrimFunc& f, const OutputWindow& window,
                                const std::map<std::string, int64_t>& dims = {}) {
  std::vector<ir::ArgValue> full = ir::MakeRandomArguments(f, dims, 3);
  std::vector<ir::ArgValue> part = ir::MakeRandomArguments(f, dims, 3);
  ir::Interpret(f, full);
  ir::Interpret(window.windowed, part);
  ASSERT_FALSE(window.regions.empty());
  for (const ParamRegion& region : window.regions) {
    const auto& want = std::get<ir::HostTensor>(full[region.param_index]);
    const auto& got = std::get<ir::HostTensor>(part[region.param_index]);
    ir::HostTensor a = ExtractRegion(want, region.ranges);
    ir::HostTensor b = ExtractRegion(got, region.ranges);
    ASSERT_GT(a.numel(), 0) << DescribeRegion(region);
    ir::TensorComparison cmp = ir::CompareTensors(a, b, 0, 0);
    EXPECT_TRUE(cmp.ok) << DescribeRegion(region) << ": " << cmp.message;
  }
}

int64_t Cost(const ir::PrimFunc& f, const std::map<std::string, int64_t>& dims = {}) {
  std::optional<int64_t> cost = EstimateInterpreterCost(f, dims);
  EXPECT_TRUE(cost.has_value());
  return cost.value_or(0);
}

TEST(InterpreterCost, CountsStoresTimesTheirLoopExtents) {
  // matmul 32x48x40: the init and the update store each run under all three loops.
  EXPECT_EQ(Cost(Zoo("matmul")), 2 * 32 * 48 * 40);
  // dense 16x24x32 (init + update), then bias_add and relu over 16x24.
  EXPECT_EQ(Cost(Zoo("dense_bias_relu")), 2 * 16 * 24 * 32 + 2 * 16 * 24);
}

TEST(InterpreterCost, SymbolicDimsComeFromTheBinding) {
  ir::PrimFunc f = Zoo("matmul_symbolic_m");
  EXPECT_EQ(Cost(f, {{"m", 20}}), 2 * 20 * 24 * 32);
  EXPECT_FALSE(EstimateInterpreterCost(f, {}).has_value());
}

TEST(OutputWindow, MatmulRowsWithinTheBudget) {
  ir::PrimFunc f = Zoo("matmul");
  int64_t full = Cost(f);
  std::optional<OutputWindow> window = PlanOutputWindow(f, {}, full / 8, 11);
  ASSERT_TRUE(window.has_value());
  EXPECT_LE(window->cost, full / 8);
  EXPECT_GE(window->cost, full / 16) << "the window should use most of its budget";
  ASSERT_EQ(window->regions.size(), 1u);
  EXPECT_EQ(window->regions[0].name, "C");
  EXPECT_NE(window->description.find("C["), std::string::npos);
  ExpectWindowMatchesFullRun(f, *window);
}

TEST(OutputWindow, FusedProducersAreRestrictedToWhatTheWindowReads) {
  ir::PrimFunc f = Zoo("dense_bias_relu");
  int64_t full = Cost(f);
  std::optional<OutputWindow> window = PlanOutputWindow(f, {}, full / 10, 5);
  ASSERT_TRUE(window.has_value());
  // The dense producer dominates the cost: the window is cheap only if it was restricted.
  EXPECT_LE(window->cost, full / 10);
  ASSERT_EQ(window->regions.size(), 1u);
  EXPECT_EQ(window->regions[0].name, "relu");
  ExpectWindowMatchesFullRun(f, *window);
}

// What the soundness of a window rests on: a producer restricted too narrowly leaves NaN in
// the intermediate (the interpreter's fill for fresh storage), so the window's outputs
// disagree with the full run instead of passing by luck.
TEST(OutputWindow, TooNarrowAProducerFailsTheComparison) {
  ir::PrimFunc f = Zoo("dense_bias_relu");
  std::optional<OutputWindow> window = PlanOutputWindow(f, {}, Cost(f) / 10, 5);
  ASSERT_TRUE(window.has_value());
  // Shrink the first loop of the function (dense's rows) to nothing.
  class ShrinkFirstLoop : public ir::IRMutator {
   public:
    ir::Stmt VisitStmt_(const ir::ForNode* op) override {
      if (done_) return IRMutator::VisitStmt_(op);
      done_ = true;
      auto copy = std::make_shared<ir::ForNode>(*op);
      copy->extent = ir::IntImm(op->extent.dtype(), 0);
      return ir::Stmt(std::move(copy));
    }

   private:
    bool done_ = false;
  } shrink;
  ir::PrimFunc narrow = window->windowed.WithBody(shrink.VisitStmt(window->windowed->body));
  std::vector<ir::ArgValue> full = ir::MakeRandomArguments(f, {}, 3);
  std::vector<ir::ArgValue> part = ir::MakeRandomArguments(f, {}, 3);
  ir::Interpret(f, full);
  ir::Interpret(narrow, part);
  const ParamRegion& region = window->regions.at(0);
  ir::HostTensor want = ExtractRegion(std::get<ir::HostTensor>(full[3]), region.ranges);
  ir::HostTensor got = ExtractRegion(std::get<ir::HostTensor>(part[3]), region.ranges);
  EXPECT_FALSE(ir::CompareTensors(want, got, 1e-4, 1e-5).ok);
}

TEST(OutputWindow, ConvolutionWithAPaddingStage) {
  ir::PrimFunc f = Zoo("conv2d_stride2_pad1");
  int64_t full = Cost(f);
  std::optional<OutputWindow> window = PlanOutputWindow(f, {}, full / 4, 2);
  ASSERT_TRUE(window.has_value());
  EXPECT_LE(window->cost, full / 4);
  ExpectWindowMatchesFullRun(f, *window);
}

TEST(OutputWindow, SymbolicWorkloadWithBoundDims) {
  ir::PrimFunc f = Zoo("matmul_symbolic_m");
  std::map<std::string, int64_t> dims = {{"m", 20}};
  std::optional<OutputWindow> window = PlanOutputWindow(f, dims, Cost(f, dims) / 4, 9);
  ASSERT_TRUE(window.has_value());
  ExpectWindowMatchesFullRun(f, *window, dims);
}

TEST(OutputWindow, DifferentSeedsPlaceTheWindowDifferently) {
  ir::PrimFunc f = Zoo("matmul");
  std::set<std::string> placements;
  for (uint64_t seed = 0; seed < 8; ++seed) {
    placements.insert(PlanOutputWindow(f, {}, Cost(f) / 8, seed)->description);
  }
  EXPECT_GT(placements.size(), 1u);
}

TEST(OutputWindow, AScalarOutputHasNoWindow) {
  EXPECT_FALSE(PlanOutputWindow(Zoo("sum_all"), {}, 10, 1).has_value());
}

TEST(OutputWindow, TheNarrowestWindowIsReturnedWhenTheBudgetIsTooSmall) {
  ir::PrimFunc f = Zoo("matmul");
  std::optional<OutputWindow> window = PlanOutputWindow(f, {}, 1, 1);
  ASSERT_TRUE(window.has_value());
  EXPECT_GT(window->cost, 1);
  EXPECT_LT(window->cost, Cost(f));
  ExpectWindowMatchesFullRun(f, *window);
}

TEST(ExtractRegion, CopiesTheElementsOfTheRegion) {
  ir::HostTensor t(ir::DataType::Int(32), {3, 4});
  for (int64_t i = 0; i < 12; ++i) t.SetInt(i, i);
  ir::HostTensor r = ExtractRegion(t, {{1, 3}, {2, 4}});
  ASSERT_EQ(r.shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(r.GetInt(0), 6);
  EXPECT_EQ(r.GetInt(1), 7);
  EXPECT_EQ(r.GetInt(2), 10);
  EXPECT_EQ(r.GetInt(3), 11);
  EXPECT_THROW(ExtractRegion(t, {{0, 4}, {0, 4}}), Error);
}

}  // namespace
}  // namespace kiln::runtime
