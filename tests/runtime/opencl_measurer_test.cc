// The OpenCL measurer on this machine's OpenCL device (PoCL without a GPU): discovery, and
// hand-scheduled kernels (blockIdx/threadIdx binding, a shared-memory tile with barriers, a
// reduction across threads through rfactor, vector types) built with clBuildProgram, run in
// kiln-opencl-runner and compared with the interpreter's outputs; device limits refused by name.
#include "runtime/opencl/opencl_measurer.h"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>

#include "gpu_measurer_suite.h"
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

struct OpenCLDevice {
  static constexpr const char* kKind = "opencl";
  static constexpr const char* kMissing = "no OpenCL device";
  static std::unique_ptr<Measurer> Create(const MeasureOptions& options) {
    return opencl::CreateOpenCLMeasurer(options);
  }
};

class OpenCLMeasurerTest : public GpuMeasurerSuite<OpenCLDevice> {};

TEST_F(OpenCLMeasurerTest, DiscoversTheDevice) {
  const auto& device = static_cast<gpu::GpuMeasurer*>(measurer_)->device();
  EXPECT_EQ(device.kind, "opencl");
  EXPECT_FALSE(device.name.empty());
  EXPECT_EQ(device.key.rfind("opencl-", 0), 0u) << device.key;
  EXPECT_GE(device.limits.max_threads_per_block, 64);
  EXPECT_GT(device.limits.max_shared_bytes, 0);
  if (device.platform.find("Portable Computing Language") != std::string::npos) {
    EXPECT_EQ(device.key, "opencl-pocl");
  }
}

TEST_F(OpenCLMeasurerTest, MatmulBoundToBlocksAndThreads) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch = BoundMatmul(f, 8, 16);
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message << "\n"
                      << details.source.code;
  EXPECT_TRUE(r.correctness_checked);
  EXPECT_NE(r.reference.find("opencl-"), std::string::npos) << r.reference;
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_EQ(r.repeat_seconds.size(), 2u);
  ASSERT_TRUE(details.source.launch.has_value());
  ASSERT_EQ(details.source.launch->kernels.size(), 1u);
  const auto& launch = details.source.launch->kernels[0];
  EXPECT_EQ(ir::AsConstInt(launch.extents.grid[0]), 3);  // 48 / 16
  EXPECT_EQ(ir::AsConstInt(launch.extents.grid[1]), 4);  // 32 / 8
  EXPECT_EQ(ir::AsConstInt(launch.extents.block[0]), 16);
  EXPECT_EQ(ir::AsConstInt(launch.extents.block[1]), 8);
  EXPECT_NE(details.source.code.find("get_local_id(1)"), std::string::npos);
}

TEST_F(OpenCLMeasurerTest, UnevenSplitIsGuarded) {
  // 48 split by 10: the last block's threads beyond the extent do nothing.
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch = BoundMatmul(f, 6, 10);
  MeasureResult r = Measure(f, sch.func());
  EXPECT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message;
}

TEST_F(OpenCLMeasurerTest, SharedMemoryTileWithBarriers) {
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
  ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message << "\n"
                      << details.source.code;
  EXPECT_NE(details.source.code.find("__local float"), std::string::npos) << details.source.code;
  EXPECT_NE(details.source.code.find("barrier("), std::string::npos) << details.source.code;
  EXPECT_GT(details.source.launch->kernels[0].shared_bytes, 0);
}

TEST_F(OpenCLMeasurerTest, ReductionAcrossThreadsThroughRFactor) {
  // C[i, j] over k = 40: k split 8 x 5, the 8 partial sums computed by 8 threads into a
  // shared buffer, then summed by one thread per (i, j).
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> k = sch.Split(loops[2], {8, std::nullopt});
  BlockRV rf = sch.RFactor(k[0], 0);
  sch.SetScope(rf, 0, "shared");
  std::vector<LoopRV> rf_loops = sch.GetLoops(rf);  // ko, i, j, ki  (the rfactor order)
  BlockRV final_block = sch.GetBlock("C");
  std::vector<LoopRV> final_loops = sch.GetLoops(final_block);  // i, j, ko
  // Bind the spatial i to blocks and compute the partial sums under it.
  LoopRV bi = final_loops[0];
  sch.Bind(bi, "blockIdx.x");
  sch.ComputeAt(rf, bi);
  rf_loops = sch.GetLoops(rf);
  // rf loops under bi: the factor loop ko (spatial for the rfactor block) goes to threads.
  for (LoopRV l : rf_loops) {
    const ir::ForNode* loop = sch.Get(l);
    if (loop->for_kind == ir::ForKind::kSerial && ir::AsConstInt(loop->extent) == 8) {
      sch.Bind(l, "threadIdx.x");
      break;
    }
  }
  MeasureDetails details;
  MeasureResult r = Measure(f, sch.func(), &details);
  ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message << "\n"
                      << details.source.code;
  EXPECT_NE(details.source.code.find("barrier("), std::string::npos) << details.source.code;
}

TEST_F(OpenCLMeasurerTest, ReductionLoopBoundToThreadsIsRefusedByName) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Bind(loops[0], "blockIdx.x");
  sch.Bind(loops[2], "threadIdx.x");
  MeasureResult r = Measure(f, sch.func());
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find("across threads"), std::string::npos) << r.message;
}

TEST_F(OpenCLMeasurerTest, VectorTypes) {
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
  ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message << "\n"
                      << details.source.code;
  EXPECT_NE(details.source.code.find("vstore4"), std::string::npos) << details.source.code;
}

TEST_F(OpenCLMeasurerTest, TooManyThreadsPerBlockIsABuildErrorNamingTheLoop) {
  // Twice the device's threads per block, all bound to threadIdx.x.
  int64_t limit = static_cast<gpu::GpuMeasurer*>(measurer_)->device().limits.max_threads_per_block;
  ir::PrimFunc f = codegen::testing::Matmul(2 * limit / 16, 16, 4);
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  LoopRV fused = sch.Fuse({loops[0], loops[1]});
  sch.Bind(fused, "threadIdx.x");
  std::string loop_name = sch.Get(fused)->loop_var.name();
  MeasureResult r = Measure(f, sch.func());
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(r.message.find(std::to_string(2 * limit) + " threads per block"), std::string::npos)
      << r.message;
  EXPECT_NE(r.message.find("loop " + loop_name), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("limit of " + std::to_string(limit)), std::string::npos) << r.message;
}

TEST_F(OpenCLMeasurerTest, SymbolicShapesGiveLaunchExtentsAtRunTime) {
  // m = 20 rows split by 8: ceil(m / 8) blocks, the last one guarded.
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("matmul_symbolic_m");
  ir::PrimFunc f = entry.build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  sch.Reorder({i[0], loops[1], i[1], loops[2]});
  sch.Bind(i[0], "blockIdx.x");
  sch.Bind(loops[1], "threadIdx.x");
  MeasureDetails details;
  MeasureResult r = measurer_->Measure({f, sch.func(), entry.shape_vars}, &details);
  ASSERT_TRUE(r.ok()) << MeasureErrorKindName(r.error_kind) << ": " << r.message << "\n"
                      << details.source.code;
  ASSERT_TRUE(details.source.launch.has_value());
  EXPECT_FALSE(ir::AsConstInt(details.source.launch->kernels[0].extents.grid[0]).has_value());
  codegen::gpu::ConcreteLaunch c =
      codegen::gpu::Concretize(details.source.launch->kernels[0], entry.shape_vars);
  EXPECT_EQ(c.grid[0], 3);
  EXPECT_EQ(c.block[0], 24);
}

// Every function of the zoo under the default GPU schedule (each top-level block's spatial
// loops fused and bound): the emitter and runtime cover every op the front ends produce.
TEST_F(OpenCLMeasurerTest, EveryZooFunctionUnderTheDefaultGpuSchedule) {
  std::vector<MeasureCandidate> candidates;
  std::vector<std::string> names;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    ir::PrimFunc f = entry.build();
    candidates.push_back({f, search::DefaultGpuSchedule(f), entry.shape_vars});
    names.push_back(entry.name);
  }
  std::vector<MeasureResult> results = measurer_->MeasureBatch(candidates);
  ASSERT_EQ(results.size(), candidates.size());
  for (size_t i = 0; i < results.size(); ++i) {
    if (results[i].ok()) continue;
    MeasureDetails details;
    measurer_->Measure(candidates[i], &details);
    ADD_FAILURE() << names[i] << ": " << MeasureErrorKindName(results[i].error_kind) << ": "
                  << results[i].message << "\n"
                  << details.source.code;
  }
}

// A runner that crashes or hangs (a lost device, a kernel that never ends) is a result of the
// candidate, and the measurer goes on measuring.
TEST_F(OpenCLMeasurerTest, ACrashingOrHangingRunnerIsAResult) {
  std::string real = gpu::FindRunnerExecutable(opencl::OpenCLDeviceSpec());
  for (const char* action : {"kill -SEGV $$", "exec sleep 30"}) {
    std::string script = scratch_->Sub("runner.sh");
    {
      std::ofstream out(script);
      out << "#!/bin/sh\nif [ \"$1\" = describe ]; then exec " << real << " \"$@\"; fi\n"
          << action << "\n";
    }
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    setenv("KILN_OPENCL_RUNNER", script.c_str(), 1);
    MeasureOptions options;
    options.cache_dir = scratch_->Sub("cache");
    options.sandbox_path = FindSandboxExecutable(KILN_SANDBOX_PATH);
    options.build_time_limit_s = 1;
    options.run_time_limit_s = 1;
    std::unique_ptr<Measurer> broken = opencl::CreateOpenCLMeasurer(options);
    unsetenv("KILN_OPENCL_RUNNER");
    ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
    MeasureResult r = broken->Measure({f, BoundMatmul(f, 8, 16).func()});
    if (std::string(action).rfind("kill", 0) == 0) {
      EXPECT_EQ(r.error_kind, MeasureErrorKind::kRuntimeError) << r.message;
      EXPECT_NE(r.message.find("SIGSEGV"), std::string::npos) << r.message;
    } else {
      EXPECT_EQ(r.error_kind, MeasureErrorKind::kTimeout) << r.message;
    }
  }
  // The measurer of the real device still serves.
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  EXPECT_TRUE(Measure(f, BoundMatmul(f, 8, 16).func()).ok());
}

}  // namespace
}  // namespace kiln::runtime
