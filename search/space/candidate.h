// Candidates from sketches: replay a sketch's trace with fresh random decisions (or a trace
// with chosen decisions, such as a mutated one), then apply the postprocessors. This is the
// search's inner loop; a draw that fails is not an error but a count, by name: "replay" for a
// trace that does not apply, or the postprocessor that rejected it.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "search/schedule/random.h"
#include "search/schedule/trace.h"
#include "search/space/postproc.h"

namespace kiln::search {

struct SampleStats {
  int64_t tried = 0;
  int64_t kept = 0;
  std::map<std::string, int64_t> failures;  // "replay" or a postprocessor's name -> count
  void Merge(const SampleStats& other);
};

struct Candidate {
  // The program with its decisions, before postprocessing: what mutators change and what
  // ApplyTrace replays.
  Trace trace;
  // The trace after postprocessing (EnterPostproc, then the postprocessors' own calls, as TVM
  // writes them): replayed alone on the workload it gives `scheduled`, so it is the record to
  // store and to show; TVM replays its part before EnterPostproc with its own postprocessors.
  Trace postprocessed;
  ir::PrimFunc scheduled;
};

// `trace` without its decisions: every sampling instruction draws afresh when replayed.
Trace WithoutDecisions(const Trace& trace);

// Replays `trace` (decisions kept; sampling instructions without one draw from `seed`) on
// `workload` and applies `postprocs` (initialized) in order; nullopt when the replay or a
// postprocessor fails, counted in `stats` (which may be null). Of a postprocessed trace only
// the part before EnterPostproc is replayed.
std::optional<Candidate> ApplyTrace(const ir::PrimFunc& workload, const Trace& trace,
                                    const std::vector<std::unique_ptr<Postproc>>& postprocs,
                                    uint64_t seed, SampleStats* stats);

// A fresh candidate from `sketch`: every decision drawn anew from `rng`.
std::optional<Candidate> SampleCandidate(const ir::PrimFunc& workload, const Trace& sketch,
                                         const std::vector<std::unique_ptr<Postproc>>& postprocs,
                                         RandomEngine& rng, SampleStats* stats);

}  // namespace kiln::search
