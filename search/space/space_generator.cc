// PostOrderApply over the blocks of a workload.
#include "search/space/space_generator.h"

#include <string>
#include <utility>

#include "search/space/block_info.h"
#include "support/logging.h"

namespace kiln::search {

namespace {

struct NamedBlock {
  BlockRV rv;
  std::string name;
};

}  // namespace

std::vector<Schedule> GenerateSketches(const ir::PrimFunc& workload,
                                       const std::vector<std::unique_ptr<ScheduleRule>>& rules,
                                       uint64_t seed) {
  Schedule first(workload, seed);
  std::vector<NamedBlock> blocks;
  for (const std::string& name : BlocksInPostOrder(first.state())) {
    blocks.push_back({first.GetBlock(name), name});
  }
  std::vector<Schedule> result{std::move(first)};
  for (const auto& rule : rules) {
    // (schedule, how many of `blocks` it has still to visit), visited from the back.
    std::vector<std::pair<Schedule, size_t>> stack;
    for (Schedule& sch : result) stack.emplace_back(std::move(sch), blocks.size());
    result.clear();
    while (!stack.empty()) {
      auto [sch, remaining] = std::move(stack.back());
      stack.pop_back();
      if (remaining == 0) {
        result.push_back(std::move(sch));
        continue;
      }
      const NamedBlock& block = blocks[remaining - 1];
      // A block an earlier rule inlined is gone; rules see only the blocks that remain.
      if (sch.state().FindBlock(block.name) < 0) {
        stack.emplace_back(std::move(sch), remaining - 1);
        continue;
      }
      std::vector<Schedule> applied;
      try {
        applied = rule->Apply(sch, block.rv);
      } catch (const Error& e) {
        KILN_LOG_WARN("schedule rule {} failed on block {}: {}", rule->Name(), block.name,
                      e.what());
        applied = {std::move(sch)};
      }
      // Pushed in reverse so that the rule's first alternative is finished first.
      for (auto it = applied.rbegin(); it != applied.rend(); ++it) {
        stack.emplace_back(std::move(*it), remaining - 1);
      }
    }
  }
  return result;
}

}  // namespace kiln::search
