// ScheduleRule: one idea of how to schedule a block (tile it, inline it, parallelize it),
// applied by the space generator to every block in post order. A rule may fork the schedule
// into several (one per alternative it proposes) and records every random choice as a
// sampling instruction, so that the trace of a sketch can be re-sampled and mutated.
// One rule per file under search/space/rules/; presets per target in search/space/preset.h.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "search/schedule/schedule.h"
#include "search/space/tune_context.h"

namespace kiln::search {

class ScheduleRule {
 public:
  virtual ~ScheduleRule() = default;
  virtual std::string Name() const = 0;
  virtual void Initialize(const TuneContext& context) = 0;
  // The schedules that result from applying the rule to `block` of `sch`: {sch} unchanged
  // when the rule does not apply. Never throws for a block it does not apply to.
  virtual std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) = 0;
  virtual std::unique_ptr<ScheduleRule> Clone() const = 0;
};

}  // namespace kiln::search
