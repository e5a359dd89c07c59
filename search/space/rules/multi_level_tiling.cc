// Multi-level tiling (MetaSchedule's MultiLevelTiling for the CPU): every loop of the block
// is split into one tile per S (spatial loops) or R (reduction loops) of the structure by a
// sampled perfect tiling, and the tiles are reordered level by level, so that for "SSRSRS"
// the two outer spatial levels give parallel work and cache blocking, and the inner ones a
// register tile. Alternatives become separate sketches: with or without a write cache
// (reverse-computed at the end of a spatial level; an elementwise consumer such as a bias or
// an activation serves as the cache when it can, which fuses the epilogue into the tile), with
// or without a packed read cache of the reused operand (computed at the end of a spatial
// level, as a hand-written GEMM packs a panel of B).
#include <algorithm>

#include "ir/substitute.h"
#include "search/schedule/primitive/primitive.h"
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"
#include "support/error.h"

namespace kiln::search {

namespace {

class MultiLevelTiling : public ScheduleRule {
 public:
  explicit MultiLevelTiling(MultiLevelTilingConfig config) : config_(std::move(config)) {
    for (char c : config_.structure) {
      KILN_CHECK(
          c == 'S' || c == 'R', ErrorKind::kUnsupported,
          "multi_level_tiling: structure \"" + config_.structure + "\" may hold only S and R");
      (c == 'S' ? num_s_ : num_r_) += 1;
    }
    KILN_CHECK(num_s_ >= 1 && num_r_ >= 1, ErrorKind::kUnsupported,
               "multi_level_tiling: structure \"" + config_.structure +
                   "\" needs at least one S and one R");
  }
  std::string Name() const override { return "multi_level_tiling"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<MultiLevelTiling>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    int index = sch.state().FindBlock(sch.Get(block)->name);
    if (!NeedsMultiLevelTiling(sch.state(), index)) return {sch};
    for (LoopUseKind kind : LoopUseKinds(sch.state(), index)) {
      if (kind == LoopUseKind::kMixed) return {sch};
    }
    std::vector<Schedule> result;
    // Write cache alternatives: none, then one per level.
    std::vector<std::pair<int, std::string>> write_caches{{0, ""}};
    for (const auto& cache : config_.write_caches) {
      if (cache.first >= 1 && cache.first <= num_s_) write_caches.push_back(cache);
    }
    for (const auto& [write_level, write_scope] : write_caches) {
      for (bool read_cache : {false, true}) {
        if (read_cache && !config_.read_cache) continue;
        // With a write cache, an elementwise consumer (a bias, an activation) serves as it
        // when it can, which fuses the epilogue into the tile; else a cache block is added.
        for (bool fuse_consumer : {true, false}) {
          if (fuse_consumer && write_level == 0) continue;
          Schedule copy = sch;
          try {
            if (Tile(copy, block, write_level, write_scope, read_cache, fuse_consumer)) {
              result.push_back(std::move(copy));
              break;
            }
          } catch (const Error&) {
            // This alternative does not fit the block (a cache that cannot be placed).
          }
        }
      }
    }
    if (result.empty()) return {sch};
    return result;
  }

 private:
  // Tiles `block` of `sch`; false when the read cache was asked for and there is no
  // operand to cache.
  bool Tile(Schedule& sch, BlockRV block, int write_level, const std::string& write_scope,
            bool read_cache, bool fuse_consumer) const {
    int read_index = -1;
    if (read_cache) {
      read_index = ReusedOperand(sch.Get(block));
      if (read_index < 0) return false;
    }
    std::optional<BlockRV> write_cache;
    if (write_level > 0 && fuse_consumer) {
      if (!HasElementwiseConsumer(sch.state(), sch.state().FindBlock(sch.Get(block)->name))) {
        return false;
      }
      write_cache = sch.GetConsumers(block).front();
      if (write_scope != "global") sch.SetScope(block, 0, write_scope);
    } else if (write_level > 0) {
      write_cache = sch.CacheWrite(block, 0, write_scope);
    }
    int index = sch.state().FindBlock(sch.Get(block)->name);
    std::vector<LoopUseKind> kinds = LoopUseKinds(sch.state(), index);
    std::vector<LoopRV> loops = sch.GetLoops(block);
    // tiles[level] holds the loops of that level of the structure, in loop order.
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
    sch.Annotate(block, kTiledAnnotation, config_.structure);
    if (write_cache) sch.ReverseComputeAt(*write_cache, SpatialLevelEnd(tiles, write_level), true);
    if (read_cache) {
      BlockRV cache = sch.CacheRead(block, read_index, config_.read_scope);
      sch.ComputeAt(cache, SpatialLevelEnd(tiles, config_.read_level), true);
    }
    return true;
  }

  // The innermost loop of the `level`-th (1-based) spatial level of the structure.
  LoopRV SpatialLevelEnd(const std::vector<std::vector<LoopRV>>& tiles, int level) const {
    int seen = 0;
    for (size_t i = 0; i < config_.structure.size(); ++i) {
      if (config_.structure[i] == 'S' && ++seen == level) return tiles[i].back();
    }
    throw Error(ErrorKind::kInternal, "multi_level_tiling: no spatial level " +
                                          std::to_string(level) + " in " + config_.structure);
  }

  // The read (by index) that the innermost spatial iteration indexes but some other spatial
  // iteration does not: reused across outer tiles, contiguous along the vector loop. -1
  // when there is none.
  static int ReusedOperand(const ir::BlockNode* block) {
    const ir::IterVar* innermost = nullptr;
    for (const ir::IterVar& iv : block->iter_vars) {
      if (iv.kind == ir::IterKind::kSpatial) innermost = &iv;
    }
    if (innermost == nullptr) return -1;
    auto uses = [](const ir::BufferRegion& read, const ir::VarNode* var) {
      for (const ir::Range& r : read.region) {
        if (ir::UsesVar(r.min, var) || ir::UsesVar(r.extent, var)) return true;
      }
      return false;
    };
    for (size_t i = 0; i < block->reads.size(); ++i) {
      const ir::BufferRegion& read = block->reads[i];
      if (read.buffer.same_as(block->writes[0].buffer)) continue;
      if (!uses(read, innermost->var.get())) continue;
      for (const ir::IterVar& iv : block->iter_vars) {
        if (iv.kind == ir::IterKind::kSpatial && !uses(read, iv.var.get())) {
          return static_cast<int>(i);
        }
      }
    }
    return -1;
  }

  MultiLevelTilingConfig config_;
  int num_s_ = 0;
  int num_r_ = 0;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeMultiLevelTiling(MultiLevelTilingConfig config) {
  return std::make_unique<MultiLevelTiling>(std::move(config));
}

}  // namespace kiln::search
