// Dataflow queries between the blocks of one scope: producers write what a block reads,
// consumers read what it writes (by the blocks' declared read and write regions).
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

std::vector<int> Related(const ScheduleState& state, int block_index, bool producers) {
  const BlockNode* block = state.entry(block_index).block();
  int scope = state.ScopeOf(block_index);
  std::vector<int> result;
  if (scope < 0) return result;
  for (int other : state.ChildBlocks(scope)) {
    // Dependences run forward in program order.
    if (producers ? other >= block_index : other <= block_index) continue;
    const BlockNode* candidate = state.entry(other).block();
    const std::vector<BufferRegion>& regions = producers ? block->reads : block->writes;
    for (const BufferRegion& r : regions) {
      bool hit = producers ? BlockWrites(candidate, r.buffer) : BlockReads(candidate, r.buffer);
      if (hit) {
        result.push_back(other);
        break;
      }
    }
  }
  return result;
}

}  // namespace

std::vector<int> ProducerBlocks(const ScheduleState& state, int block) {
  return Related(state, block, true);
}

std::vector<int> ConsumerBlocks(const ScheduleState& state, int block) {
  return Related(state, block, false);
}

}  // namespace kiln::search
