// Postproc: a step applied to every sampled candidate after its trace is replayed (rewrite
// annotations into loop kinds, decompose reductions) that doubles as a validator: Apply
// returns false when the candidate must be rejected (a dynamic loop, a failed rewrite), and
// the caller counts the rejection by the postprocessor's name.
#pragma once

#include <memory>
#include <string>

#include "search/schedule/schedule.h"
#include "search/space/tune_context.h"

namespace kiln::search {

class Postproc {
 public:
  virtual ~Postproc() = default;
  virtual std::string Name() const = 0;
  virtual void Initialize(const TuneContext& context) = 0;
  // Rewrites `sch` in place; false (with `sch` in an unspecified state) rejects it.
  virtual bool Apply(Schedule& sch) = 0;
  virtual std::unique_ptr<Postproc> Clone() const = 0;
};

}  // namespace kiln::search
