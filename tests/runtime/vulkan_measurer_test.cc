// The Vulkan measurer on this machine's Vulkan device (lavapipe without a GPU): hand-scheduled
// kernels (blockIdx/threadIdx binding, an uneven split, a shared-memory tile with barriers, a
// reduction across threads through rfactor, vector types, a symbolic shape passed as a push
// constant, float16) emitted as GLSL, compiled with shaderc, run in kiln-vulkan-runner and
// compared with the interpreter's outputs; device limits refused by name.
#include "runtime/vulkan/vulkan_measurer.h"

#include <gtest/gtest.h>

#include "gpu_measurer_suite.h"
#include "ir/compute/create_prim_func.h"
#include "ir/compute/reduce.h"
#include "runtime/gpu/gpu_measurer.h"
#include "runtime/sandbox_client.h"
#include "runtime_test_util.h"
#include "search/schedule/schedule.h"
#include "search/space/thread_binding.h"
#include "test_kernels.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::runtime {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::Schedule;

struct VulkanDevice {
  static constexpr const char* kKind = "vulkan";
  static constexpr const char* kMissing = "no Vulkan device";
  static std::unique_ptr<Measurer> Create(const MeasureOptions& options) {
    return vulkan::CreateVulkanMeasurer(options);
  }
};

class VulkanMeasurerTest : public GpuMeasurerSuite<VulkanDevice> {};

// C[M, N] = A[M, K] x B[K, N] from the compute builder (blocks with their reads and writes).
ir::PrimFunc ComputeMatmul(int m, int n, int k_extent) {
  using namespace ir::compute;  // NOLINT(google-build-using-namespace)
  ir::DataType f32 = ir::DataType::Float(32);
  Tensor a = Placeholder("A", {m, k_extent}, f32);
  Tensor b = Placeholder("B", {k_extent, n}, f32);
  ir::IterVar k = ReduceAxis(k_extent, "k");
  Tensor c =
      Compute({m, n}, [&](ir::Var i, ir::Var j) { return Sum(a(i, k.var) * b(k.var, j), {k}); },
              "C", {"i", "j"});
  return CreatePrimFunc({a, b, c}, "matmul");
}

std::string Report(const MeasureResult& r, const MeasureDetails& details) {
  return std::string(MeasureErrorKindName(r.error_kind)) + ": " + r.message + "\n" +
         details.source.code;
}

TEST_F(VulkanMeasurerTest, DiscoversTheDevice) {
  const gpu::DeviceDescription& device = Device();
  EXPECT_EQ(device.kind, "vulkan");
  EXPECT_FALSE(device.name.empty());
  EXPECT_EQ(device.key.rfind("vulkan-", 0), 0u) << device.key;
  EXPECT_GE(device.limits.max_threads_per_block, 64);
  EXPECT_GT(device.limits.max_shared_bytes, 0);
  if (device.platform == "llvmpipe") {
    EXPECT_EQ(device.key, "vulkan-llvmpipe");
  }
  EXPECT_EQ(measurer_->DeviceKind(), "vulkan");
  EXPECT_EQ(DeviceKindOfTarget("vulkan"), "vulkan");
}

TEST_F(VulkanMeasurerTest, MatmulBoundToBlocksAndThreads) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch = BoundMatmul(f, 8, 16);
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_TRUE(r.correctness_checked || !r.reference.empty());
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_EQ(r.repeat_seconds.size(), 2u);
  EXPECT_EQ(details.source.language, "glsl");
  ASSERT_TRUE(details.source.launch.has_value());
  ASSERT_EQ(details.source.launch->kernels.size(), 1u);
  const auto& launch = details.source.launch->kernels[0];
  EXPECT_EQ(ir::AsConstInt(launch.extents.grid[0]), 3);  // 48 / 16
  EXPECT_EQ(ir::AsConstInt(launch.extents.grid[1]), 4);  // 32 / 8
  EXPECT_EQ(ir::AsConstInt(launch.extents.block[0]), 16);
  EXPECT_EQ(ir::AsConstInt(launch.extents.block[1]), 8);
  EXPECT_NE(details.source.code.find("gl_LocalInvocationID.y"), std::string::npos);
  EXPECT_NE(details.source.code.find("gl_WorkGroupID.x"), std::string::npos);
}

TEST_F(VulkanMeasurerTest, UnevenSplitIsGuarded) {
  // 48 split by 10: the last block's threads beyond the extent do nothing.
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch = BoundMatmul(f, 6, 10);
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  EXPECT_TRUE(r.ok()) << Report(r, details);
}

TEST_F(VulkanMeasurerTest, SharedMemoryTileWithBarriers) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV a_shared = sch.CacheRead(c, 0, "shared");
  BlockRV b_shared = sch.CacheRead(c, 1, "shared");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  std::vector<LoopRV> k = sch.Split(loops[2], {std::nullopt, 8});
  sch.Reorder({i[0], j[0], i[1], j[1], k[0], k[1]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  // Cooperative fetch: each tile's copy spread over the block's 8 x 16 threads.
  for (BlockRV cache : {a_shared, b_shared}) {
    sch.ComputeAt(cache, k[0]);
    std::vector<LoopRV> cl = sch.GetLoops(cache);
    LoopRV fused = sch.Fuse({cl[cl.size() - 2], cl[cl.size() - 1]});
    std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, 8, 16});
    sch.Bind(parts[1], "threadIdx.y");
    sch.Bind(parts[2], "threadIdx.x");
  }
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("shared float"), std::string::npos) << details.source.code;
  EXPECT_NE(details.source.code.find("barrier();"), std::string::npos) << details.source.code;
  EXPECT_GT(details.source.launch->kernels[0].shared_bytes, 0);
}

TEST_F(VulkanMeasurerTest, ReductionAcrossThreadsThroughRFactor) {
  // C[i, j] over k = 40: k split 8 x 5, the 8 partial sums computed by 8 threads into a
  // shared buffer, then summed by one thread per (i, j).
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> k = sch.Split(loops[2], {8, std::nullopt});
  BlockRV rf = sch.RFactor(k[0], 0);
  sch.SetScope(rf, 0, "shared");
  LoopRV bi = sch.GetLoops(sch.GetBlock("C"))[0];
  sch.Bind(bi, "blockIdx.x");
  sch.ComputeAt(rf, bi);
  for (LoopRV l : sch.GetLoops(rf)) {
    const ir::ForNode* loop = sch.Get(l);
    if (loop->for_kind == ir::ForKind::kSerial && ir::AsConstInt(loop->extent) == 8) {
      sch.Bind(l, "threadIdx.x");
      break;
    }
  }
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("barrier();"), std::string::npos) << details.source.code;
}

TEST_F(VulkanMeasurerTest, VectorTypes) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV local = sch.CacheWrite(c, 0, "local");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, 4, 4});
  sch.Reorder({i[0], j[0], i[1], j[1], loops[2], j[2]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  sch.ReverseComputeAt(local, j[1]);
  sch.Vectorize(sch.GetLoops(local).back());
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("vec4"), std::string::npos) << details.source.code;
}

TEST_F(VulkanMeasurerTest, SymbolicShapeTravelsAsAPushConstant) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("elementwise_symbolic");
  ir::PrimFunc f = entry.build();
  Schedule sch(f);
  BlockRV block = sch.GetBlock("B");
  std::vector<LoopRV> loops = sch.GetLoops(block);
  LoopRV fused = loops.size() > 1 ? sch.Fuse(loops) : loops[0];
  std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, 16});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details, entry.shape_vars);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("push_constant"), std::string::npos) << details.source.code;
}

TEST_F(VulkanMeasurerTest, Float16WhereTheDeviceHasIt) {
  if (!Device().limits.fp16) GTEST_SKIP() << "skipped: the Vulkan device has no float16";
  // C = A + B in float16, bound to blocks and threads.
  ir::DataType f16 = ir::DataType::Float(16);
  ir::Buffer a = ir::DeclBuffer("A", f16, {64});
  ir::Buffer b = ir::DeclBuffer("B", f16, {64});
  ir::Buffer c = ir::DeclBuffer("C", f16, {64});
  ir::Var i("i"), vi("vi");
  ir::Stmt body = ir::BufferStore(c, ir::BufferLoad(a, {vi}) + ir::BufferLoad(b, {vi}), {vi});
  ir::Stmt block = codegen::testing::MakeBlock("C", {codegen::testing::Spatial(vi, 64)}, {i}, body);
  ir::PrimFunc f = codegen::testing::MakeFunc(
      "add_f16", {a, b, c}, codegen::testing::Root(ir::For(i, 0, 64, ir::ForKind::kSerial, block)));
  Schedule sch(f);
  std::vector<LoopRV> parts = sch.Split(sch.GetLoops(sch.GetBlock("C"))[0], {std::nullopt, 32});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("float16_t"), std::string::npos) << details.source.code;
}

TEST_F(VulkanMeasurerTest, TooManyThreadsPerBlockIsABuildErrorNamingTheLoop) {
  int64_t limit = Device().limits.max_threads_per_block;
  ir::PrimFunc f = codegen::testing::Matmul(2 * limit / 16, 16, 4);
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  LoopRV fused = sch.Fuse({loops[0], loops[1]});
  sch.Bind(fused, "threadIdx.x");
  std::string loop_name = sch.Get(fused)->loop_var.name();
  MeasureResult r = Measure(f, sch.func());
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  // Past the threads per block or the threads along x, whichever the device has fewer of.
  EXPECT_NE(r.message.find("loop " + loop_name), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(std::to_string(2 * limit)), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("limit"), std::string::npos) << r.message;
}

TEST_F(VulkanMeasurerTest, TooMuchSharedMemoryIsABuildErrorNamingTheBuffer) {
  // A 128 x 128 float tile of B in shared memory: 64 KiB, past lavapipe's 32 KiB.
  int64_t limit = Device().limits.max_shared_bytes;
  int n = 128;
  while (int64_t{n} * n * 4 <= limit) n *= 2;
  ir::PrimFunc f = ComputeMatmul(16, n, n);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV b_shared = sch.CacheRead(c, 1, "shared");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  sch.Bind(loops[0], "blockIdx.x");
  sch.ComputeAt(b_shared, loops[0]);
  MeasureResult r = Measure(f, sch.func());
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find("shared"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find(std::to_string(limit)), std::string::npos) << r.message;
}

// Zoo functions whose GLSL differs most from the others' under the default GPU schedule:
// bool buffers (uint8_t in storage), float64, erf and tanh through helpers, floor division and
// modulo of padding, max with NaN propagation, several kernels with a symbolic row count.
TEST_F(VulkanMeasurerTest, ZooFunctionsOfEveryKindUnderTheDefaultGpuSchedule) {
  for (const char* name : {"where", "float64_reduce", "gelu_erf", "gelu_tanh",
                           "avg_pool_3x3_stride2_pad1", "max_reduce", "softmax_symbolic"}) {
    const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup(name);
    ir::PrimFunc f = entry.build();
    MeasureDetails details;
    MeasureResult r = Measure(f, search::DefaultGpuSchedule(f, 64), &details, entry.shape_vars);
    EXPECT_TRUE(r.ok()) << name << ": " << Report(r, details);
  }
}

}  // namespace
}  // namespace kiln::runtime
