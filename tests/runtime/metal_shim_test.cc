// Device kind "metal" on a machine without a Mac: the MSL emitter's kernels compiled as C++20
// with the metal_stdlib shim and run on the CPU by kiln-metal-shim-runner, through the real
// Metal measurer, each compared with the reference interpreter on random inputs. Also the
// pieces: the fiber executor's barriers, the shim's translation unit, the device description
// (emulated, a key no Mac's GPU gets), hand-scheduled kernels of every kind (shared tiles with
// barriers, a cross-thread reduction, vectors, a symbolic shape in KilnArgs, float16), the
// limits refused as build errors naming the kernel, and every zoo function under the default
// GPU schedule.
#include <gtest/gtest.h>

#include <atomic>
#include <iostream>
#include <vector>

#include "gpu_measurer_suite.h"
#include "runtime/gpu/gpu_measurer.h"
#include "runtime/metal/metal_device_key.h"
#include "runtime/metal/metal_measurer.h"
#include "runtime/metal_shim/metal_shim_backend.h"
#include "runtime/metal_shim/threadgroup_executor.h"
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

TEST(ThreadgroupExecutorTest, BarriersHoldEveryThreadUntilAllArrive) {
  metal_shim::ThreadgroupExecutor executor;
  constexpr int kThreads = 256;
  std::vector<int> shared(kThreads), out(kThreads);
  int64_t barriers = executor.Run(kThreads, [&](int t) {
    shared[t] = t * 3;
    metal_shim::ThreadgroupExecutor::Barrier();
    // Every thread's write is visible: read a neighbour's.
    out[t] = shared[(t + 1) % kThreads];
    metal_shim::ThreadgroupExecutor::Barrier();
    shared[t] = 0;
  });
  EXPECT_EQ(barriers, 2);
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(out[t], ((t + 1) % kThreads) * 3) << t;
}

TEST(ThreadgroupExecutorTest, ThreadsThatEndCountAsArrived) {
  metal_shim::ThreadgroupExecutor executor;
  std::atomic<int> after{0};
  int64_t barriers = executor.Run(64, [&](int t) {
    if (t % 2 == 0) return;  // half the threads end before the barrier
    metal_shim::ThreadgroupExecutor::Barrier();
    ++after;
  });
  EXPECT_EQ(barriers, 1);
  EXPECT_EQ(after.load(), 32);
  // Without barriers: none counted; the most threads Metal allows.
  std::atomic<int> ran{0};
  EXPECT_EQ(executor.Run(1024, [&](int) { ++ran; }), 0);
  EXPECT_EQ(ran.load(), 1024);
}

TEST(MetalShimTest, TranslationUnitIsTheShimTheSourceAndOneEntryPerKernel) {
  std::string tu = metal_shim::ShimTranslationUnit(
      "#include <metal_stdlib>\nusing namespace metal;\nkernel void k0() {}\n", {"k0", "k1"});
  EXPECT_NE(tu.find("#define threadgroup static thread_local"), std::string::npos);
  EXPECT_EQ(tu.find("#pragma once"), std::string::npos);
  EXPECT_NE(tu.find("#line 1 \"kernel.metal\"\n// #include <metal_stdlib>\n"), std::string::npos)
      << tu;
  EXPECT_NE(tu.find("void kiln_shim_entry_0("), std::string::npos);
  EXPECT_NE(tu.find("kiln_shim::Launch(k1, buffers"), std::string::npos);
}

TEST(MetalDeviceKeyTest, NoRealDeviceGetsTheShimsKey) {
  EXPECT_EQ(metal::MetalDeviceKey("Apple M2 Max"), "metal-apple-m2-max");
  EXPECT_EQ(metal::MetalDeviceKey("AMD Radeon Pro 5500M"), "metal-amd-radeon-pro-5500m");
  EXPECT_NE(metal::MetalDeviceKey("Emulated CPU Shim"), metal::kMetalShimDeviceKey);
  EXPECT_EQ(metal::MetalDeviceKey("Emulated CPU Shim").rfind("metal-emulated", 0),
            std::string::npos);
}

struct MetalShimDevice {
  static constexpr const char* kKind = "metal";
  static constexpr const char* kMissing = "no Metal shim";
  static std::unique_ptr<Measurer> Create(const MeasureOptions& options) {
    return metal::CreateMetalMeasurer(options);
  }
};

class MetalShimMeasurerTest : public GpuMeasurerSuite<MetalShimDevice> {};

std::string Report(const MeasureResult& r, const MeasureDetails& details) {
  return std::string(MeasureErrorKindName(r.error_kind)) + ": " + r.message + "\n" +
         details.source.code;
}

TEST_F(MetalShimMeasurerTest, DiscoversTheEmulatedDevice) {
  const gpu::DeviceDescription& device = Device();
  EXPECT_EQ(device.kind, "metal");
  EXPECT_EQ(device.name, "Metal (CPU shim)");
  EXPECT_EQ(device.key, metal::kMetalShimDeviceKey);
  EXPECT_TRUE(device.emulated);
  EXPECT_NE(device.platform.find("CPU emulation"), std::string::npos) << device.platform;
  EXPECT_EQ(device.limits.max_threads_per_block, 1024);
  EXPECT_EQ(device.limits.max_shared_bytes, 32768);
  EXPECT_EQ(device.limits.warp_size, 32);
  EXPECT_FALSE(device.limits.fp64);
  EXPECT_TRUE(device.limits.fp16);
  EXPECT_EQ(measurer_->DeviceKind(), "metal");
  EXPECT_EQ(DeviceKindOfTarget("metal"), "metal");
  // The flag survives the trip through JSON that a worker's registration takes.
  EXPECT_TRUE(gpu::DeviceFromJson(gpu::DeviceToJson(device), "test").emulated);
}

TEST_F(MetalShimMeasurerTest, MatmulBoundToBlocksAndThreads) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  MeasureDetails details;
  MeasureResult r = Measure(f, BoundMatmul(f, 8, 16).func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_TRUE(r.correctness_checked);
  EXPECT_NE(r.reference.find(metal::kMetalShimDeviceKey), std::string::npos) << r.reference;
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_EQ(r.repeat_seconds.size(), 2u);
  EXPECT_EQ(details.source.language, "msl");
  EXPECT_NE(details.source.code.find("kernel void "), std::string::npos);
}

TEST_F(MetalShimMeasurerTest, UnevenSplitIsGuarded) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  MeasureDetails details;
  MeasureResult r = Measure(f, BoundMatmul(f, 6, 10).func(), &details);
  EXPECT_TRUE(r.ok()) << Report(r, details);
}

TEST_F(MetalShimMeasurerTest, SharedMemoryTileWithBarriers) {
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
  EXPECT_NE(details.source.code.find("threadgroup float "), std::string::npos);
  EXPECT_NE(details.source.code.find("threadgroup_barrier("), std::string::npos);
}

TEST_F(MetalShimMeasurerTest, ReductionAcrossThreadsThroughRFactor) {
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
  EXPECT_NE(details.source.code.find("threadgroup_barrier("), std::string::npos);
}

TEST_F(MetalShimMeasurerTest, VectorTypes) {
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
  EXPECT_NE(details.source.code.find("float4"), std::string::npos) << details.source.code;
}

TEST_F(MetalShimMeasurerTest, SymbolicShapeTravelsInKilnArgs) {
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
  EXPECT_NE(details.source.code.find("constant KilnArgs& kiln_args"), std::string::npos)
      << details.source.code;
}

TEST_F(MetalShimMeasurerTest, Float16AsHalf) {
  ir::DataType f16 = ir::DataType::Float(16);
  ir::Buffer a = ir::DeclBuffer("A", f16, {64});
  ir::Buffer b = ir::DeclBuffer("B", f16, {64});
  ir::Buffer c = ir::DeclBuffer("C", f16, {64});
  ir::Var i("i"), vi("vi");
  ir::Stmt body = ir::BufferStore(
      c, ir::BufferLoad(a, {vi}) * ir::BufferLoad(b, {vi}) + ir::BufferLoad(a, {vi}), {vi});
  ir::Stmt block = codegen::testing::MakeBlock("C", {codegen::testing::Spatial(vi, 64)}, {i}, body);
  ir::PrimFunc f = codegen::testing::MakeFunc(
      "fma_f16", {a, b, c}, codegen::testing::Root(ir::For(i, 0, 64, ir::ForKind::kSerial, block)));
  Schedule sch(f);
  std::vector<LoopRV> parts = sch.Split(sch.GetLoops(sch.GetBlock("C"))[0], {std::nullopt, 32});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << Report(r, details);
  EXPECT_NE(details.source.code.find("device half* A"), std::string::npos) << details.source.code;
}

TEST_F(MetalShimMeasurerTest, TooManyThreadsIsABuildErrorNamingKernelAndLimit) {
  ir::PrimFunc f = codegen::testing::Matmul(32, 64, 4);
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Bind(loops[0], "threadIdx.y");
  sch.Bind(loops[1], "threadIdx.x");
  MeasureResult r = Measure(f, sch.func());
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find("kernel "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("2048 threads per threadgroup"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("limit of 1024 threads per threadgroup"), std::string::npos)
      << r.message;
}

TEST_F(MetalShimMeasurerTest, Float64IsABuildErrorNamingTheKernel) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("float64_reduce");
  ir::PrimFunc f = entry.build();
  MeasureResult r = Measure(f, search::DefaultGpuSchedule(f));
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find("function float64_reduce, kernel "), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("no double"), std::string::npos) << r.message;
}

// Every zoo function, as an untuned model's kernels run: compiled through the shim, run, and
// compared with the interpreter. Metal has no double and the target emits no bfloat16: those
// two are build errors that say so; every other function must match.
TEST_F(MetalShimMeasurerTest, EveryZooFunctionUnderTheDefaultGpuScheduleMatchesTheInterpreter) {
  std::vector<MeasureCandidate> candidates;
  std::vector<std::string> names;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    ir::PrimFunc f = entry.build();
    candidates.push_back({f, search::DefaultGpuSchedule(f), entry.shape_vars});
    names.push_back(entry.name);
  }
  std::vector<MeasureResult> results = measurer_->MeasureBatch(candidates);
  ASSERT_EQ(results.size(), candidates.size());
  int passed = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const MeasureResult& r = results[i];
    if (names[i] == "float64_reduce" || names[i] == "bfloat16_add") {
      EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError) << names[i];
      EXPECT_NE(r.message.find(names[i] == "float64_reduce" ? "float64" : "bfloat16"),
                std::string::npos)
          << r.message;
      continue;
    }
    if (r.ok() && r.correctness_checked) {
      ++passed;
      continue;
    }
    MeasureDetails details;
    measurer_->Measure(candidates[i], &details);
    ADD_FAILURE() << names[i] << ": " << Report(r, details);
  }
  EXPECT_EQ(passed, static_cast<int>(candidates.size()) - 2);
  std::cout << "[ zoo ] " << passed << " of " << candidates.size()
            << " zoo functions ran on the Metal CPU shim and matched the interpreter\n";
}

}  // namespace
}  // namespace kiln::runtime
