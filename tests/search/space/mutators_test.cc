// Each mutator changes a decision (or the parallel budget) of a sampled candidate's trace,
// keeps what must be kept (a tiling's product, the innermost cap), and its proposal replays.
#include "search/space/mutators/mutators.h"

#include <gtest/gtest.h>

#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/rules/rules.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

// A sampled candidate of the cpu space's first sketch of `f`.
Candidate SampleOf(const ir::PrimFunc& f, DesignSpace& space, size_t sketch = 0) {
  TuneContext context = testing::CpuContext(f);
  space.Initialize(context);
  std::vector<Schedule> sketches = space.Sketches(context);
  EXPECT_LT(sketch, sketches.size());
  RandomEngine rng(5);
  for (int attempt = 0; attempt < 50; ++attempt) {
    auto c = SampleCandidate(f, sketches.at(sketch).trace(), space.postprocs, rng, nullptr);
    if (c) return *c;
  }
  ADD_FAILURE() << "no candidate in 50 draws";
  return {};
}

// Indices where the decisions of two traces of the same program differ.
std::vector<size_t> ChangedDecisions(const Trace& a, const Trace& b) {
  std::vector<size_t> changed;
  for (const auto& [index, decision] : a.decisions()) {
    if (b.GetDecision(index) != decision) changed.push_back(index);
  }
  return changed;
}

TEST(MutatorsTest, TileSizeMovesAFactorAndKeepsTheProduct) {
  ir::PrimFunc f = testing::MakeMatmul(64, 96, 128);
  DesignSpace space = MakeDesignSpace("cpu");
  Candidate c = SampleOf(f, space);
  auto mutator = MakeMutateTileSize();
  mutator->Initialize(testing::CpuContext(f));
  RandomEngine rng(11);
  for (int round = 0; round < 20; ++round) {
    std::optional<Trace> mutated = mutator->Apply(c.trace, rng);
    ASSERT_TRUE(mutated.has_value());
    std::vector<size_t> changed = ChangedDecisions(c.trace, *mutated);
    ASSERT_EQ(changed.size(), 1u);
    const Instruction& inst = mutated->instructions()[changed[0]];
    EXPECT_EQ(inst.kind, "SamplePerfectTile");
    auto before = c.trace.GetDecision(changed[0])->get<std::vector<int64_t>>();
    auto after = mutated->GetDecision(changed[0])->get<std::vector<int64_t>>();
    int64_t pb = 1, pa = 1;
    for (int64_t v : before) pb *= v;
    for (int64_t v : after) pa *= v;
    EXPECT_EQ(pa, pb);
    EXPECT_LE(after.back(), inst.attrs[1].get<int64_t>());
    EXPECT_TRUE(ApplyTrace(f, *mutated, space.postprocs, 1, nullptr).has_value());
  }
}

TEST(MutatorsTest, UnrollPicksAnotherStep) {
  ir::PrimFunc f = testing::MakeMatmul(32, 32, 32);
  DesignSpace space = MakeDesignSpace("cpu");
  Candidate c = SampleOf(f, space);
  auto mutator = MakeMutateUnroll();
  mutator->Initialize(testing::CpuContext(f));
  RandomEngine rng(3);
  std::optional<Trace> mutated = mutator->Apply(c.trace, rng);
  ASSERT_TRUE(mutated.has_value());
  std::vector<size_t> changed = ChangedDecisions(c.trace, *mutated);
  ASSERT_EQ(changed.size(), 1u);
  EXPECT_EQ(mutated->instructions()[changed[0]].kind, "SampleCategorical");
  int64_t choice = mutated->GetDecision(changed[0])->get<int64_t>();
  EXPECT_GE(choice, 0);
  EXPECT_LT(choice, 4);
  EXPECT_TRUE(ApplyTrace(f, *mutated, space.postprocs, 1, nullptr).has_value());
}

TEST(MutatorsTest, ParallelChangesTheBudget) {
  ir::PrimFunc f = testing::MakeMatmul(32, 32, 32);
  DesignSpace space = MakeDesignSpace("cpu");
  Candidate c = SampleOf(f, space);
  auto mutator = MakeMutateParallel();
  mutator->Initialize(testing::CpuContext(f));
  RandomEngine rng(3);
  std::optional<Trace> mutated = mutator->Apply(c.trace, rng);
  ASSERT_TRUE(mutated.has_value());
  EXPECT_EQ(mutated->decisions(), c.trace.decisions());
  bool changed = false;
  for (size_t i = 0; i < c.trace.size(); ++i) {
    const Instruction& a = c.trace.instructions()[i];
    const Instruction& b = mutated->instructions()[i];
    if (a.kind == "Annotate" && a.inputs[1].kind == ArgKind::kInt &&
        a.inputs[1].value != b.inputs[1].value) {
      EXPECT_EQ(a.attrs[0], kParallelAnnotation);
      EXPECT_EQ(a.inputs[1].value, 32);
      EXPECT_TRUE(b.inputs[1].value == 2 || b.inputs[1].value == 4 || b.inputs[1].value == 8 ||
                  b.inputs[1].value == 16);
      changed = true;
    }
  }
  EXPECT_TRUE(changed);
  EXPECT_TRUE(ApplyTrace(f, *mutated, space.postprocs, 1, nullptr).has_value());
}

TEST(MutatorsTest, ComputeLocationPicksAnotherValidLocation) {
  // conv2d's padding block is placed by random_compute_location.
  ir::PrimFunc f = ir::zoo::ZooLookup("conv2d_stride2_pad1").build();
  DesignSpace space = MakeDesignSpace("cpu");
  Candidate c = SampleOf(f, space);
  auto mutator = MakeMutateComputeLocation();
  mutator->Initialize(testing::CpuContext(f));
  RandomEngine rng(9);
  for (int round = 0; round < 5; ++round) {
    std::optional<Trace> mutated = mutator->Apply(c.trace, rng);
    ASSERT_TRUE(mutated.has_value()) << c.trace.AsPython();
    std::vector<size_t> changed = ChangedDecisions(c.trace, *mutated);
    ASSERT_EQ(changed.size(), 1u);
    EXPECT_EQ(mutated->instructions()[changed[0]].kind, "SampleComputeLocation");
    EXPECT_TRUE(ApplyTrace(f, *mutated, space.postprocs, 1, nullptr).has_value())
        << mutated->AsPython();
  }
}

TEST(MutatorsTest, NothingToMutateIsNullopt) {
  Trace empty;
  RandomEngine rng(1);
  TuneContext context = testing::CpuContext(testing::MakeMatmul(4, 4, 4));
  for (auto make :
       {MakeMutateTileSize, MakeMutateComputeLocation, MakeMutateUnroll, MakeMutateParallel}) {
    auto mutator = make();
    mutator->Initialize(context);
    EXPECT_FALSE(mutator->Apply(empty, rng).has_value()) << mutator->Name();
  }
}

}  // namespace
}  // namespace kiln::search
