// The matmul workload and its hand-written schedule.
#include "bench/matmul_manual.h"

#include <optional>
#include <vector>

#include "ir/text/parser.h"
#include "search/schedule/schedule.h"

namespace kiln::bench {

using search::BlockRV;
using search::LoopRV;
using search::Schedule;

std::string MatmulScript(int64_t m, int64_t n, int64_t k) {
  auto shape = [](int64_t a, int64_t b) {
    return "(" + std::to_string(a) + ", " + std::to_string(b) + ")";
  };
  return "@T.prim_func\n"
         "def matmul(A: T.Buffer(" +
         shape(m, k) + ", \"float32\"), B: T.Buffer(" + shape(k, n) +
         ", \"float32\"), C: T.Buffer(" + shape(m, n) +
         ", \"float32\")):\n"
         "    T.func_attr({\"global_symbol\": \"matmul\", \"tir.noalias\": True})\n"
         "    for i, j, k in T.grid(" +
         std::to_string(m) + ", " + std::to_string(n) + ", " + std::to_string(k) +
         "):\n"
         "        with T.block(\"C\"):\n"
         "            vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
         "            T.reads(A[vi, vk], B[vk, vj])\n"
         "            T.writes(C[vi, vj])\n"
         "            with T.init():\n"
         "                C[vi, vj] = T.float32(0)\n"
         "            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n";
}

ir::PrimFunc MatmulWorkload(int64_t m, int64_t n, int64_t k) {
  return ir::ParsePrimFunc(MatmulScript(m, n, k), "matmul.tir");
}

void VectorizeByLanes(Schedule& sch, LoopRV loop, int64_t lanes) {
  std::vector<LoopRV> parts = sch.Split(loop, {std::nullopt, lanes});
  sch.Unroll(parts[0]);
  sch.Vectorize(parts[1]);
}

search::Trace ManualMatmulTrace(const ir::PrimFunc& workload, const MatmulTiles& tiles) {
  Schedule sch(workload);
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  LoopRV k = loops[2];
  // Register tile: rows x cols of C per micro-kernel; column panels outermost so that one
  // packed panel of B serves every row tile.
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, tiles.rows});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, tiles.cols});
  sch.Reorder({j[0], i[0], k, i[1], j[1]});
  // Panel packing: the K x cols panel of B one column panel reads, copied once into a
  // contiguous buffer (the lowering compacts it to the region the panel needs).
  BlockRV b_panel = sch.CacheRead(c, 1, "global");
  sch.ComputeAt(b_panel, j[0]);
  // The accumulator: a rows x cols local tile, written back after the k loop.
  BlockRV c_local = sch.CacheWrite(c, 0, "local");
  sch.ReverseComputeAt(c_local, i[0]);
  BlockRV c_init = sch.DecomposeReduction(c, k);
  // The micro-kernel: every row and vector of the tile unrolled, vectors along j.
  sch.Unroll(i[1]);
  VectorizeByLanes(sch, j[1], tiles.lanes);
  // Init and write-back tiles the same way; the panel copy vectorized along its rows.
  std::vector<LoopRV> init_loops = sch.GetLoops(c_init);
  sch.Unroll(init_loops[init_loops.size() - 2]);
  VectorizeByLanes(sch, init_loops.back(), tiles.lanes);
  std::vector<LoopRV> store_loops = sch.GetLoops(c_local);
  sch.Unroll(store_loops[store_loops.size() - 2]);
  VectorizeByLanes(sch, store_loops.back(), tiles.lanes);
  std::vector<LoopRV> pack_loops = sch.GetLoops(b_panel);
  VectorizeByLanes(sch, pack_loops.back(), tiles.lanes);
  sch.Parallel(j[0]);
  return sch.trace();
}

std::string FormatTraceJson(const search::Trace& trace) {
  nlohmann::json j = trace.ToJSON();
  const nlohmann::json& insts = j.at(0);
  std::string text = "[\n  [\n";
  for (size_t i = 0; i < insts.size(); ++i) {
    text += "    " + insts[i].dump() + (i + 1 < insts.size() ? ",\n" : "\n");
  }
  text += "  ],\n  " + j.at(1).dump() + "\n]\n";
  return text;
}

}  // namespace kiln::bench
