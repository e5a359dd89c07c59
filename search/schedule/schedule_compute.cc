// Schedule methods that move and restructure blocks: compute location, inlining, cache and
// storage, layout, and reduction primitives.
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"
#include "search/schedule/schedule.h"

namespace kiln::search {

using namespace ir;
using nlohmann::json;

std::vector<int> Schedule::ComputeLocationCandidates(int block_index) const {
  std::vector<int> consumers = ConsumerBlocks(state_, block_index);
  std::vector<int> result;
  if (consumers.empty()) return result;
  // Every valid location is a loop above all consumers, so the first one's loops suffice.
  for (int loop : state_.LoopsAbove(consumers.front())) {
    ScheduleState trial = state_;
    try {
      ComputeAtLoop(trial, block_index, loop, false, false);
      result.push_back(loop);
    } catch (const Error&) {
      // Not a valid location: not a candidate.
    }
  }
  return result;
}

int64_t Schedule::NumComputeLocations(BlockRV block) const {
  return static_cast<int64_t>(ComputeLocationCandidates(BlockIndex(block)).size());
}

void Schedule::ComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops) {
  int b = BlockIndex(block);
  if (!IsRootMark(loop)) ComputeAtLoop(state_, b, LoopIndex(loop), false, preserve_unit_loops);
  Record("ComputeAt", {InstArg::Of(block), InstArg::Of(loop)}, json::array({preserve_unit_loops}),
         {});
}

void Schedule::ReverseComputeAt(BlockRV block, LoopRV loop, bool preserve_unit_loops) {
  int b = BlockIndex(block);
  if (!IsRootMark(loop)) ComputeAtLoop(state_, b, LoopIndex(loop), true, preserve_unit_loops);
  Record("ReverseComputeAt", {InstArg::Of(block), InstArg::Of(loop)},
         json::array({preserve_unit_loops}), {});
}

void Schedule::ComputeInline(BlockRV block) {
  ComputeInlineBlock(state_, BlockIndex(block));
  Record("ComputeInline", {InstArg::Of(block)}, json::array(), {});
}

void Schedule::ReverseComputeInline(BlockRV block) {
  ReverseComputeInlineBlock(state_, BlockIndex(block));
  Record("ReverseComputeInline", {InstArg::Of(block)}, json::array(), {});
}

BlockRV Schedule::CacheRead(BlockRV block, int read_buffer_index,
                            const std::string& storage_scope) {
  std::string name = CacheReadBlock(state_, BlockIndex(block), read_buffer_index, storage_scope);
  BlockRV result = NewBlockRV(name);
  Record("CacheRead", {InstArg::Of(block)}, json::array({read_buffer_index, storage_scope}),
         {InstArg::Of(result)});
  return result;
}

BlockRV Schedule::CacheWrite(BlockRV block, int write_buffer_index,
                             const std::string& storage_scope) {
  std::string name = CacheWriteBlock(state_, BlockIndex(block), write_buffer_index, storage_scope);
  BlockRV result = NewBlockRV(name);
  Record("CacheWrite", {InstArg::Of(block)}, json::array({write_buffer_index, storage_scope}),
         {InstArg::Of(result)});
  return result;
}

void Schedule::SetScope(BlockRV block, int write_buffer_index, const std::string& storage_scope) {
  SetBufferScope(state_, BlockIndex(block), write_buffer_index, storage_scope);
  Record("SetScope", {InstArg::Of(block)}, json::array({write_buffer_index, storage_scope}), {});
}

void Schedule::StorageAlign(BlockRV block, int write_buffer_index, int axis, int factor,
                            int offset) {
  StorageAlignBuffer(state_, BlockIndex(block), write_buffer_index, axis, factor, offset);
  Record("StorageAlign", {InstArg::Of(block)},
         json::array({write_buffer_index, axis, factor, offset}), {});
}

void Schedule::TransformLayout(BlockRV block, int buffer_index, BufferIndexType type,
                               const IndexMap& index_map) {
  int b = BlockIndex(block);
  bool is_write = type == BufferIndexType::kWrite;
  TransformLayoutBuffer(state_, b, buffer_index, is_write, index_map);
  Record("TransformLayout", {InstArg::Of(block)},
         json::array({buffer_index, is_write ? 1 : 0, index_map.ToText()}), {});
}

BlockRV Schedule::RFactor(LoopRV loop, int factor_axis) {
  std::string name = RFactorLoop(state_, LoopIndex(loop), factor_axis);
  BlockRV result = NewBlockRV(name);
  Record("RFactor", {InstArg::Of(loop)}, json::array({factor_axis}), {InstArg::Of(result)});
  return result;
}

BlockRV Schedule::DecomposeReduction(BlockRV block, LoopRV loop) {
  int b = BlockIndex(block);
  std::string old_name = state_.entry(b).block()->name;
  auto [init, update] = DecomposeReductionBlock(state_, b, LoopIndex(loop));
  // The update block is renamed; handles to the reduction block follow it.
  for (auto& [id, name] : blocks_) {
    if (name == old_name) name = update;
  }
  BlockRV result = NewBlockRV(init);
  Record("DecomposeReduction", {InstArg::Of(block), InstArg::Of(loop)}, json::array(),
         {InstArg::Of(result)});
  return result;
}

}  // namespace kiln::search
