// Replay-trace: fresh samples of the sketches, deduplicated.
#include "search/strategy/replay_trace.h"

#include <chrono>

#include "support/error.h"

namespace kiln::search {

ReplayTraceStrategy::ReplayTraceStrategy(const TuneContext& context, DesignSpace space,
                                         ReplayTraceOptions options)
    : workload_(context.workload), space_(std::move(space)), options_(options), rng_(context.seed) {
  space_.Initialize(context);
  sketches_ = SketchTraces(space_, context);
}

std::vector<SearchCandidate> ReplayTraceStrategy::Generate(int n) {
  auto start = std::chrono::steady_clock::now();
  std::vector<SearchCandidate> out;
  int64_t draws_left = static_cast<int64_t>(n) * options_.max_draws_per_candidate;
  while (static_cast<int>(out.size()) < n && draws_left-- > 0) {
    const Trace& sketch =
        sketches_[static_cast<size_t>(rng_.UniformInt(0, static_cast<int64_t>(sketches_.size())))];
    SampleStats sample_stats;
    auto sampled = SampleCandidate(workload_, sketch, space_.postprocs, rng_, &sample_stats);
    for (const auto& [why, count] : sample_stats.failures) stats_.rejected[why] += count;
    if (!sampled) continue;
    ++stats_.sampled;
    SearchCandidate candidate = MakeSearchCandidate(std::move(*sampled));
    if (!proposed_.insert(candidate.hash).second) {
      ++stats_.rejected["duplicate"];
      continue;
    }
    out.push_back(std::move(candidate));
  }
  stats_.proposed += static_cast<int64_t>(out.size());
  stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

void ReplayTraceStrategy::Notify(const std::vector<SearchCandidate>&, const std::vector<double>&) {}

}  // namespace kiln::search
