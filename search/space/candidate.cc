// Sampling and replaying candidates.
#include "search/space/candidate.h"

#include "search/schedule/schedule.h"

namespace kiln::search {

void SampleStats::Merge(const SampleStats& other) {
  tried += other.tried;
  kept += other.kept;
  for (const auto& [name, count] : other.failures) failures[name] += count;
}

Trace WithoutDecisions(const Trace& trace) {
  Trace result;
  for (const Instruction& inst : trace.instructions()) result.Append(inst);
  return result;
}

std::optional<Candidate> ApplyTrace(const ir::PrimFunc& workload, const Trace& trace,
                                    const std::vector<std::unique_ptr<Postproc>>& postprocs,
                                    uint64_t seed, SampleStats* stats) {
  SampleStats local;
  SampleStats& s = stats ? *stats : local;
  ++s.tried;
  Schedule sch(workload, seed);
  // A postprocessed trace gives its design-space part; the postprocessors run again.
  std::optional<size_t> postproc = trace.PostprocStart();
  try {
    (postproc ? trace.Prefix(*postproc) : trace).ApplyTo(sch);
  } catch (const Error&) {
    ++s.failures["replay"];
    return std::nullopt;
  }
  Trace replayed = sch.trace();
  sch.EnterPostproc();
  for (const auto& postproc : postprocs) {
    bool ok = false;
    try {
      ok = postproc->Apply(sch);
    } catch (const Error&) {
      ok = false;
    }
    if (!ok) {
      ++s.failures[postproc->Name()];
      return std::nullopt;
    }
  }
  ++s.kept;
  return Candidate{std::move(replayed), sch.trace(), sch.func()};
}

std::optional<Candidate> SampleCandidate(const ir::PrimFunc& workload, const Trace& sketch,
                                         const std::vector<std::unique_ptr<Postproc>>& postprocs,
                                         RandomEngine& rng, SampleStats* stats) {
  return ApplyTrace(workload, WithoutDecisions(sketch), postprocs, rng.Next(), stats);
}

}  // namespace kiln::search
