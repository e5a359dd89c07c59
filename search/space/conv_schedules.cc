// Hand-set default schedules for NCHW pointwise and depthwise convolutions: the structure of
// the workload is checked first (one reduction block of the expected loops, an elementwise
// epilogue), then the schedule is written with the Schedule API; a primitive that refuses
// means the workload is not that shape (nullopt), never a wrong kernel.
#include "search/space/conv_schedules.h"

#include <algorithm>
#include <string>
#include <vector>

#include "ir/expr.h"
#include "search/schedule/schedule.h"
#include "support/error.h"

namespace kiln::search {
namespace {

constexpr int64_t kPointwiseRows = 8;        // output channels per register tile
constexpr int64_t kVectorAccumulators = 28;  // of the 32 AVX-512 registers
constexpr int64_t kTileVectors = 3;          // vectors of pixels per register tile row, at most

// The largest divisor of `extent` not above `limit` (at least 1).
int64_t DivisorAtMost(int64_t extent, int64_t limit) {
  for (int64_t d = std::min(extent, std::max<int64_t>(limit, 1)); d > 1; --d) {
    if (extent % d == 0) return d;
  }
  return 1;
}

// The blocks of a convolution workload, by role.
struct ConvBlocks {
  std::string conv;                 // the one reduction block
  std::vector<std::string> before;  // blocks before it (padding), program order
  std::vector<std::string> after;   // blocks after it (the epilogue), program order
  std::vector<int64_t> extents;     // the conv block's loop extents: n, f, y, x, c, ry, rx
  const ir::BlockNode* node = nullptr;
  std::vector<ir::BufferRegion> operands;  // the data and the weight it reads
};

// The blocks of `sch`'s function when it has one reduction block of 4 spatial and 3
// reduction iter vars, each bound to its own loop of constant extent, and every other block
// spatial; nullopt otherwise.
std::optional<ConvBlocks> FindConv(const Schedule& sch) {
  const ScheduleState& state = sch.state();
  ConvBlocks out;
  for (size_t i = 0; i < state.size(); ++i) {
    int index = static_cast<int>(i);
    const ir::BlockNode* block = state.entry(index).block();
    if (!block || state.ScopeOf(index) < 0) continue;
    bool reduces = false;
    for (const ir::IterVar& iv : block->iter_vars) reduces |= iv.kind != ir::IterKind::kSpatial;
    if (!reduces) {
      (out.conv.empty() ? out.before : out.after).push_back(block->name);
      continue;
    }
    if (!out.conv.empty() || block->iter_vars.size() != 7) return std::nullopt;
    for (size_t v = 0; v < 7; ++v) {
      ir::IterKind want = v < 4 ? ir::IterKind::kSpatial : ir::IterKind::kReduce;
      if (block->iter_vars[v].kind != want) return std::nullopt;
    }
    std::vector<int> loops = state.LoopsAbove(index);
    const ir::BlockRealizeNode* realize = state.entry(index).realize();
    if (loops.size() != 7) return std::nullopt;
    for (size_t v = 0; v < 7; ++v) {
      const ir::ForNode* loop = state.entry(loops[v]).loop();
      std::optional<int64_t> extent = ir::AsConstInt(loop->extent);
      if (!extent || realize->iter_values[v].as<ir::VarNode>() != loop->loop_var.get()) {
        return std::nullopt;
      }
      out.extents.push_back(*extent);
    }
    out.conv = block->name;
    out.node = block;
  }
  if (out.conv.empty()) return std::nullopt;
  // Its operands: the reads besides the accumulator it updates (which an inferred read set
  // lists), the data then the weight.
  for (const ir::BufferRegion& read : out.node->reads) {
    if (!read.buffer.same_as(out.node->writes.front().buffer)) out.operands.push_back(read);
  }
  if (out.operands.size() != 2) return std::nullopt;
  return out;
}

// Inlines every block of `names` but the last into its consumers (the epilogue's
// elementwise stages into the one that writes the output); the last one's name, or empty
// when there is none.
std::string InlineAllButLast(Schedule& sch, const std::vector<std::string>& names) {
  for (size_t i = 0; i + 1 < names.size(); ++i) sch.ComputeInline(sch.GetBlock(names[i]));
  return names.empty() ? std::string() : names.back();
}

}  // namespace

std::optional<Trace> PointwiseConvTrace(const ir::PrimFunc& workload, int64_t lanes,
                                        PointwiseTile tile) {
  try {
    Schedule sch(workload);
    std::optional<ConvBlocks> blocks = FindConv(sch);
    if (!blocks) return std::nullopt;
    const std::vector<int64_t>& e = blocks->extents;
    const int64_t n = e[0], f = e[1], y = e[2], x = e[3], c = e[4];
    if (e[5] != 1 || e[6] != 1 || c < 2 || !blocks->before.empty()) {
      return std::nullopt;
    }
    // The input read as [n, c, y, x] of a buffer of that height and width: stride 1, no
    // padding.
    const ir::BufferRegion& input = blocks->operands[0];
    if (input.buffer->shape.size() != 4 || ir::AsConstInt(input.buffer->shape[2]) != y ||
        ir::AsConstInt(input.buffer->shape[3]) != x) {
      return std::nullopt;
    }
    // kWholeRows: the fewest output rows whose pixels are whole vectors (up to 6), as many
    // output channels as keep the accumulators within 28 vector registers.
    int64_t rows_of_pixels = 0;
    if (tile == PointwiseTile::kWholeRows && x % lanes != 0) {
      for (int64_t k = 2; k <= y && k * x <= lanes * 6; ++k) {
        if (y % k == 0 && (k * x) % lanes == 0) {
          rows_of_pixels = k;
          break;
        }
      }
    }
    if (tile == PointwiseTile::kWholeRows && rows_of_pixels == 0) return std::nullopt;
    // kRowRun: `rows` output channels by a run of `cols` pixels of one output row (the whole
    // row where it is at most three vectors).
    const int64_t rows = rows_of_pixels > 0
                             ? DivisorAtMost(f, kVectorAccumulators * lanes / (rows_of_pixels * x))
                             : DivisorAtMost(f, kPointwiseRows);
    const int64_t cols = DivisorAtMost(x, lanes * kTileVectors);

    std::string epilogue = InlineAllButLast(sch, blocks->after);
    BlockRV conv = sch.GetBlock(blocks->conv);
    // The tile accumulates locally over the input channels (each input channel's pixels
    // loaded once as vectors and reused by every output channel, each weight broadcast once),
    // is written back per tile, and the epilogue runs on the tile while it is in cache.
    BlockRV local = sch.CacheWrite(conv, 0, "local");
    std::vector<LoopRV> loops = sch.GetLoops(conv);  // n, f, y, x, c, ry, rx
    std::vector<LoopRV> fo = sch.Split(loops[1], {std::nullopt, rows});
    LoopRV at, pixels, pixel_rows;
    if (rows_of_pixels > 0) {
      std::vector<LoopRV> yo = sch.Split(loops[2], {std::nullopt, rows_of_pixels});
      sch.Reorder({fo[0], yo[0], loops[4], loops[5], loops[6], fo[1], yo[1], loops[3]});
      at = yo[0];
      pixel_rows = yo[1];
      pixels = loops[3];
    } else {
      std::vector<LoopRV> xo = sch.Split(loops[3], {std::nullopt, cols});
      sch.Reorder({fo[0], loops[2], xo[0], loops[4], loops[5], loops[6], fo[1], xo[1]});
      at = xo[0];
      pixels = xo[1];
    }
    sch.ReverseComputeAt(local, at);
    std::vector<BlockRV> tiles = {sch.DecomposeReduction(conv, loops[4]), local};
    if (!epilogue.empty()) {
      tiles.push_back(sch.GetBlock(epilogue));
      sch.ReverseComputeAt(tiles.back(), at);
    }
    // The rows' pixels fused into one run of whole vectors once the tile's region is fixed.
    if (rows_of_pixels > 0) pixels = sch.Fuse({pixel_rows, pixels});
    sch.Unroll(fo[1]);
    sch.Vectorize(pixels);
    for (BlockRV b : tiles) {
      std::vector<LoopRV> inner = sch.GetLoops(b);
      if (rows_of_pixels > 0) {
        LoopRV fused = sch.Fuse({inner[inner.size() - 2], inner.back()});
        inner.pop_back();
        inner.back() = fused;
      }
      sch.Unroll(inner[inner.size() - 2]);
      sch.Vectorize(inner.back());
    }
    if (n * (f / rows) > 1) sch.Parallel(sch.Fuse({loops[0], fo[0]}));
    return sch.trace();
  } catch (const Error&) {
    return std::nullopt;
  }
}

std::optional<Trace> DepthwiseConvTrace(const ir::PrimFunc& workload) {
  try {
    Schedule sch(workload);
    std::optional<ConvBlocks> blocks = FindConv(sch);
    if (!blocks) return std::nullopt;
    const std::vector<int64_t>& e = blocks->extents;
    const int64_t n = e[0], f = e[1];
    if (e[4] != 1 || e[5] * e[6] < 2 || blocks->before.size() > 1) {
      return std::nullopt;
    }
    // The weight as [f, 1, kh, kw]: one filter per channel.
    const ir::BufferRegion& weight = blocks->operands[1];
    if (weight.buffer->shape.size() != 4 || ir::AsConstInt(weight.buffer->shape[0]) != f ||
        ir::AsConstInt(weight.buffer->shape[1]) != 1) {
      return std::nullopt;
    }
    std::string epilogue = InlineAllButLast(sch, blocks->after);
    BlockRV conv = sch.GetBlock(blocks->conv);
    std::vector<LoopRV> loops = sch.GetLoops(conv);  // n, f, y, x, c, ry, rx
    sch.Reorder({loops[0], loops[1], loops[2], loops[4], loops[5], loops[6], loops[3]});
    // Each output row accumulates in a local row over the window, then the epilogue makes
    // the output row from it.
    BlockRV local = sch.CacheWrite(conv, 0, "local");
    sch.ReverseComputeAt(local, loops[2]);
    std::vector<BlockRV> rows = {sch.DecomposeReduction(conv, loops[4]), local};
    if (!epilogue.empty()) {
      rows.push_back(sch.GetBlock(epilogue));
      sch.ReverseComputeAt(rows.back(), loops[2]);
    }
    sch.Unroll(loops[5]);
    sch.Unroll(loops[6]);
    sch.Vectorize(loops[3]);
    for (BlockRV b : rows) sch.Vectorize(sch.GetLoops(b).back());
    // The padded plane of the channel, made once per (n, f) while it stays in cache.
    if (!blocks->before.empty()) {
      BlockRV pad = sch.GetBlock(blocks->before.front());
      sch.ComputeAt(pad, loops[1]);
      std::vector<LoopRV> pad_loops = sch.GetLoops(pad);
      try {
        sch.Vectorize(pad_loops.back());
      } catch (const Error&) {
        // Stays scalar: the padding is a small part of the work.
      }
    }
    if (n * f > 1) sch.Parallel(sch.Fuse({loops[0], loops[1]}));
    return sch.trace();
  } catch (const Error&) {
    return std::nullopt;
  }
}

}  // namespace kiln::search
