// Per-store features of known programs: values worked out by hand for a plain matmul, a
// tiled and vectorized one, an elementwise kernel and a GPU matmul (threads, shared and local
// memory), and every non-zero feature of the four pinned in a golden file so that an
// accidental change to the extraction fails.
#include "cost_model/features/per_store_features.h"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "cost_model/tools/workloads.h"
#include "ir/text/parser.h"
#include "search/schedule/schedule.h"
#include "tests/testing/golden.h"

namespace kiln::cost_model {
namespace {

float Slog(double x) { return static_cast<float>(std::log2(x + 1)); }

size_t Column(const std::string& name) {
  const std::vector<std::string>& names = StoreFeatureNames();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  ADD_FAILURE() << "no feature named " << name;
  return 0;
}

float Feature(const FeatureRow& row, const std::string& name) { return row[Column(name)]; }

ir::PrimFunc Matmul64() { return ir::ParsePrimFunc(tools::MatmulScript(64)); }

// i split by 8 (outer parallel), j by 16 (inner vectorized), k innermost but one.
ir::PrimFunc TiledMatmul64() {
  search::Schedule sch(Matmul64());
  search::BlockRV c = sch.GetBlock("C");
  std::vector<search::LoopRV> loops = sch.GetLoops(c);
  std::vector<search::LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<search::LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  sch.Reorder({i[0], j[0], loops[2], i[1], j[1]});
  sch.Parallel(i[0]);
  sch.Vectorize(j[1]);
  return sch.func();
}

ir::PrimFunc Elementwise() {
  return ir::ParsePrimFunc(R"(# from tvm.script import tir as T
@T.prim_func
def exp_add(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64, 32), "float32")):
    for i, j in T.grid(64, 32):
        with T.block("B"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            B[vi, vj] = T.exp(A[vi, vj]) + T.float32(1)
)");
}

// A GPU matmul: i and j split into 4 x 4 blocks of 16 x 16 threads, A's 16 rows for the block
// copied into shared memory at block level, the result through a local cache.
ir::PrimFunc GpuMatmul64() {
  search::Schedule sch(Matmul64());
  search::BlockRV c = sch.GetBlock("C");
  search::BlockRV local = sch.CacheWrite(c, 0, "local");
  std::vector<search::LoopRV> loops = sch.GetLoops(c);
  std::vector<search::LoopRV> i = sch.Split(loops[0], {std::nullopt, 16});
  std::vector<search::LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  sch.Reorder({i[0], j[0], i[1], j[1], loops[2]});
  search::LoopRV block = sch.Fuse({i[0], j[0]});
  search::LoopRV thread = sch.Fuse({i[1], j[1]});
  sch.Bind(block, "blockIdx.x");
  sch.Bind(thread, "threadIdx.x");
  sch.ReverseComputeAt(local, thread, true);
  search::BlockRV shared = sch.CacheRead(c, 0, "shared");
  sch.ComputeAt(shared, block, true);
  return sch.func();
}

TEST(PerStoreFeaturesTest, GpuMatmulKernel) {
  std::vector<FeatureRow> rows = PerStoreFeatures(GpuMatmul64());
  // A_shared's copy, C_local's init and update, C's write-back.
  ASSERT_EQ(rows.size(), 4u);
  for (const FeatureRow& row : rows) {
    EXPECT_FLOAT_EQ(Feature(row, "is_gpu"), 1);
    EXPECT_FLOAT_EQ(Feature(row, "blockIdx_x_len"), Slog(16));
    EXPECT_FLOAT_EQ(Feature(row, "gpu.blocks"), Slog(16));
  }
  const FeatureRow& update = rows[2];
  EXPECT_FLOAT_EQ(Feature(update, "threadIdx_x_len"), Slog(256));
  EXPECT_FLOAT_EQ(Feature(update, "gpu.threads_per_block"), Slog(256));
  EXPECT_FLOAT_EQ(Feature(update, "gpu.warps_per_block"), Slog(8));
  // The block's 16 rows of A over every k in shared memory; one float of C per thread.
  EXPECT_FLOAT_EQ(Feature(update, "gpu.shared_bytes"), Slog(16 * 64 * 4));
  EXPECT_FLOAT_EQ(Feature(update, "gpu.local_bytes"), Slog(4));
  EXPECT_FLOAT_EQ(Feature(update, "gpu.store_scope.local"), 1);
  EXPECT_FLOAT_EQ(Feature(update, "gpu.store_scope.global"), 0);
  EXPECT_FLOAT_EQ(Feature(rows[0], "gpu.store_scope.shared"), 1);
  EXPECT_FLOAT_EQ(Feature(rows[3], "gpu.store_scope.global"), 1);
  // A CPU program has none of these.
  for (const FeatureRow& row : PerStoreFeatures(TiledMatmul64())) {
    for (const char* name :
         {"gpu.shared_bytes", "gpu.threads_per_block", "gpu.blocks", "gpu.store_scope.global"}) {
      EXPECT_FLOAT_EQ(Feature(row, name), 0) << name;
    }
  }
}

TEST(PerStoreFeaturesTest, NamesEveryColumnOnce) {
  const std::vector<std::string>& names = StoreFeatureNames();
  ASSERT_EQ(names.size(), static_cast<size_t>(kNumStoreFeatures));
  std::set<std::string> unique(names.begin(), names.end());
  EXPECT_EQ(unique.size(), names.size());
  EXPECT_EQ(names[0], "float_mad");
  EXPECT_EQ(names[57], "B0.acc_type.read");
  EXPECT_EQ(names[147], "arith_intensity_curve_0");
  EXPECT_EQ(names[163], "auto_unroll_max_step");
}

TEST(PerStoreFeaturesTest, PlainMatmul) {
  std::vector<FeatureRow> rows = PerStoreFeatures(Matmul64());
  // The init store (C = 0 at k == 0) and the update.
  ASSERT_EQ(rows.size(), 2u);
  const FeatureRow& update = rows[1];
  const double iterations = 64.0 * 64 * 64;
  EXPECT_FLOAT_EQ(Feature(update, "float_mad"), Slog(iterations));
  EXPECT_FLOAT_EQ(Feature(update, "float_mul"), 0);
  EXPECT_FLOAT_EQ(Feature(update, "outer_prod"), Slog(iterations));
  EXPECT_FLOAT_EQ(Feature(update, "num_loops"), Slog(3));
  EXPECT_FLOAT_EQ(Feature(update, "vec_type.none"), 1);
  EXPECT_FLOAT_EQ(Feature(update, "parallel_num"), 0);
  // Buffers by cache lines: B (column walk along k: a line per access), A (a line per 16
  // accesses), C (read and written; a line per 16 j, repeated over k).
  EXPECT_FLOAT_EQ(Feature(update, "B0.lines"), Slog(iterations));
  EXPECT_FLOAT_EQ(Feature(update, "B0.stride"), Slog(64));
  EXPECT_FLOAT_EQ(Feature(update, "B0.unique_bytes"), Slog(64 * 64 * 4));
  EXPECT_FLOAT_EQ(Feature(update, "B0.reuse_type.loop_multiple_read"), 1);
  EXPECT_FLOAT_EQ(Feature(update, "B0.reuse_ct"), Slog(64));          // over i
  EXPECT_FLOAT_EQ(Feature(update, "B0.reuse_dis_iter"), Slog(4096));  // j and k
  // One i iteration touches a row of C, a row of A and all of B.
  EXPECT_FLOAT_EQ(Feature(update, "B0.reuse_dis_bytes"), Slog((64 + 64 + 4096) * 4));
  EXPECT_FLOAT_EQ(Feature(update, "B1.lines"), Slog(iterations / 16));
  EXPECT_FLOAT_EQ(Feature(update, "B1.stride"), Slog(1));
  EXPECT_FLOAT_EQ(Feature(update, "B1.reuse_ct"), Slog(64));  // over j
  EXPECT_FLOAT_EQ(Feature(update, "B1.reuse_dis_bytes"), Slog((1 + 64 + 64) * 4));
  EXPECT_FLOAT_EQ(Feature(update, "B2.acc_type.readwrite"), 1);
  EXPECT_FLOAT_EQ(Feature(update, "B2.bytes"), Slog(iterations * 2 * 4));
  EXPECT_FLOAT_EQ(Feature(update, "B2.unique_lines"), Slog(64 * 64 / 16));
  EXPECT_FLOAT_EQ(Feature(update, "B3.bytes"), 0);
  // Outermost point of the curve: 2 flops per iteration over the 48 KiB of A, B and C.
  EXPECT_FLOAT_EQ(Feature(update, "arith_intensity_curve_9"),
                  Slog(2 * iterations / (3 * 4096 * 4)));
  EXPECT_FLOAT_EQ(Feature(update, "alloc_size"), 0);
}

TEST(PerStoreFeaturesTest, TiledVectorizedMatmul) {
  std::vector<FeatureRow> rows = PerStoreFeatures(TiledMatmul64());
  ASSERT_EQ(rows.size(), 2u);
  const FeatureRow& update = rows[1];
  EXPECT_FLOAT_EQ(Feature(update, "vec_num"), Slog(1));
  EXPECT_FLOAT_EQ(Feature(update, "vec_len"), Slog(16));
  EXPECT_FLOAT_EQ(Feature(update, "vec_prod"), Slog(16));
  EXPECT_FLOAT_EQ(Feature(update, "vec_type.inner_spatial"), 1);
  EXPECT_FLOAT_EQ(Feature(update, "parallel_num"), Slog(1));
  EXPECT_FLOAT_EQ(Feature(update, "parallel_len"), Slog(8));
  EXPECT_FLOAT_EQ(Feature(update, "parallel_type.outer_spatial"), 1);
  EXPECT_FLOAT_EQ(Feature(update, "num_loops"), Slog(5));
  EXPECT_FLOAT_EQ(Feature(update, "float_mad"), Slog(64.0 * 64 * 64));
  // The vectorized store differs from the plain one: the features see the schedule.
  EXPECT_NE(rows[1], PerStoreFeatures(Matmul64())[1]);
}

TEST(PerStoreFeaturesTest, Elementwise) {
  std::vector<FeatureRow> rows = PerStoreFeatures(Elementwise());
  ASSERT_EQ(rows.size(), 1u);
  const FeatureRow& row = rows[0];
  EXPECT_FLOAT_EQ(Feature(row, "float_math_func"), Slog(64 * 32));
  EXPECT_FLOAT_EQ(Feature(row, "float_addsub"), Slog(64 * 32));
  EXPECT_FLOAT_EQ(Feature(row, "float_mad"), 0);
  EXPECT_FLOAT_EQ(Feature(row, "B0.reuse_type.no_reuse"), 1);
  EXPECT_FLOAT_EQ(Feature(row, "B1.reuse_type.no_reuse"), 1);
  EXPECT_FLOAT_EQ(Feature(row, "B0.unique_bytes"), Slog(64 * 32 * 4));
  EXPECT_FLOAT_EQ(Feature(row, "B0.lines"), Slog(64 * 32 / 16));
}

TEST(PerStoreFeaturesTest, CacheWriteHasAnAllocation) {
  search::Schedule sch(TiledMatmul64());
  search::BlockRV c = sch.GetBlock("C");
  search::BlockRV cache = sch.CacheWrite(c, 0, "local");
  sch.ReverseComputeAt(cache, sch.GetLoops(c)[1]);
  std::vector<FeatureRow> rows = PerStoreFeatures(sch.func());
  ASSERT_EQ(rows.size(), 3u);  // init, update (into the local tile), write back
  // The 8 x 16 tile of C, allocated inside the two outer tile loops.
  EXPECT_FLOAT_EQ(Feature(rows[1], "alloc_size"), Slog(8 * 16 * 4));
  EXPECT_FLOAT_EQ(Feature(rows[1], "alloc_outer_prod"), Slog(8 * 4));
  EXPECT_FLOAT_EQ(Feature(rows[2], "alloc_size"), 0);
}

TEST(PerStoreFeaturesTest, AutoUnrollAnnotation) {
  search::Schedule sch(TiledMatmul64());
  search::BlockRV c = sch.GetBlock("C");
  sch.Annotate(sch.GetLoops(c)[0], "pragma_auto_unroll_max_step", int64_t{64});
  std::vector<FeatureRow> rows = PerStoreFeatures(sch.func());
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_FLOAT_EQ(Feature(rows[1], "auto_unroll_max_step"), Slog(64));
  EXPECT_FLOAT_EQ(Feature(PerStoreFeatures(TiledMatmul64())[1], "auto_unroll_max_step"), 0);
}

// A symbolic dimension counts as one iteration (the search's postprocessors reject dynamic
// loops; the features must still not fail on them).
TEST(PerStoreFeaturesTest, SymbolicExtentsCountAsOne) {
  ir::PrimFunc softmax = ir::ParsePrimFunc(
      kiln::testing::ReadTextFile(kiln::testing::SourcePath("examples/tir/softmax_dynamic.tir")));
  std::vector<FeatureRow> rows = PerStoreFeatures(softmax);
  ASSERT_GE(rows.size(), 3u);
  for (const FeatureRow& row : rows) {
    for (float v : row) EXPECT_TRUE(std::isfinite(v));
  }
  // row_max's update: max over k (256), n unknown.
  EXPECT_FLOAT_EQ(Feature(rows[1], "outer_prod"), Slog(256));
  EXPECT_FLOAT_EQ(Feature(rows[1], "float_cmp"), Slog(256));
}

// A sparse kernel's loop over a row's nonzeros counts as the matrix's mean row length, from the
// function's kiln.sparse_nnz / kiln.sparse_rows; without them it counts as one.
TEST(PerStoreFeaturesTest, ASparseRowLoopCountsAsTheMeanRowLength) {
  const std::string body = R"(
def row_sums(indptr: T.Buffer((65,), "int32"), data: T.Buffer((640,), "float32"),
             out: T.Buffer((64,), "float32")):
    for i in range(64):
        for p in range(indptr[i + 1] - indptr[i]):
            with T.block("sum"):
                vi = T.axis.spatial(64, i)
                vp = T.axis.reduce(640, indptr[i] + p)
                T.reads(data[vp])
                T.writes(out[vi])
                with T.init():
                    out[vi] = T.float32(0)
                out[vi] = out[vi] + data[vp]
)";
  const std::string header = "# from tvm.script import tir as T\n@T.prim_func\n";
  const ir::PrimFunc plain = ir::ParsePrimFunc(header + body);
  const ir::PrimFunc sparse =
      ir::ParsePrimFunc(header + body.substr(0, body.find("    for i")) +
                        "    T.func_attr({\"kiln.sparse_rows\": 64, \"kiln.sparse_nnz\": 637})\n" +
                        body.substr(body.find("    for i")));
  EXPECT_EQ(DataDependentExtent(plain), 1);
  EXPECT_EQ(DataDependentExtent(sparse), 10);  // 637 / 64, rounded
  const std::vector<FeatureRow> plain_rows = PerStoreFeatures(plain);
  const std::vector<FeatureRow> sparse_rows = PerStoreFeatures(sparse);
  ASSERT_EQ(plain_rows.size(), sparse_rows.size());
  const FeatureRow& update = sparse_rows.back();
  EXPECT_FLOAT_EQ(Feature(plain_rows.back(), "outer_prod"), Slog(64));
  EXPECT_FLOAT_EQ(Feature(update, "outer_prod"), Slog(64 * 10));
  EXPECT_FLOAT_EQ(Feature(update, "float_addsub"), Slog(64 * 10));
}

// Every non-zero feature of the three programs, one "program store name value" line each.
TEST(PerStoreFeaturesTest, GoldenFeatures) {
  std::ostringstream out;
  std::pair<const char*, ir::PrimFunc> programs[] = {{"matmul", Matmul64()},
                                                     {"tiled_matmul", TiledMatmul64()},
                                                     {"elementwise", Elementwise()},
                                                     {"gpu_matmul", GpuMatmul64()}};
  for (const auto& [name, f] : programs) {
    std::vector<FeatureRow> rows = PerStoreFeatures(f);
    for (size_t s = 0; s < rows.size(); ++s) {
      for (size_t c = 0; c < rows[s].size(); ++c) {
        if (rows[s][c] == 0) continue;
        char value[32];
        std::snprintf(value, sizeof(value), "%.5f", rows[s][c]);
        out << name << " " << s << " " << StoreFeatureNames()[c] << " " << value << "\n";
      }
    }
  }
  EXPECT_EQ(kiln::testing::CheckGoldenFile(
                kiln::testing::SourcePath("tests/data/cost_model/features_golden.txt"), out.str()),
            "");
}

}  // namespace
}  // namespace kiln::cost_model
