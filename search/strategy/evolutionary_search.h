// Evolutionary search (MetaSchedule's EvolutionarySearch), guided by a cost model. Each
// round: an initial population of the best measured traces of the workload (a share of the
// population, replayed with their decisions) and fresh samples of the sketches; a few
// generations in which parents drawn in proportion to their predicted score are mutated
// (or copied) and replayed; then the best-scored candidates never proposed before, plus a
// few fresh random ones (epsilon-greedy) so that a wrong model cannot starve exploration.
// Without a model every score is equal: selection and ranking are random.
#pragma once

#include <limits>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "search/schedule/random.h"
#include "search/strategy/search_strategy.h"

namespace kiln::search {

struct EvolutionaryOptions {
  int population_size = 512;
  // A round of n candidates evolves a population of min(population_size, max(min_population,
  // n * population_per_trial)): a family follower's round of 3 needs no 512 (0: always
  // population_size).
  int population_per_trial = 64;
  int min_population = 64;
  double init_measured_ratio = 0.2;  // share of the population seeded from measured traces
  int init_min_unmeasured = 50;      // fresh samples the population needs at least
  int max_sample_draws = 0;          // draws for the fresh samples; 0: 4 * population + 100
  int genetic_num_iters = 4;
  double genetic_mutate_prob = 0.85;
  int genetic_max_fail_count = 10;  // draws per child before a slot is left empty
  double eps_greedy = 0.05;         // share of each round taken from fresh random samples
};

class EvolutionarySearch : public SearchStrategy {
 public:
  // `model` (not owned, may be null) scores candidates and learns from Notify. `seeds` are
  // measured traces of the workload from earlier jobs.
  EvolutionarySearch(const TuneContext& context, DesignSpace space, CostModel* model,
                     EvolutionaryOptions options = {}, std::vector<MeasuredTrace> seeds = {});
  std::string Name() const override { return "evolutionary"; }
  std::vector<SearchCandidate> Generate(int n) override;
  // Each trace carried to this workload joins the next round's population and is measured in
  // it (a neighbouring shape's best is worth a measurement more than a model score).
  void AddHints(const std::vector<Trace>& traces) override;
  void Notify(const std::vector<SearchCandidate>& candidates,
              const std::vector<double>& run_seconds) override;
  const SearchStats& Stats() const override { return stats_; }

 private:
  struct Measured {
    SearchCandidate candidate;
    double run_seconds;
  };
  // Where a proposed candidate came from and what the model predicted for it: the round's
  // debug log compares the prediction with the measurement.
  enum class Origin { kFresh, kMutant, kRandom };
  struct Proposal {
    Origin origin;
    double score;
    int64_t round;
  };
  // What a round's measured candidates showed, logged once all of them are heard.
  struct RoundLog {
    int outstanding = 0;
    int failed = 0;
    int count_by[3] = {0, 0, 0};
    int improved_by[3] = {0, 0, 0};
    double best = std::numeric_limits<double>::infinity();
    double best_before = std::numeric_limits<double>::infinity();
    std::vector<double> predicted, throughput;
  };
  void LogRound(int64_t round, const RoundLog& log) const;
  // The population a round of `n` candidates evolves.
  int RoundPopulation(int n) const;
  std::vector<SearchCandidate> SampleFresh(int wanted, int min_valid, int population);
  std::vector<double> Score(const std::vector<SearchCandidate>& population);
  std::vector<SearchCandidate> NextGeneration(const std::vector<SearchCandidate>& population,
                                              const std::vector<double>& scores, int size);
  std::optional<SearchCandidate> Mutate(const SearchCandidate& parent);
  std::optional<SearchCandidate> Replay(const Trace& trace, uint64_t seed);
  // A measured trace as a candidate. A stored record is the postprocessed trace, which
  // replays alone to its scheduled function; its mutable part is the prefix before the
  // postprocessors' calls: the part before EnterPostproc, or (a record without the mark) the
  // shortest prefix holding every sampling instruction whose postprocessing gives the same
  // function. A trace without postprocessing replays as it is.
  std::optional<SearchCandidate> ReplaySeed(const Trace& trace);

  TuneContext context_;
  DesignSpace space_;
  std::vector<Trace> sketches_;
  CostModel* model_;
  EvolutionaryOptions options_;
  RandomEngine rng_;
  std::vector<double> mutator_weights_;
  std::vector<Measured> measured_;  // correct measurements, ascending by time once sorted
  std::unordered_set<uint64_t> proposed_;
  std::vector<SearchCandidate> hints_;           // carried from other shapes, measured next round
  std::unordered_map<uint64_t, Origin> origin_;  // of candidates met in the current round
  std::unordered_map<uint64_t, Proposal> pending_;  // proposed, not yet measured
  std::map<int64_t, RoundLog> round_logs_;
  int64_t round_ = 0;
  int64_t gen_failed_ = 0, gen_duplicate_ = 0;  // children lost in the current round
  SearchStats stats_;
};

}  // namespace kiln::search
