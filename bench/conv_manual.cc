// The conv2d workload and its hand-written schedule.
#include "bench/conv_manual.h"

#include <optional>
#include <vector>

#include "bench/matmul_manual.h"
#include "ir/text/parser.h"
#include "search/schedule/schedule.h"
#include "support/error.h"

namespace kiln::bench {

using search::BlockRV;
using search::BufferIndexType;
using search::IndexMap;
using search::LoopRV;
using search::Schedule;

std::string Conv2dScript(const Conv2dShape& s) {
  KILN_CHECK(s.stride_h == 1 && s.stride_w == 1, ErrorKind::kUnsupported,
             "Conv2dScript: only stride 1 is written");
  auto str = [](int64_t v) { return std::to_string(v); };
  auto tuple = [&](std::initializer_list<int64_t> dims) {
    std::string text = "(";
    for (int64_t d : dims) text += (text.size() > 1 ? ", " : "") + str(d);
    return text + ")";
  };
  const int64_t ph = s.height + 2 * s.pad_h, pw = s.width + 2 * s.pad_w;
  return "@T.prim_func\n"
         "def conv2d(X: T.Buffer(" +
         tuple({s.batch, s.in_channels, s.height, s.width}) + ", \"float32\"), W: T.Buffer(" +
         tuple({s.out_channels, s.in_channels, s.kernel_h, s.kernel_w}) +
         ", \"float32\"), Y: T.Buffer(" +
         tuple({s.batch, s.out_channels, s.out_height(), s.out_width()}) +
         ", \"float32\")):\n"
         "    T.func_attr({\"tir.noalias\": True})\n"
         "    pad = T.alloc_buffer(" +
         tuple({s.batch, s.in_channels, ph, pw}) +
         ", \"float32\")\n"
         "    for n, c, h, w in T.grid" +
         tuple({s.batch, s.in_channels, ph, pw}) +
         ":\n"
         "        with T.block(\"pad\"):\n"
         "            vn, vc, vh, vw = T.axis.remap(\"SSSS\", [n, c, h, w])\n"
         "            pad[vn, vc, vh, vw] = T.Select(" +
         str(s.pad_h) + " <= vh and vh < " + str(s.height + s.pad_h) + " and (" + str(s.pad_w) +
         " <= vw and vw < " + str(s.width + s.pad_w) + "), X[vn, vc, T.max(T.min(vh - " +
         str(s.pad_h) + ", " + str(s.height - 1) + "), 0), T.max(T.min(vw - " + str(s.pad_w) +
         ", " + str(s.width - 1) +
         "), 0)], T.float32(0))\n"
         "    for n, f, y, x, c, r, s in T.grid" +
         tuple({s.batch, s.out_channels, s.out_height(), s.out_width(), s.in_channels, s.kernel_h,
                s.kernel_w}) +
         ":\n"
         "        with T.block(\"conv\"):\n"
         "            vn, vf, vy, vx, vc, vr, vs = T.axis.remap(\"SSSSRRR\", [n, f, y, x, c, r, "
         "s])\n"
         "            with T.init():\n"
         "                Y[vn, vf, vy, vx] = T.float32(0)\n"
         "            Y[vn, vf, vy, vx] = Y[vn, vf, vy, vx] + pad[vn, vc, vy + vr, vx + vs] * "
         "W[vf, vc, vr, vs]\n";
}

ir::PrimFunc Conv2dWorkload(const Conv2dShape& shape) {
  return ir::ParsePrimFunc(Conv2dScript(shape), "conv2d.tir");
}

namespace {

// The position of `buffer` among the reads of `block`.
int ReadIndex(const Schedule& sch, BlockRV block, const std::string& buffer) {
  const ir::BlockNode* node = sch.Get(block);
  for (size_t i = 0; i < node->reads.size(); ++i) {
    if (node->reads[i].buffer->name == buffer) return static_cast<int>(i);
  }
  throw Error(ErrorKind::kSchedule,
              "conv schedule: block \"" + node->name + "\" does not read " + buffer);
}

}  // namespace

search::Trace ManualConvTrace(const ir::PrimFunc& workload, const ConvTiles& tiles) {
  Schedule sch(workload);
  BlockRV pad = sch.GetBlock("pad");
  BlockRV conv = sch.GetBlock("conv");
  // loops: n, f (output channel), y, x (output row and column), c, r, s (reduction).
  std::vector<LoopRV> loops = sch.GetLoops(conv);
  std::vector<LoopRV> f = sch.Split(loops[1], {std::nullopt, tiles.channels});
  std::vector<LoopRV> x = sch.Split(loops[3], {std::nullopt, tiles.cols});
  // One output row of one channel tile per parallel job; the register tile (cols x channels)
  // innermost, under the whole reduction.
  sch.Reorder({loops[0], f[0], loops[2], x[0], loops[4], loops[5], loops[6], x[1], f[1]});
  // The weights, packed once with the output channel innermost (c, r, s, f), so that a
  // tile's channels are whole vectors; the copy loops in that order to write contiguously.
  BlockRV w_pack = sch.CacheRead(conv, ReadIndex(sch, conv, "W"), "global");
  sch.TransformLayout(w_pack, 0, BufferIndexType::kWrite,
                      IndexMap::Parse("lambda o, i, h, w: (i, h, w, o)"));
  std::vector<LoopRV> pack_loops = sch.GetLoops(w_pack);
  sch.Reorder({pack_loops[1], pack_loops[2], pack_loops[3], pack_loops[0]});
  // The accumulator: a local tile, channels innermost so that it is whole vectors.
  BlockRV y_local = sch.CacheWrite(conv, 0, "local");
  sch.TransformLayout(conv, 0, BufferIndexType::kWrite,
                      IndexMap::Parse("lambda n, f, y, x: (n, y, x, f)"));
  sch.ReverseComputeAt(y_local, x[0]);
  BlockRV init = sch.DecomposeReduction(conv, loops[4]);
  // The micro-kernel: every column and vector of the tile unrolled, vectors along channels.
  sch.Unroll(x[1]);
  VectorizeByLanes(sch, f[1], tiles.lanes);
  std::vector<LoopRV> init_loops = sch.GetLoops(init);
  sch.Unroll(init_loops[init_loops.size() - 2]);
  VectorizeByLanes(sch, init_loops.back(), tiles.lanes);
  // The write-back transposes the tile into NCHW: unrolled scalars.
  std::vector<LoopRV> store_loops = sch.GetLoops(y_local);
  sch.Unroll(store_loops[store_loops.size() - 2]);
  sch.Unroll(store_loops.back());
  // Parallel over (n, channel tile, row); the padding and the packing over their outer loops.
  sch.Parallel(sch.Fuse({loops[0], f[0], loops[2]}));
  std::vector<LoopRV> pad_loops = sch.GetLoops(pad);
  sch.Parallel(sch.Fuse({pad_loops[0], pad_loops[1]}));
  sch.Parallel(pack_loops[1]);
  return sch.trace();
}

}  // namespace kiln::bench
