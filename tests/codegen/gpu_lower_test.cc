// The GPU half of lowering (codegen/gpu/): kernels and launch extents from bound loops, a
// kernel per bound top-level stage with workspace buffers between them, block-level code run
// by one thread, barriers around shared tiles, and the device-limit checks, whose errors name
// the loop or the buffer. What the kernels compute is checked on a device in
// tests/runtime/opencl_measurer_test.cc and the GPU property test.
#include <gtest/gtest.h>

#include "codegen/gpu/barriers.h"
#include "codegen/gpu/lower_gpu.h"
#include "codegen/opencl/opencl_emitter.h"
#include "ir/functor.h"
#include "search/schedule/schedule.h"
#include "test_kernels.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::codegen::gpu {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::Schedule;

GpuProgram Kernels(const ir::PrimFunc& f, const GpuLimits& limits = {}) {
  return LowerToKernels(Lower(f, GpuLowerOptions()), "k", limits);
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Barriers in a statement, at any depth.
int CountBarriers(const ir::Stmt& s) {
  class Counter : public ir::IRVisitor {
   public:
    int n = 0;
    void VisitStmt_(const ir::EvaluateNode* op) override {
      if (IsBarrier(GetRef<ir::Stmt>(op))) ++n;
    }
  };
  Counter c;
  c.VisitStmt(s);
  return c.n;
}

Schedule BoundMatmul(const ir::PrimFunc& f, int64_t ti, int64_t tj) {
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, ti});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, tj});
  sch.Reorder({i[0], j[0], i[1], j[1], loops[2]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  return sch;
}

TEST(GpuLower, LaunchExtentsComeFromTheBoundLoops) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();  // 32 x 48 x 40
  GpuProgram p = Kernels(BoundMatmul(f, 8, 16).func());
  ASSERT_EQ(p.kernels.size(), 1u);
  const LaunchExtents& e = p.kernels[0].launch.extents;
  EXPECT_EQ(ir::AsConstInt(e.grid[0]), 3);
  EXPECT_EQ(ir::AsConstInt(e.grid[1]), 4);
  EXPECT_EQ(ir::AsConstInt(e.grid[2]), 1);
  EXPECT_EQ(ir::AsConstInt(e.block[0]), 16);
  EXPECT_EQ(ir::AsConstInt(e.block[1]), 8);
  EXPECT_EQ(p.kernels[0].launch.symbol, "k");
  EXPECT_TRUE(p.workspace.empty());
  EXPECT_EQ(CountBarriers(p.kernels[0].body), 0);

  ConcreteLaunch c = Concretize(p.kernels[0].launch, {});
  EXPECT_EQ(DescribeLaunch(c), "k: grid (3, 4, 1) block (16, 8, 1)");

  EmittedSource src = EmitOpenCL(Lower(BoundMatmul(f, 8, 16).func(), GpuLowerOptions()), "mm");
  EXPECT_NE(src.code.find("__kernel __attribute__((reqd_work_group_size(16, 8, 1)))"),
            std::string::npos)
      << src.code;
  EXPECT_NE(src.code.find("get_group_id(1)"), std::string::npos) << src.code;
  ASSERT_TRUE(src.launch.has_value());
  EXPECT_EQ(src.launch->kernels[0].symbol, "mm");
}

TEST(GpuLower, EachBoundStageIsAKernelAndIntermediatesAreWorkspace) {
  ir::PrimFunc f = ir::zoo::ZooLookup("dense_bias_relu").build();
  Schedule sch(f);
  for (const char* name : {"dense", "bias_add", "relu"}) {
    std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock(name));
    sch.Bind(loops[0], "blockIdx.x");
    sch.Bind(loops[1], "threadIdx.x");
  }
  GpuProgram p = Kernels(sch.func());
  ASSERT_EQ(p.kernels.size(), 3u);
  EXPECT_EQ(p.kernels[0].launch.symbol, "k_k0");
  EXPECT_EQ(p.kernels[2].launch.symbol, "k_k2");
  EXPECT_EQ(p.workspace.size(), 2u);
  ASSERT_EQ(p.plan.workspace.size(), 2u);
  EXPECT_TRUE(ir::AsConstInt(p.plan.workspace[0].elements).has_value());
}

TEST(GpuLower, BlockLevelCodeRunsOnOneThread) {
  // The rfactor's final sum sits under the blockIdx loop but outside every threadIdx loop.
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  std::vector<LoopRV> k = sch.Split(loops[2], {8, std::nullopt});
  BlockRV rf = sch.RFactor(k[0], 0);
  sch.SetScope(rf, 0, "shared");
  LoopRV bi = sch.GetLoops(sch.GetBlock("C"))[0];
  sch.Bind(bi, "blockIdx.x");
  sch.ComputeAt(rf, bi);
  for (LoopRV l : sch.GetLoops(rf)) {
    if (ir::AsConstInt(sch.Get(l)->extent) == 8 && sch.Get(l)->for_kind == ir::ForKind::kSerial) {
      sch.Bind(l, "threadIdx.x");
      break;
    }
  }
  EmittedSource src = EmitOpenCL(Lower(sch.func(), GpuLowerOptions()), "rf");
  EXPECT_NE(src.code.find("if (((int)get_local_id(0)) < 1)"), std::string::npos) << src.code;
  // The partial sums are shared: one barrier before the final sum reads them.
  EXPECT_GE(Count(src.code, "barrier("), 1) << src.code;
  EXPECT_EQ(Count(src.code, "__local float"), 1) << src.code;
}

TEST(GpuLower, SharedTileGetsBarriersAroundItsUseAndAcrossIterations) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV a_shared = sch.CacheRead(c, 0, "shared");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  std::vector<LoopRV> k = sch.Split(loops[2], {std::nullopt, 8});
  sch.Reorder({i[0], j[0], i[1], j[1], k[0], k[1]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  sch.ComputeAt(a_shared, k[0]);
  std::vector<LoopRV> cl = sch.GetLoops(a_shared);
  LoopRV fused = sch.Fuse({cl[cl.size() - 2], cl[cl.size() - 1]});
  std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, 16});
  sch.Bind(parts[1], "threadIdx.x");
  GpuProgram p = Kernels(sch.func());
  ASSERT_EQ(p.kernels.size(), 1u);
  ASSERT_EQ(p.kernels[0].shared.size(), 1u);
  // 8 rows x 8 of k, hoisted to the kernel: 256 bytes.
  EXPECT_EQ(p.kernels[0].launch.shared_bytes, 8 * 8 * 4);
  // One after the fetch (the tile is read by other threads), one at the top of the k loop
  // (the next fetch overwrites what this iteration read).
  EXPECT_EQ(CountBarriers(p.kernels[0].body), 2);
}

TEST(GpuLower, ABlockOf4096ThreadsIsRefusedNamingTheLoop) {
  ir::PrimFunc f = testing::Matmul(64, 64, 8);
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  LoopRV fused = sch.Fuse({loops[0], loops[1]});
  sch.Bind(fused, "threadIdx.x");
  std::string loop_name = sch.Get(fused)->loop_var.name();
  try {
    Kernels(sch.func());
    ADD_FAILURE() << "a block of 4096 threads was accepted";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(m.find("loop " + loop_name), std::string::npos) << m;
    EXPECT_NE(m.find("4096"), std::string::npos) << m;
    EXPECT_NE(m.find("1024"), std::string::npos) << m;
  }
  GpuLimits big;
  big.max_threads_per_block = 4096;
  big.max_block_extent = {4096, 4096, 64};
  EXPECT_NO_THROW(Kernels(sch.func(), big));
}

TEST(GpuLower, TooMuchSharedMemoryIsRefusedNamingTheBuffer) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch = BoundMatmul(f, 8, 16);
  BlockRV c = sch.GetBlock("C");
  BlockRV b_shared = sch.CacheRead(c, 1, "shared");
  sch.ComputeAt(b_shared, sch.GetLoops(c)[1]);  // the whole 40 x 16 column panel of B
  GpuLimits small;
  small.max_shared_bytes = 1024;
  std::string buffer = sch.Get(b_shared)->writes[0].buffer->name;
  try {
    Kernels(sch.func(), small);
    ADD_FAILURE() << "2560 bytes of shared memory fit a 1024-byte limit";
  } catch (const Error& e) {
    std::string m = e.what();
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(m.find(buffer), std::string::npos) << m;
    EXPECT_NE(m.find("2560 bytes"), std::string::npos) << m;
    EXPECT_NE(m.find("1024"), std::string::npos) << m;
  }
  EXPECT_NO_THROW(Kernels(sch.func()));
}

TEST(GpuLower, AReductionLoopBoundToThreadsIsRefusedByName) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Bind(loops[2], "threadIdx.x");
  try {
    Kernels(sch.func());
    ADD_FAILURE() << "a cross-thread reduction was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("block C reduces"), std::string::npos) << e.what();
  }
}

TEST(GpuLower, ThreadTags) {
  bool is_block = false;
  int axis = -1;
  EXPECT_TRUE(ParseThreadTag("blockIdx.z", &is_block, &axis));
  EXPECT_TRUE(is_block);
  EXPECT_EQ(axis, 2);
  EXPECT_TRUE(ParseThreadTag("threadIdx.x", &is_block, &axis));
  EXPECT_FALSE(is_block);
  EXPECT_EQ(axis, 0);
  EXPECT_FALSE(ParseThreadTag("vthread.x", &is_block, &axis));
  EXPECT_FALSE(ParseThreadTag("threadIdx.w", &is_block, &axis));
}

}  // namespace
}  // namespace kiln::codegen::gpu
