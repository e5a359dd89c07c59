// Sampling and replaying candidates: fresh decisions, the postprocessed trace as a record
// that replays alone, and failures counted by name instead of thrown.
#include "search/space/candidate.h"

#include <gtest/gtest.h>

#include <set>

#include "ir/text/printer.h"
#include "search/space/design_space.h"
#include "tests/search/space/space_test_util.h"
#include "tests/search/test_funcs.h"

namespace kiln::search {
namespace {

class RejectAll : public Postproc {
 public:
  std::string Name() const override { return "reject_all"; }
  void Initialize(const TuneContext&) override {}
  bool Apply(Schedule&) override { return false; }
  std::unique_ptr<Postproc> Clone() const override { return std::make_unique<RejectAll>(); }
};

struct Fixture {
  ir::PrimFunc f = testing::MakeMatmul(24, 32, 16);
  DesignSpace space = MakeDesignSpace("cpu");
  std::vector<Schedule> sketches;
  Fixture() {
    TuneContext context = testing::CpuContext(f);
    space.Initialize(context);
    sketches = space.Sketches(context);
  }
};

TEST(CandidateTest, WithoutDecisionsDropsEveryDecision) {
  Fixture fx;
  const Trace& sketch = fx.sketches.at(0).trace();
  ASSERT_FALSE(sketch.decisions().empty());
  Trace bare = WithoutDecisions(sketch);
  EXPECT_TRUE(bare.decisions().empty());
  EXPECT_EQ(bare.size(), sketch.size());
}

TEST(CandidateTest, SampledCandidatesHaveFreshDecisionsAndAReplayableRecord) {
  Fixture fx;
  RandomEngine rng(42);
  SampleStats stats;
  std::set<std::string> distinct;
  for (const Schedule& sketch : fx.sketches) {
    for (int i = 0; i < 4; ++i) {
      std::optional<Candidate> c =
          SampleCandidate(fx.f, sketch.trace(), fx.space.postprocs, rng, &stats);
      if (!c) continue;
      distinct.insert(c->trace.ToJSON().dump());
      // Every sampling instruction of the sketch got a decision.
      EXPECT_EQ(c->trace.decisions().size(), sketch.trace().decisions().size());
      // The postprocessed trace alone gives the candidate.
      EXPECT_EQ(ir::PrintPrimFunc(ReplayTrace(fx.f, c->postprocessed)),
                ir::PrintPrimFunc(c->scheduled));
      // The pre-postprocessing trace plus the postprocessors give it too.
      std::optional<Candidate> again = ApplyTrace(fx.f, c->trace, fx.space.postprocs, 1, nullptr);
      ASSERT_TRUE(again.has_value());
      EXPECT_EQ(ir::PrintPrimFunc(again->scheduled), ir::PrintPrimFunc(c->scheduled));
      // The interpreter is the slow part: once a sketch.
      if (i == 0) {
        EXPECT_EQ(testing::CompareNumerics(fx.f, c->scheduled), "");
      }
    }
  }
  EXPECT_EQ(stats.tried, static_cast<int64_t>(4 * fx.sketches.size()));
  EXPECT_EQ(stats.kept, stats.tried) << "failures: " << stats.failures.size();
  EXPECT_GT(distinct.size(), fx.sketches.size());
}

TEST(CandidateTest, ThePostprocessedTraceMarksWherePostprocessingBegins) {
  Fixture fx;
  RandomEngine rng(7);
  std::optional<Candidate> c =
      SampleCandidate(fx.f, fx.sketches.at(0).trace(), fx.space.postprocs, rng, nullptr);
  ASSERT_TRUE(c.has_value());
  // EnterPostproc follows the design space's instructions exactly, as in TVM's records.
  std::optional<size_t> mark = c->postprocessed.PostprocStart();
  ASSERT_TRUE(mark.has_value());
  EXPECT_EQ(*mark, c->trace.size());
  EXPECT_FALSE(c->trace.PostprocStart().has_value());
  EXPECT_EQ(c->postprocessed.Prefix(*mark).ToJSON(), c->trace.ToJSON());
  EXPECT_GT(c->postprocessed.size(), *mark + 1) << "the postprocessors recorded nothing";
  // Given the record, ApplyTrace replays its design-space part and postprocesses it anew:
  // the same candidate, not the postprocessors applied twice.
  std::optional<Candidate> again =
      ApplyTrace(fx.f, c->postprocessed, fx.space.postprocs, 1, nullptr);
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->trace.ToJSON(), c->trace.ToJSON());
  EXPECT_EQ(again->postprocessed.ToJSON(), c->postprocessed.ToJSON());
  EXPECT_EQ(ir::PrintPrimFunc(again->scheduled), ir::PrintPrimFunc(c->scheduled));
}

TEST(CandidateTest, AReplayFailureIsCountedNotThrown) {
  Fixture fx;
  RandomEngine rng(1);
  SampleStats stats;
  // The matmul's sketch does not fit another function (no block "C" there).
  std::optional<Candidate> c = SampleCandidate(
      testing::MakeTwoStage(4, 4), fx.sketches.at(0).trace(), fx.space.postprocs, rng, &stats);
  EXPECT_FALSE(c.has_value());
  EXPECT_EQ(stats.tried, 1);
  EXPECT_EQ(stats.kept, 0);
  EXPECT_EQ(stats.failures["replay"], 1);
}

TEST(CandidateTest, ARejectingPostprocessorIsCountedByName) {
  Fixture fx;
  std::vector<std::unique_ptr<Postproc>> postprocs;
  postprocs.push_back(std::make_unique<RejectAll>());
  RandomEngine rng(1);
  SampleStats stats;
  EXPECT_FALSE(SampleCandidate(fx.f, fx.sketches.at(0).trace(), postprocs, rng, &stats));
  EXPECT_EQ(stats.failures["reject_all"], 1);
  SampleStats total;
  total.Merge(stats);
  total.Merge(stats);
  EXPECT_EQ(total.tried, 2);
  EXPECT_EQ(total.failures["reject_all"], 2);
}

TEST(CandidateTest, UnknownPresetNamesTheKnownOnes) {
  try {
    MakeDesignSpace("tpu");
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("cpu"), std::string::npos) << e.what();
  }
  DesignSpace cpu = MakeDesignSpace("cpu");
  DesignSpace copy = cpu.Clone();
  EXPECT_EQ(copy.rules.size(), cpu.rules.size());
  EXPECT_EQ(copy.mutators.size(), 4u);
  double total = 0;
  for (const auto& m : copy.mutators) total += m.probability;
  EXPECT_NEAR(total, 1.0, 1e-9);
}

}  // namespace
}  // namespace kiln::search
