// Evolutionary search: initial population, generations of mutation, epsilon-greedy pick.
#include "search/strategy/evolutionary_search.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <unordered_map>

#include "ir/structural.h"
#include "search/schedule/instruction.h"
#include "search/schedule/trace_transfer.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::search {

EvolutionarySearch::EvolutionarySearch(const TuneContext& context, DesignSpace space,
                                       CostModel* model, EvolutionaryOptions options,
                                       std::vector<MeasuredTrace> seeds)
    : context_(context),
      space_(std::move(space)),
      model_(model),
      options_(options),
      rng_(context.seed) {
  KILN_CHECK(options_.population_size > 0 && options_.population_per_trial >= 0 &&
                 options_.min_population > 0 && options_.genetic_num_iters >= 0 &&
                 options_.init_measured_ratio >= 0 && options_.init_measured_ratio <= 1 &&
                 options_.eps_greedy >= 0 && options_.eps_greedy <= 1 &&
                 options_.genetic_mutate_prob >= 0 && options_.genetic_mutate_prob <= 1,
             ErrorKind::kParse,
             "evolutionary search options: populations > 0, generations >= 0 and the "
             "ratios and probabilities in [0, 1] expected");
  space_.Initialize(context_);
  sketches_ = SketchTraces(space_, context_);
  for (const WeightedMutator& m : space_.mutators) {
    mutator_weights_.push_back(std::max(0.0, m.probability));
  }
  for (const MeasuredTrace& seed : seeds) {
    if (seed.run_seconds <= 0) continue;
    auto candidate = ReplaySeed(seed.trace);
    if (!candidate) continue;
    proposed_.insert(candidate->hash);
    measured_.push_back({std::move(*candidate), seed.run_seconds});
  }
}

std::optional<SearchCandidate> EvolutionarySearch::Replay(const Trace& trace, uint64_t seed) {
  SampleStats sample_stats;
  auto candidate = ApplyTrace(context_.workload, trace, space_.postprocs, seed, &sample_stats);
  for (const auto& [why, count] : sample_stats.failures) stats_.rejected[why] += count;
  if (!candidate) return std::nullopt;
  return MakeSearchCandidate(std::move(*candidate));
}

std::optional<SearchCandidate> EvolutionarySearch::ReplaySeed(const Trace& trace) {
  ir::PrimFunc recorded;
  try {
    recorded = ReplayTrace(context_.workload, trace);
  } catch (const Error&) {
    return Replay(trace, 1);  // not a record of this workload: maybe a pre-postproc trace
  }
  uint64_t hash = ir::StructuralHash(recorded);
  SampleStats ignored;
  // A record that marks its postprocessing: its design-space part is the prefix.
  if (trace.PostprocStart()) {
    auto candidate = ApplyTrace(context_.workload, trace, space_.postprocs, 1, &ignored);
    if (candidate && ir::StructuralHash(candidate->scheduled) == hash) {
      return MakeSearchCandidate(std::move(*candidate));
    }
  }
  // Otherwise (records written before the mark, or postprocessed elsewhere) the prefix is
  // searched for.
  size_t first = 0;
  for (size_t i = 0; i < trace.size(); ++i) {
    const InstructionKind* kind = LookupInstructionKind(trace.instructions()[i].kind);
    if (kind != nullptr && kind->is_sampling) first = i + 1;
  }
  for (size_t n = std::max<size_t>(first, 1); n <= trace.size(); ++n) {
    auto candidate = ApplyTrace(context_.workload, trace.Prefix(n), space_.postprocs, 1, &ignored);
    if (candidate && ir::StructuralHash(candidate->scheduled) == hash) {
      return MakeSearchCandidate(std::move(*candidate));
    }
  }
  // Not a record: a trace before postprocessing replays with them.
  if (auto candidate = Replay(trace, 1)) return candidate;
  // No prefix postprocesses to it: keep it as it is, so that it is never measured again,
  // though mutations of it will not replay.
  return MakeSearchCandidate(Candidate{trace, trace, recorded});
}

int EvolutionarySearch::RoundPopulation(int n) const {
  if (options_.population_per_trial <= 0) return options_.population_size;
  int64_t wanted =
      std::max<int64_t>(options_.min_population, int64_t{n} * options_.population_per_trial);
  return static_cast<int>(std::min<int64_t>(options_.population_size, wanted));
}

std::vector<SearchCandidate> EvolutionarySearch::SampleFresh(int wanted, int min_valid,
                                                             int population) {
  std::vector<SearchCandidate> out;
  std::unordered_set<uint64_t> seen;
  int valid_unmeasured = 0;
  int64_t draws =
      options_.max_sample_draws > 0 ? options_.max_sample_draws : 4 * int64_t{population} + 100;
  while (draws-- > 0 && (static_cast<int>(out.size()) < wanted || valid_unmeasured < min_valid)) {
    const Trace& sketch =
        sketches_[static_cast<size_t>(rng_.UniformInt(0, static_cast<int64_t>(sketches_.size())))];
    auto candidate = Replay(sketch, rng_.ForkSeed());
    if (!candidate) continue;
    ++stats_.sampled;
    if (!seen.insert(candidate->hash).second) continue;
    if (!proposed_.count(candidate->hash)) ++valid_unmeasured;
    origin_.emplace(candidate->hash, Origin::kFresh);
    out.push_back(std::move(*candidate));
  }
  return out;
}

std::vector<double> EvolutionarySearch::Score(const std::vector<SearchCandidate>& population) {
  if (!model_) return std::vector<double>(population.size(), 1.0);
  std::vector<CostModelCandidate> view;
  view.reserve(population.size());
  for (const SearchCandidate& c : population) view.push_back({&c.scheduled});
  std::vector<double> scores = model_->Predict(context_, view);
  KILN_CHECK(scores.size() == population.size(), ErrorKind::kInternal,
             "the cost model returned " + std::to_string(scores.size()) + " scores for " +
                 std::to_string(population.size()) + " candidates");
  return scores;
}

std::optional<SearchCandidate> EvolutionarySearch::Mutate(const SearchCandidate& parent) {
  if (mutator_weights_.empty()) return std::nullopt;
  double total = 0;
  for (double w : mutator_weights_) total += w;
  if (total <= 0) return std::nullopt;
  Mutator& mutator =
      *space_.mutators[static_cast<size_t>(SampleWeighted(rng_, mutator_weights_))].mutator;
  std::optional<Trace> trace;
  try {
    trace = mutator.Apply(parent.trace, rng_);
  } catch (const Error&) {
    trace.reset();
  }
  if (!trace) {
    ++stats_.rejected["mutator:" + mutator.Name()];
    return std::nullopt;
  }
  auto child = Replay(*trace, rng_.ForkSeed());
  if (child) ++stats_.mutated;
  return child;
}

std::vector<SearchCandidate> EvolutionarySearch::NextGeneration(
    const std::vector<SearchCandidate>& population, const std::vector<double>& scores, int size) {
  // Parents in proportion to their score; a model's scores may be negative or all zero.
  std::vector<double> weights(scores.size());
  double low = *std::min_element(scores.begin(), scores.end());
  for (size_t i = 0; i < scores.size(); ++i) {
    weights[i] = std::max(0.0, scores[i] - std::min(0.0, low)) + 1e-9;
  }
  std::vector<SearchCandidate> next;
  std::unordered_set<uint64_t> seen;
  for (int slot = 0; slot < size; ++slot) {
    for (int attempt = 0; attempt < options_.genetic_max_fail_count; ++attempt) {
      const SearchCandidate& parent =
          population[static_cast<size_t>(SampleWeighted(rng_, weights))];
      std::optional<SearchCandidate> child;
      if (rng_.UniformReal() < options_.genetic_mutate_prob) {
        child = Mutate(parent);
        if (!child) {
          ++gen_failed_;
          continue;
        }
        origin_.emplace(child->hash, Origin::kMutant);
      } else {
        child = parent;
      }
      if (!seen.insert(child->hash).second) {
        ++gen_duplicate_;
        continue;
      }
      next.push_back(std::move(*child));
      break;
    }
  }
  return next;
}

void EvolutionarySearch::AddHints(const std::vector<Trace>& traces) {
  auto start = std::chrono::steady_clock::now();
  for (const Trace& trace : traces) {
    std::optional<Trace> carried = TransferTrace(trace, context_.workload);
    std::optional<SearchCandidate> candidate;
    if (carried) candidate = ReplaySeed(*carried);
    if (!candidate) {
      ++stats_.rejected["hint"];
      continue;
    }
    if (proposed_.count(candidate->hash)) continue;
    // Two shapes' bests may carry over to the same candidate.
    auto same = [&](const SearchCandidate& c) { return c.hash == candidate->hash; };
    if (std::any_of(hints_.begin(), hints_.end(), same)) continue;
    ++stats_.hinted;
    hints_.push_back(std::move(*candidate));
  }
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

std::vector<SearchCandidate> EvolutionarySearch::Generate(int n) {
  auto start = std::chrono::steady_clock::now();
  std::vector<SearchCandidate> out;
  if (n <= 0) return out;
  origin_.clear();
  gen_failed_ = gen_duplicate_ = 0;
  ++round_;

  // Initial population: the best measured, then fresh samples.
  std::sort(measured_.begin(), measured_.end(),
            [](const Measured& a, const Measured& b) { return a.run_seconds < b.run_seconds; });
  int population_size = RoundPopulation(n);
  size_t num_seeds = 0;
  std::vector<SearchCandidate> population, fresh;
  // Carried traces are measured first: a round they fill needs no evolution (a family
  // follower's first rounds), and those left over wait for the next round.
  bool evolve = static_cast<int>(hints_.size()) < n;
  if (evolve) {
    num_seeds = std::min(measured_.size(),
                         static_cast<size_t>(population_size * options_.init_measured_ratio));
    for (size_t i = 0; i < num_seeds; ++i) population.push_back(measured_[i].candidate);
    fresh = SampleFresh(population_size - static_cast<int>(num_seeds),
                        std::min(options_.init_min_unmeasured, n), population_size);
    population.insert(population.end(), fresh.begin(), fresh.end());
    population.insert(population.end(), hints_.begin(), hints_.end());
  }

  // Generations: every unproposed candidate met is kept with its latest score.
  std::unordered_map<uint64_t, std::pair<double, SearchCandidate>> pool;
  std::vector<size_t> population_sizes;
  for (int gen = 0; !population.empty(); ++gen) {
    population_sizes.push_back(population.size());
    std::vector<double> scores = Score(population);
    for (size_t i = 0; i < population.size(); ++i) {
      if (proposed_.count(population[i].hash)) continue;
      pool.insert_or_assign(population[i].hash, std::make_pair(scores[i], population[i]));
    }
    if (gen == options_.genetic_num_iters) break;
    population = NextGeneration(population, scores, population_size);
  }

  std::vector<std::pair<double, SearchCandidate>> ranked;
  ranked.reserve(pool.size());
  for (auto& [hash, entry] : pool) ranked.push_back(std::move(entry));
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second.hash < b.second.hash;
  });

  // Epsilon-greedy: most from the top of the ranking, a few fresh random ones.
  int num_random = static_cast<int>(n * options_.eps_greedy);
  std::unordered_map<uint64_t, double> score_of;
  for (const auto& [score, candidate] : ranked) score_of[candidate.hash] = score;
  bool picking_random = false;
  auto take = [&](const SearchCandidate& c) {
    if (static_cast<int>(out.size()) >= n) return;
    if (!proposed_.insert(c.hash).second) return;
    out.push_back(c);
    auto it = origin_.find(c.hash);
    Origin origin =
        picking_random ? Origin::kRandom : (it == origin_.end() ? Origin::kFresh : it->second);
    auto score = score_of.find(c.hash);
    pending_[c.hash] = {origin, score == score_of.end() ? std::nan("") : score->second, round_};
  };
  std::vector<SearchCandidate> hints_left;
  for (SearchCandidate& hint : hints_) {
    if (static_cast<int>(out.size()) < n) {
      take(hint);
    } else {
      hints_left.push_back(std::move(hint));
    }
  }
  hints_ = std::move(hints_left);
  for (const auto& [score, candidate] : ranked) {
    if (static_cast<int>(out.size()) >= n - num_random) break;
    take(candidate);
  }
  picking_random = true;
  std::vector<size_t> order(fresh.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  for (size_t i = order.size(); i > 1; --i) {
    std::swap(order[i - 1],
              order[static_cast<size_t>(rng_.UniformInt(0, static_cast<int64_t>(i)))]);
  }
  for (size_t i : order) take(fresh[i]);
  picking_random = false;
  for (const auto& [score, candidate] : ranked) take(candidate);  // when fresh ran short

  RoundLog& log = round_logs_[round_];
  log.outstanding = static_cast<int>(out.size());
  for (const Measured& m : measured_) log.best_before = std::min(log.best_before, m.run_seconds);
  if (out.empty()) round_logs_.erase(round_);
  int by_origin[3] = {0, 0, 0};
  for (const SearchCandidate& c : out) ++by_origin[static_cast<int>(pending_[c.hash].origin)];
  int pool_mutants = 0;
  for (const auto& [hash, entry] : pool) {
    auto it = origin_.find(hash);
    if (it != origin_.end() && it->second == Origin::kMutant) ++pool_mutants;
  }
  std::string sizes;
  for (size_t size : population_sizes) sizes += (sizes.empty() ? "" : "/") + std::to_string(size);
  // Diversity of the picks: distinct decisions per decision site, averaged over the sites.
  std::map<size_t, std::set<std::string>> decisions_at;
  for (const SearchCandidate& c : out) {
    for (const auto& [site, decision] : c.trace.decisions())
      decisions_at[site].insert(decision.dump());
  }
  double distinct = 0;
  for (const auto& [site, values] : decisions_at) distinct += static_cast<double>(values.size());
  if (!decisions_at.empty()) distinct /= static_cast<double>(decisions_at.size());
  KILN_LOG_DEBUG(
      "evolutionary {} round {}: population {} ({} measured seeds, {} fresh), generations {}; "
      "{} mutations failed, {} duplicate children; pool {} unproposed ({} mutants); picked {} "
      "fresh, {} mutants, {} random ({:.1f} distinct decisions per site); scores of the ranked top "
      "{:.3f}, 8th {:.3f}, last picked {:.3f}",
      context_.task_name, round_, num_seeds + fresh.size(), num_seeds, fresh.size(), sizes,
      gen_failed_, gen_duplicate_, pool.size(), pool_mutants, by_origin[0], by_origin[1],
      by_origin[2], distinct, ranked.empty() ? 0.0 : ranked[0].first,
      ranked.size() > 7 ? ranked[7].first : 0.0,
      ranked.empty() ? 0.0 : ranked[std::min(ranked.size(), out.size()) - 1].first);

  stats_.proposed += static_cast<int64_t>(out.size());
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

void EvolutionarySearch::LogRound(int64_t round, const RoundLog& log) const {
  double concordant = 0, discordant = 0;
  for (size_t i = 0; i < log.predicted.size(); ++i) {
    for (size_t j = i + 1; j < log.predicted.size(); ++j) {
      double d = (log.predicted[i] - log.predicted[j]) * (log.throughput[i] - log.throughput[j]);
      if (d > 0) ++concordant;
      if (d < 0) ++discordant;
    }
  }
  KILN_LOG_DEBUG(
      "evolutionary {} round {} measured ({} failed): fresh/mutant/random {}/{}/{}, beating "
      "the best before the round {}/{}/{}; best of the round {:.3g} s, best before {:.3g} s; "
      "predicted vs measured tau {:.3f}",
      context_.task_name, round, log.failed, log.count_by[0], log.count_by[1], log.count_by[2],
      log.improved_by[0], log.improved_by[1], log.improved_by[2], log.best, log.best_before,
      concordant + discordant > 0 ? (concordant - discordant) / (concordant + discordant) : 0.0);
}

void EvolutionarySearch::Notify(const std::vector<SearchCandidate>& candidates,
                                const std::vector<double>& run_seconds) {
  auto start = std::chrono::steady_clock::now();
  KILN_CHECK(candidates.size() == run_seconds.size(), ErrorKind::kInternal,
             "Notify: one time per candidate expected");
  for (size_t i = 0; i < candidates.size(); ++i) {
    proposed_.insert(candidates[i].hash);
    if (run_seconds[i] > 0) measured_.push_back({candidates[i], run_seconds[i]});
    auto it = pending_.find(candidates[i].hash);
    if (it == pending_.end()) continue;
    const Proposal p = it->second;
    RoundLog& log = round_logs_[p.round];
    int o = static_cast<int>(p.origin);
    ++log.count_by[o];
    if (run_seconds[i] <= 0) ++log.failed;
    if (run_seconds[i] > 0 && run_seconds[i] < log.best_before) ++log.improved_by[o];
    if (run_seconds[i] > 0) log.best = std::min(log.best, run_seconds[i]);
    if (!std::isnan(p.score)) {
      log.predicted.push_back(p.score);
      log.throughput.push_back(run_seconds[i] > 0 ? 1 / run_seconds[i] : 0);
    }
    pending_.erase(it);
    if (--log.outstanding == 0) {
      LogRound(p.round, log);
      round_logs_.erase(p.round);
    }
  }
  if (model_ && !candidates.empty()) {
    std::vector<CostModelCandidate> view;
    for (const SearchCandidate& c : candidates) view.push_back({&c.scheduled});
    model_->Update(context_, view, run_seconds);
  }
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace kiln::search
