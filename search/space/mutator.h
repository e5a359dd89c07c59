// Mutator: proposes a neighbour of a candidate by changing decisions of its trace (a tile
// size moved between levels, another unroll step, another compute location). The result is
// only a proposal: the search replays it on the workload and counts a failed replay.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "search/schedule/random.h"
#include "search/schedule/trace.h"
#include "search/space/tune_context.h"

namespace kiln::search {

class Mutator {
 public:
  virtual ~Mutator() = default;
  virtual std::string Name() const = 0;
  virtual void Initialize(const TuneContext& context) = 0;
  // A trace with changed decisions, or nullopt when the trace has nothing this mutator can
  // change.
  virtual std::optional<Trace> Apply(const Trace& trace, RandomEngine& rng) = 0;
  virtual std::unique_ptr<Mutator> Clone() const = 0;
};

}  // namespace kiln::search
