// The WebGPU measurer on this machine's adapter (wgpu-native on lavapipe without a GPU):
// kernels the WGSL emitter writes for hand-scheduled functions (blocks and threads, an uneven
// split, a workgroup-memory tile with barriers, a reduction across threads through rfactor, a
// symbolic shape in the uniform, several kernels in one module) and for zoo functions under the
// default GPU schedule, each run in kiln-webgpu-runner and compared with the interpreter; a
// kernel past WebGPU's default limits is refused by name; the device kind and target names.
#include "runtime/webgpu/webgpu_measurer.h"

#include <gtest/gtest.h>

#include "gpu_measurer_suite.h"
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

struct WebGpuDevice {
  static constexpr const char* kKind = "webgpu";
  static constexpr const char* kMissing = "no wgpu-native device";
  static std::unique_ptr<Measurer> Create(const MeasureOptions& options) {
    return webgpu::CreateWebGpuMeasurer(options);
  }
};

class WebGpuMeasurerTest : public GpuMeasurerSuite<WebGpuDevice> {};

std::string Report(const MeasureResult& r, const MeasureDetails& details) {
  return std::string(MeasureErrorKindName(r.error_kind)) + ": " + r.message + "\n" +
         details.source.code;
}

TEST_F(WebGpuMeasurerTest, DiscoversTheDeviceWithWebGpuDefaultLimits) {
  const gpu::DeviceDescription& device = Device();
  EXPECT_EQ(device.kind, "webgpu");
  EXPECT_EQ(device.key.rfind("webgpu-", 0), 0u) << device.key;
  EXPECT_EQ(device.limits.max_threads_per_block, 256);
  EXPECT_EQ(device.limits.max_shared_bytes, 16384);
  EXPECT_EQ(measurer_->DeviceKind(), "webgpu");
  EXPECT_EQ(DeviceKindOfTarget("webgpu"), "webgpu");
}

TEST_F(WebGpuMeasurerTest, MatmulBoundToBlocksAndThreads) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  MeasureDetails details;
  MeasureResult r = Measure(f, BoundMatmul(f, 8, 16).func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_EQ(r.repeat_seconds.size(), 2u);
  EXPECT_EQ(details.source.language, "wgsl");
  ASSERT_TRUE(details.source.launch.has_value());
  EXPECT_EQ(details.source.launch->kernels.size(), 1u);
}

TEST_F(WebGpuMeasurerTest, UnevenSplitIsGuarded) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  MeasureDetails details;
  MeasureResult r = Measure(f, BoundMatmul(f, 6, 10).func(), &details);
  EXPECT_TRUE(r.ok()) << Report(r, details);
}

TEST_F(WebGpuMeasurerTest, WorkgroupMemoryTileWithBarriers) {
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
  EXPECT_NE(details.source.code.find("var<workgroup>"), std::string::npos) << details.source.code;
  EXPECT_NE(details.source.code.find("workgroupBarrier()"), std::string::npos)
      << details.source.code;
}

TEST_F(WebGpuMeasurerTest, ReductionAcrossThreadsThroughRFactor) {
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
}

TEST_F(WebGpuMeasurerTest, SymbolicShapeTravelsInTheUniform) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("elementwise_symbolic");
  ir::PrimFunc f = entry.build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("B"));
  LoopRV fused = loops.size() > 1 ? sch.Fuse(loops) : loops[0];
  std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, 16});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details, entry.shape_vars);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("var<uniform>"), std::string::npos) << details.source.code;
}

TEST_F(WebGpuMeasurerTest, TooManyThreadsPerWorkgroupIsABuildErrorNamingTheLimit) {
  // 512 threads: lavapipe has 1024, WebGPU's defaults (what the device is opened with) 256.
  ir::PrimFunc f = codegen::testing::Matmul(32, 16, 4);
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  LoopRV fused = sch.Fuse({loops[0], loops[1]});
  sch.Bind(fused, "threadIdx.x");
  MeasureResult r = Measure(f, sch.func());
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find("512"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("256"), std::string::npos) << r.message;
}

// Zoo functions of every kind WGSL has under the default GPU schedule: several kernels with a
// symbolic row count, padding's floor division and modulo, erf and tanh, max with NaN, int32.
TEST_F(WebGpuMeasurerTest, ZooFunctionsUnderTheDefaultGpuSchedule) {
  for (const char* name : {"softmax_symbolic", "avg_pool_3x3_stride2_pad1", "gelu_erf", "gelu_tanh",
                           "max_reduce", "layer_norm", "conv2d_stride2_pad1"}) {
    const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup(name);
    ir::PrimFunc f = entry.build();
    MeasureDetails details;
    MeasureResult r = Measure(f, search::DefaultGpuSchedule(f), &details, entry.shape_vars);
    EXPECT_TRUE(r.ok()) << name << ": " << Report(r, details);
  }
}

}  // namespace
}  // namespace kiln::runtime
