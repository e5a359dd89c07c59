// Multi-level tiling for GPUs (MetaSchedule's MultiLevelTiling with CUDA's defaults): the
// block's loops are split by "SSSRRSRS"; the first three spatial levels become the grid, the
// virtual threads and the threads of a block, each level's loops fused into one bound loop.
// Every operand is read through a "shared" copy computed at the first reduction level and
// fetched by the threads together (a cooperative_fetch annotation with a sampled vector
// length, rewritten by rewrite_cooperative_fetch once the thread count is known), and the
// result goes through a "local" write cache (or the elementwise consumer, which fuses the
// epilogue) computed at the end of the thread level: one register tile per thread.
#include <algorithm>

#include "search/schedule/primitive/primitive.h"
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"
#include "support/error.h"

namespace kiln::search {

namespace {

class MultiLevelTilingGpu : public ScheduleRule {
 public:
  explicit MultiLevelTilingGpu(MultiLevelTilingGpuConfig config) : config_(std::move(config)) {
    for (char c : config_.structure) {
      KILN_CHECK(
          c == 'S' || c == 'R', ErrorKind::kUnsupported,
          "multi_level_tiling_gpu: structure \"" + config_.structure + "\" may hold only S and R");
      (c == 'S' ? num_s_ : num_r_) += 1;
    }
    KILN_CHECK(num_r_ >= 1 && static_cast<int>(config_.tile_binds.size()) < num_s_,
               ErrorKind::kUnsupported,
               "multi_level_tiling_gpu: structure \"" + config_.structure +
                   "\" needs an R and more S levels than bound levels");
    for (size_t i = 0; i < config_.tile_binds.size(); ++i) {
      KILN_CHECK(config_.structure[i] == 'S', ErrorKind::kUnsupported,
                 "multi_level_tiling_gpu: bound level " + std::to_string(i) + " of \"" +
                     config_.structure + "\" is not spatial");
    }
  }
  std::string Name() const override { return "multi_level_tiling_gpu"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<MultiLevelTilingGpu>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    int index = sch.state().FindBlock(sch.Get(block)->name);
    if (!NeedsMultiLevelTiling(sch.state(), index)) return {sch};
    for (LoopUseKind kind : LoopUseKinds(sch.state(), index)) {
      if (kind == LoopUseKind::kMixed) return {sch};
    }
    // The write cache must exist; the elementwise consumer serves as it when it can.
    for (bool fuse_consumer : {true, false}) {
      Schedule copy = sch;
      try {
        if (Tile(copy, block, fuse_consumer)) return {std::move(copy)};
      } catch (const Error&) {
        // This alternative does not fit the block (a cache that cannot be placed).
      }
    }
    return {sch};
  }

 private:
  bool Tile(Schedule& sch, BlockRV block, bool fuse_consumer) const {
    BlockRV write_cache;
    if (fuse_consumer) {
      if (!HasElementwiseConsumer(sch.state(), sch.state().FindBlock(sch.Get(block)->name))) {
        return false;
      }
      write_cache = sch.GetConsumers(block).front();
      sch.SetScope(block, 0, config_.write_scope);
    } else {
      write_cache = sch.CacheWrite(block, 0, config_.write_scope);
    }
    int index = sch.state().FindBlock(sch.Get(block)->name);
    std::vector<LoopUseKind> kinds = LoopUseKinds(sch.state(), index);
    std::vector<LoopRV> loops = sch.GetLoops(block);
    std::vector<std::vector<LoopRV>> tiles(config_.structure.size());
    for (size_t i = 0; i < loops.size(); ++i) {
      char letter = kinds[i] == LoopUseKind::kReduce ? 'R' : 'S';
      int n = letter == 'S' ? num_s_ : num_r_;
      std::vector<ExprRV> factors =
          sch.SamplePerfectTile(loops[i], n, config_.max_innermost_factor);
      std::vector<Factor> split(factors.begin(), factors.end());
      std::vector<LoopRV> parts = sch.Split(loops[i], split);
      int k = 0;
      for (size_t level = 0; level < config_.structure.size(); ++level) {
        if (config_.structure[level] == letter) tiles[level].push_back(parts[k++]);
      }
    }
    std::vector<LoopRV> order;
    for (const auto& level : tiles) order.insert(order.end(), level.begin(), level.end());
    sch.Reorder(order);
    // Each bound level becomes one loop. An empty tag fuses the level into the next bound one
    // (the virtual threads into the threads, where the lowering has no vthread).
    std::vector<LoopRV> pending;
    for (size_t level = 0; level < config_.tile_binds.size(); ++level) {
      pending.insert(pending.end(), tiles[level].begin(), tiles[level].end());
      if (config_.tile_binds[level].empty()) continue;
      LoopRV fused = pending.size() == 1 ? pending.front() : sch.Fuse(pending);
      sch.Bind(fused, config_.tile_binds[level]);
      tiles[level] = {fused};
      pending.clear();
    }
    sch.Annotate(block, kTiledAnnotation, config_.structure);
    sch.ReverseComputeAt(write_cache, tiles[config_.tile_binds.size() - 1].back(), true);
    // Every operand through shared memory, fetched at the first reduction level.
    LoopRV fetch_at = FirstReductionLevelEnd(tiles);
    const ir::BlockNode* node = sch.Get(block);
    size_t num_reads = node->reads.size();
    for (size_t i = 0; i < num_reads; ++i) {
      const ir::BlockNode* current = sch.Get(block);
      if (current->reads[i].buffer.same_as(current->writes[0].buffer)) continue;
      BlockRV cache = sch.CacheRead(block, static_cast<int>(i), config_.read_scope);
      sch.ComputeAt(cache, fetch_at, true);
      std::vector<LoopRV> cache_loops = sch.GetLoops(cache);
      size_t ndim = sch.Get(cache)->writes[0].buffer.ndim();
      std::vector<LoopRV> own(cache_loops.end() - static_cast<std::ptrdiff_t>(ndim),
                              cache_loops.end());
      LoopRV fused = own.size() == 1 ? own.front() : sch.Fuse(own);
      std::vector<double> probs(config_.vector_load_lens.size(),
                                1.0 / static_cast<double>(config_.vector_load_lens.size()));
      ExprRV lanes = sch.SampleCategorical(config_.vector_load_lens, probs);
      sch.Annotate(fused, kCooperativeFetchAnnotation, lanes);
    }
    return true;
  }

  LoopRV FirstReductionLevelEnd(const std::vector<std::vector<LoopRV>>& tiles) const {
    for (size_t i = 0; i < config_.structure.size(); ++i) {
      if (config_.structure[i] == 'R' && !tiles[i].empty()) return tiles[i].back();
    }
    throw Error(ErrorKind::kSchedule,
                "multi_level_tiling_gpu: the block has no reduction loop to fetch at");
  }

  MultiLevelTilingGpuConfig config_;
  int num_s_ = 0;
  int num_r_ = 0;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeMultiLevelTilingGpu(MultiLevelTilingGpuConfig config) {
  return std::make_unique<MultiLevelTilingGpu>(std::move(config));
}

}  // namespace kiln::search
