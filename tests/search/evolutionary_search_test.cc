// The evolutionary search guided by a trained model, without measuring: the XGBoost model
// trained on the committed matmul 256 measurements (tests/data/cost_model/) scores the cpu
// design space's candidates of the same workload. Seeded, the guided search's picks must score
// far above what replay-trace draws from the same space: parents are drawn by score and
// children ranked by score.
#include "search/strategy/evolutionary_search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "cost_model/tools/dataset.h"
#include "cost_model/xgb_cost_model.h"
#include "search/space/design_space.h"
#include "search/strategy/replay_trace.h"
#include "tests/testing/golden.h"

namespace kiln::search {
namespace {

struct Trained {
  cost_model::tools::Dataset data;
  std::unique_ptr<cost_model::XgbCostModel> model;
};

// Built once and never destroyed: XGBoost's own static objects may be gone by the time a
// static Booster would be freed at exit (that crashed after every test had passed).
const Trained& Matmul256() {
  static const Trained* trained = [] {
    auto* t_ptr = new Trained;
    Trained& t = *t_ptr;
    t.data = cost_model::tools::LoadDataset(
        kiln::testing::SourcePath("tests/data/cost_model/matmul_256.json").string());
    t.model = std::make_unique<cost_model::XgbCostModel>();
    TuneContext context;
    context.workload = t.data.workload;
    context.task_name = t.data.name;
    std::vector<CostModelCandidate> candidates;
    for (const ir::PrimFunc& f : t.data.scheduled) candidates.push_back({&f});
    t.model->Update(context, candidates, t.data.run_seconds);
    return t_ptr;
  }();
  return *trained;
}

TuneContext Context(uint64_t seed) {
  TuneContext context;
  context.workload = Matmul256().data.workload;
  context.task_name = "matmul_256";
  context.num_cores = 2;
  context.vector_bytes = 64;
  context.seed = seed;
  return context;
}

std::vector<double> Scores(const std::vector<SearchCandidate>& picks) {
  std::vector<CostModelCandidate> view;
  for (const SearchCandidate& c : picks) view.push_back({&c.scheduled});
  return Matmul256().model->Predict(Context(1), view);
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

EvolutionaryOptions SmallPopulation() {
  EvolutionaryOptions options;
  options.population_size = 128;
  return options;
}

TEST(EvolutionarySearchTest, GuidedPicksScoreAboveRandomDraws) {
  const Trained& t = Matmul256();
  ASSERT_TRUE(t.model->trained());
  for (uint64_t seed : {1, 2}) {
    EvolutionarySearch guided(Context(seed), MakeDesignSpace("llvm"), t.model.get(),
                              SmallPopulation());
    ReplayTraceStrategy random(Context(seed), MakeDesignSpace("llvm"));
    std::vector<SearchCandidate> guided_picks = guided.Generate(16);
    std::vector<SearchCandidate> random_picks = random.Generate(16);
    ASSERT_EQ(guided_picks.size(), 16u);
    ASSERT_EQ(random_picks.size(), 16u);
    std::vector<double> g = Scores(guided_picks), r = Scores(random_picks);
    std::cout << "seed " << seed << ": guided picks' scores median " << Median(g) << ", min "
              << *std::min_element(g.begin(), g.end()) << "; random draws' median " << Median(r)
              << ", max " << *std::max_element(r.begin(), r.end()) << "\n";
    // Sixteen picks from the top of about 500 ranked candidates against sixteen draws.
    EXPECT_GT(Median(g), *std::max_element(r.begin(), r.end()));
  }
}

// A round evolves a population in proportion to its candidates (64 a candidate, at least 64),
// not the whole 512: a family follower's round of one costs an eighth of a full round.
TEST(EvolutionarySearchTest, SmallRoundsEvolveSmallPopulations) {
  EvolutionaryOptions options;
  options.population_size = 512;
  EvolutionarySearch search(Context(3), MakeDesignSpace("llvm"), Matmul256().model.get(), options);
  ASSERT_EQ(search.Generate(1).size(), 1u);
  int64_t small = search.Stats().sampled;
  EXPECT_GE(small, 64);
  EXPECT_LT(small, 128);
  ASSERT_EQ(search.Generate(8).size(), 8u);
  EXPECT_GE(search.Stats().sampled - small, 448);  // 8 x 64: the whole population
}

// Carried traces (another shape's best) are measured first; a round they fill is theirs alone,
// with no sampling or generations spent on candidates that could not be picked, and the ones
// left over lead the next round.
TEST(EvolutionarySearchTest, CarriedTracesFillARoundWithoutEvolving) {
  EvolutionarySearch source(Context(4), MakeDesignSpace("llvm"), Matmul256().model.get(),
                            SmallPopulation());
  std::vector<SearchCandidate> best = source.Generate(3);
  ASSERT_EQ(best.size(), 3u);
  std::vector<Trace> carried;
  for (const SearchCandidate& c : best) carried.push_back(c.record);

  EvolutionarySearch search(Context(5), MakeDesignSpace("llvm"), Matmul256().model.get(),
                            SmallPopulation());
  search.AddHints(carried);
  search.AddHints(carried);  // carried again (another shape's best, the same candidates)
  EXPECT_EQ(search.Stats().hinted, 3);
  std::vector<SearchCandidate> first = search.Generate(2);
  ASSERT_EQ(first.size(), 2u);
  EXPECT_EQ(first[0].hash, best[0].hash);
  EXPECT_EQ(first[1].hash, best[1].hash);
  EXPECT_EQ(search.Stats().sampled, 0);
  EXPECT_EQ(search.Stats().mutated, 0);

  std::vector<SearchCandidate> second = search.Generate(4);
  ASSERT_EQ(second.size(), 4u);
  EXPECT_EQ(second[0].hash, best[2].hash);
  EXPECT_GT(search.Stats().sampled, 0);
  for (size_t i = 1; i < second.size(); ++i) {
    for (const SearchCandidate& b : best) EXPECT_NE(second[i].hash, b.hash);
  }
}

}  // namespace
}  // namespace kiln::search
