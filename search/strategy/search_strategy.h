// SearchStrategy: how the candidates of one task are chosen, round after round. A strategy
// draws from the task's design space (sketches, postprocessors, mutators), proposes
// candidates never measured before (structural dedupe: nothing is measured twice), and
// learns from the measured results it is notified of. Two strategies: replay-trace (fresh
// random samples, the baseline) and evolutionary search guided by a cost model.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "ir/function.h"
#include "search/schedule/trace.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/tune_context.h"
#include "search/strategy/cost_model.h"

namespace kiln::search {

// One proposed candidate.
struct SearchCandidate {
  Trace trace;             // the sketch's instructions with this candidate's decisions
  Trace record;            // `trace` plus what the postprocessors did: replays to `scheduled`
  ir::PrimFunc scheduled;  // after postprocessing: what is measured and scored
  uint64_t hash = 0;       // ir::StructuralHash(scheduled)
};

// A space candidate (search/space/candidate.h) with its structural hash.
SearchCandidate MakeSearchCandidate(Candidate candidate);

// The traces of the sketches of `space` (initialized for `context`) for `context.workload`;
// kiln::Error(kSchedule) naming the task when there is none.
std::vector<Trace> SketchTraces(const DesignSpace& space, const TuneContext& context);

// A measured trace of the workload (from this job or an earlier one) that seeds a search.
struct MeasuredTrace {
  Trace trace;
  double run_seconds = 0;  // <= 0: it failed
};

// Why draws were thrown away, by reason: "replay" (a trace that no longer fits), a
// postprocessor's name, "mutator:<name>" (a mutator with nothing to change, or whose
// result did not replay), "duplicate" (structurally equal to one measured or proposed).
using RejectionCounts = std::map<std::string, int64_t>;

struct SearchStats {
  int64_t sampled = 0;   // fresh samples that survived replay and postprocessing
  int64_t mutated = 0;   // mutations that did
  int64_t proposed = 0;  // candidates handed out for measurement
  int64_t hinted = 0;    // traces of other shapes that carried over (AddHints)
  RejectionCounts rejected;
  double seconds = 0;  // wall time spent in Generate and Notify
};

class SearchStrategy {
 public:
  virtual ~SearchStrategy() = default;
  virtual std::string Name() const = 0;
  // Up to `n` candidates structurally different from every candidate proposed before;
  // fewer, or none, when the space has no more to give.
  virtual std::vector<SearchCandidate> Generate(int n) = 0;
  // Measured results of candidates proposed before (any subset, any order): run_seconds[i]
  // is the median time of candidates[i], or <= 0 when it failed.
  virtual void Notify(const std::vector<SearchCandidate>& candidates,
                      const std::vector<double>& run_seconds) = 0;
  virtual const SearchStats& Stats() const = 0;
  // Good traces of the same operator at other shapes (carried over by TransferTrace): a
  // strategy may measure them early and search around them. Ignored by default.
  virtual void AddHints(const std::vector<Trace>& /*traces*/) {}
};

}  // namespace kiln::search
