// Helpers every strategy shares: hashing candidates, tracing sketches.
#include "search/strategy/search_strategy.h"

#include "ir/structural.h"
#include "support/error.h"

namespace kiln::search {

SearchCandidate MakeSearchCandidate(Candidate candidate) {
  SearchCandidate out;
  out.hash = ir::StructuralHash(candidate.scheduled);
  out.trace = std::move(candidate.trace);
  out.record = std::move(candidate.postprocessed);
  out.scheduled = std::move(candidate.scheduled);
  return out;
}

std::vector<Trace> SketchTraces(const DesignSpace& space, const TuneContext& context) {
  std::vector<Trace> traces;
  for (const Schedule& sketch : space.Sketches(context)) {
    traces.push_back(WithoutDecisions(sketch.trace()));
  }
  KILN_CHECK(!traces.empty(), ErrorKind::kSchedule,
             "task " + context.task_name + ": the design space has no sketch");
  return traces;
}

}  // namespace kiln::search
