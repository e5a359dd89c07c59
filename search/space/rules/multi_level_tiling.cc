// Multi-level tiling (MetaSchedule's MultiLevelTiling for the CPU): every loop of the block
// is split into one tile per S (spatial loops) or R (reduction loops) of the structure by a
// sampled perfect tiling, and the tiles are reordered level by level, so that for "SSRSRS"
// the two outer spatial levels give parallel work and cache blocking, and the inner ones a
// register tile. Alternatives become separate sketches: with or without a write cache
// (reverse-computed at the end of a spatial level; an elementwise consumer such as a bias or
// an activation serves as the cache when it can, which fuses the epilogue into the tile), with
// or without a packed read cache of the reused operand (computed at the end of a spatial
// level, as a hand-written GEMM packs a panel of B). A block whose innermost spatial iteration
// indexes no operand contiguously (conv2d NCHW: x reads the input at x + s, the weights not at
// all) gets one more sketch with a channel-last register tile: an iteration that indexes the
// reused operand in one dimension (the output channel) becomes the innermost loop of the
// register tile, the local write cache is laid out with it innermost and the operand is
// packed once at the root with it innermost, so the micro-kernel is vectors along it times a
// broadcast of the other operand, as a library's direct convolution. The axis is split by the
// vector register's lanes before its outer part is tiled, so every sampled tile is whole
// vectors.
#include <algorithm>

#include "ir/substitute.h"
#include "search/schedule/primitive/primitive.h"
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"
#include "support/error.h"

namespace kiln::search {

namespace {

// The iteration a channel-last register tile vectorizes, and where it sits in the operand
// packed for it and in the output.
struct ChannelAxis {
  int iter = -1;        // among the block's iter vars
  int read_index = -1;  // the operand, among the block's reads
  int read_dim = -1;    // the operand's dimension indexed by the iteration alone
  int write_dim = -1;   // the output's dimension indexed by it
};

// The index map of an `ndim`-dimensional buffer that moves dimension `dim` innermost.
IndexMap MoveInnermost(size_t ndim, int dim) {
  return IndexMap::FromFunction(ndim, [&](const std::vector<ir::Var>& v) {
    std::vector<ir::Expr> out;
    for (size_t i = 0; i < v.size(); ++i) {
      if (static_cast<int>(i) != dim) out.push_back(v[i]);
    }
    out.push_back(v[dim]);
    return out;
  });
}

// Dimension of `region` whose index is exactly `var` while no other uses it; -1 otherwise.
int SoleDim(const ir::BufferRegion& region, const ir::VarNode* var) {
  int found = -1;
  for (size_t d = 0; d < region.region.size(); ++d) {
    const ir::Range& r = region.region[d];
    if (!ir::UsesVar(r.min, var) && !ir::UsesVar(r.extent, var)) continue;
    if (found >= 0 || r.min.get() != static_cast<const ir::Node*>(var)) return -1;
    found = static_cast<int>(d);
  }
  return found;
}

// The channel-last axis of `block`, when it has one. Only when its innermost spatial
// iteration is nowhere the whole index of a read's last dimension (else the usual sketches
// already vectorize along contiguous memory): a spatial iteration, innermost first, that is
// the sole index of one dimension of the output and of one read that no other spatial
// iteration indexes (the weights of a convolution, the transposed operand of a dense layer).
std::optional<ChannelAxis> FindChannelAxis(const ir::BlockNode* block) {
  if (block->writes.size() != 1) return std::nullopt;
  std::vector<int> spatial;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].kind == ir::IterKind::kSpatial) spatial.push_back(static_cast<int>(i));
  }
  if (spatial.empty()) return std::nullopt;
  const ir::BufferRegion& output = block->writes[0];
  const ir::VarNode* inner_var = block->iter_vars[spatial.back()].var.get();
  for (const ir::BufferRegion& read : block->reads) {
    if (read.buffer.same_as(output.buffer) || read.region.empty()) continue;
    if (SoleDim(read, inner_var) == static_cast<int>(read.region.size()) - 1) return std::nullopt;
  }
  auto uses = [](const ir::BufferRegion& region, const ir::VarNode* var) {
    for (const ir::Range& r : region.region) {
      if (ir::UsesVar(r.min, var) || ir::UsesVar(r.extent, var)) return true;
    }
    return false;
  };
  for (auto v = spatial.rbegin(); v != spatial.rend(); ++v) {
    const ir::VarNode* var = block->iter_vars[*v].var.get();
    int write_dim = SoleDim(output, var);
    if (write_dim < 0) continue;
    for (size_t i = 0; i < block->reads.size(); ++i) {
      const ir::BufferRegion& read = block->reads[i];
      if (read.buffer.same_as(output.buffer)) continue;
      int read_dim = SoleDim(read, var);
      if (read_dim < 0) continue;
      bool only_this = true;
      for (int other : spatial) {
        if (other != *v && uses(read, block->iter_vars[other].var.get())) only_this = false;
      }
      if (only_this) return ChannelAxis{*v, static_cast<int>(i), read_dim, write_dim};
    }
  }
  return std::nullopt;
}

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
  void Initialize(const TuneContext& context) override {
    vector_bytes_ = std::max(1, context.vector_bytes);
  }
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
    if (config_.channel_last) AddChannelLast(sch, block, result);
    if (result.empty()) return {sch};
    return result;
  }

 private:
  // The channel-last sketch, when the block has such an axis: the register tile's write
  // cache, the operand packed at the root, both with the axis innermost.
  void AddChannelLast(const Schedule& sch, BlockRV block, std::vector<Schedule>& result) const {
    std::optional<ChannelAxis> axis = FindChannelAxis(sch.Get(block));
    if (!axis) return;
    const auto& [level, scope] = config_.channel_last_write_cache;
    if (level < 1 || level > num_s_) return;
    for (bool fuse_consumer : {true, false}) {
      Schedule copy = sch;
      try {
        if (Tile(copy, block, level, scope, true, fuse_consumer, &*axis)) {
          result.push_back(std::move(copy));
          return;
        }
      } catch (const Error&) {
        // A layout or a cache that does not fit this block.
      }
    }
  }

  // Tiles `block` of `sch`; false when the read cache was asked for and there is no
  // operand to cache. With `axis`, the channel-last variant.
  bool Tile(Schedule& sch, BlockRV block, int write_level, const std::string& write_scope,
            bool read_cache, bool fuse_consumer, const ChannelAxis* axis = nullptr) const {
    int read_index = -1;
    if (read_cache) {
      read_index = axis ? axis->read_index : ReusedOperand(sch.Get(block));
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
    size_t out_ndim = sch.Get(block)->writes[0].region.size();
    if (axis && axis->write_dim + 1 < static_cast<int>(out_ndim)) {
      sch.TransformLayout(block, 0, BufferIndexType::kWrite,
                          MoveInnermost(out_ndim, axis->write_dim));
    }
    int index = sch.state().FindBlock(sch.Get(block)->name);
    std::vector<LoopUseKind> kinds = LoopUseKinds(sch.state(), index);
    std::vector<LoopRV> loops = sch.GetLoops(block);
    // The loop bound to the channel-last axis (the binding is trivial).
    int axis_loop = -1;
    if (axis) {
      const ir::Expr& value = sch.GetRealize(block)->iter_values[axis->iter];
      for (size_t i = 0; i < loops.size(); ++i) {
        if (value.get() == static_cast<const ir::Node*>(sch.Get(loops[i])->loop_var.get())) {
          axis_loop = static_cast<int>(i);
        }
      }
      if (axis_loop < 0) return false;
    }
    // tiles[level] holds the loops of that level of the structure, in loop order.
    std::vector<std::vector<LoopRV>> tiles(config_.structure.size());
    // The axis's loops in the innermost spatial level, innermost last.
    std::vector<LoopRV> axis_tiles;
    for (size_t i = 0; i < loops.size(); ++i) {
      char letter = kinds[i] == LoopUseKind::kReduce ? 'R' : 'S';
      int n = letter == 'S' ? num_s_ : num_r_;
      LoopRV loop = loops[i];
      int64_t max_innermost = config_.max_innermost_factor;
      std::optional<LoopRV> lanes_loop;
      if (static_cast<int>(i) == axis_loop) {
        // Whole vectors: the axis is split by the register's lanes first and its outer part
        // tiled, so that every register tile the sampler draws is a multiple of a vector.
        int64_t bits = sch.Get(block)->writes[0].buffer->dtype.bits();
        int64_t lanes = std::max<int64_t>(1, vector_bytes_ * 8 / std::max<int64_t>(8, bits));
        std::optional<int64_t> extent = ir::AsConstInt(sch.Get(loop)->extent);
        if (lanes > 1 && extent && *extent % lanes == 0) {
          std::vector<LoopRV> by_lanes = sch.Split(loop, {std::nullopt, lanes});
          loop = by_lanes[0];
          lanes_loop = by_lanes[1];
          max_innermost = std::max<int64_t>(1, max_innermost / lanes);
        }
      }
      std::vector<ExprRV> factors = sch.SamplePerfectTile(loop, n, max_innermost);
      std::vector<Factor> split(factors.begin(), factors.end());
      std::vector<LoopRV> parts = sch.Split(loop, split);
      int k = 0;
      for (size_t level = 0; level < config_.structure.size(); ++level) {
        if (config_.structure[level] == letter) tiles[level].push_back(parts[k++]);
      }
      if (static_cast<int>(i) == axis_loop) {
        axis_tiles.push_back(parts.back());
        if (lanes_loop) axis_tiles.push_back(*lanes_loop);
      }
    }
    if (!axis_tiles.empty()) {
      // The axis's register-tile loops innermost: the loops that are vectorized.
      std::vector<LoopRV>& last = tiles[config_.structure.find_last_of('S')];
      std::erase_if(last, [&](LoopRV l) { return l.id == axis_tiles.front().id; });
      last.insert(last.end(), axis_tiles.begin(), axis_tiles.end());
    }
    std::vector<LoopRV> order;
    for (const auto& level : tiles) order.insert(order.end(), level.begin(), level.end());
    sch.Reorder(order);
    sch.Annotate(block, kTiledAnnotation, config_.structure);
    if (write_cache) sch.ReverseComputeAt(*write_cache, SpatialLevelEnd(tiles, write_level), true);
    if (read_cache && axis) {
      // Packed once, at the root: the whole operand with the axis innermost.
      BlockRV cache = sch.CacheRead(block, read_index, config_.read_scope);
      size_t ndim = sch.Get(cache)->writes[0].region.size();
      if (axis->read_dim + 1 < static_cast<int>(ndim)) {
        sch.TransformLayout(cache, 0, BufferIndexType::kWrite, MoveInnermost(ndim, axis->read_dim));
        // The copy's loops in the new layout's order, so that it writes contiguously.
        std::vector<LoopRV> copy_loops = sch.GetLoops(cache);
        if (copy_loops.size() == ndim) {
          LoopRV moved = copy_loops[axis->read_dim];
          copy_loops.erase(copy_loops.begin() + axis->read_dim);
          copy_loops.push_back(moved);
          sch.Reorder(copy_loops);
        }
      }
    } else if (read_cache) {
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
  int vector_bytes_ = 64;
  int num_s_ = 0;
  int num_r_ = 0;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeMultiLevelTiling(MultiLevelTilingConfig config) {
  return std::make_unique<MultiLevelTiling>(std::move(config));
}

}  // namespace kiln::search
