// The design space of one task: sketches (schedules whose traces hold sampling instructions)
// made by applying schedule rules to every block in post order, as MetaSchedule's
// PostOrderApply does: for each rule in turn, every block from the last (the consumers and
// the root) to the first, each schedule a rule returns continuing on its own.
#pragma once

#include <memory>
#include <vector>

#include "ir/function.h"
#include "search/schedule/schedule.h"
#include "search/space/schedule_rule.h"

namespace kiln::search {

// The sketches of `workload` under `rules` (initialized for its task). Each starts with one
// GetBlock per block of the workload. A rule that throws on a block (it should not) leaves
// that schedule as it was, so one faulty rule never loses the space.
std::vector<Schedule> GenerateSketches(const ir::PrimFunc& workload,
                                       const std::vector<std::unique_ptr<ScheduleRule>>& rules,
                                       uint64_t seed = 1);

}  // namespace kiln::search
