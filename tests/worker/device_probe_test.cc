// The worker's device table: the CPU is always there, a registered kind is one call away, an
// unknown kind lists the known ones, and a GPU kind on a machine without that GPU fails naming
// what is missing -- in the library and in `kiln-worker --device cuda`, which exits non-zero.
#include "worker/device_probe.h"

#include <gtest/gtest.h>

#include "runtime/subprocess.h"
#include "support/error.h"

namespace kiln::worker {
namespace {

TEST(DeviceProbeTest, CpuIsAlwaysThere) {
  ProbedDevice cpu = ProbeDevice("cpu");
  EXPECT_EQ(cpu.kind, "cpu");
  EXPECT_EQ(cpu.key.rfind("cpu-", 0), 0u) << cpu.key;
  EXPECT_EQ(cpu.target, "llvm");
  EXPECT_FALSE(cpu.hardware.empty());
  EXPECT_FALSE(cpu.gpu.has_value());
}

TEST(DeviceProbeTest, EveryGpuApiHasAnEntry) {
  std::vector<std::string> kinds = DeviceKinds();
  for (const char* kind : {"cpu", "cuda", "fake", "opencl", "vulkan"}) {
    EXPECT_NE(std::find(kinds.begin(), kinds.end(), kind), kinds.end()) << kind;
  }
}

TEST(DeviceProbeTest, UnknownKindListsTheKnownOnes) {
  try {
    ProbeDevice("tpu");
    FAIL() << "tpu was probed";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    std::string message = e.what();
    EXPECT_NE(message.find("'tpu'"), std::string::npos) << message;
    EXPECT_NE(message.find("cuda"), std::string::npos) << message;
  }
}

TEST(DeviceProbeTest, AddingAKindIsOneCall) {
  RegisterDeviceProbe("test-accelerator", [] {
    return ProbedDevice{"test-accelerator", "test-accelerator-v1", "a test device", "c"};
  });
  EXPECT_EQ(ProbeDevice("test-accelerator").key, "test-accelerator-v1");
}

// OpenCL (PoCL) and Vulkan (lavapipe) run on machines without a GPU: their probes go through
// the same path a CUDA GPU's does (the measurer's runner describes the device).
TEST(DeviceProbeTest, GpuKindsPresentHereDescribeTheirDevice) {
  int probed = 0;
  for (const char* kind : {"opencl", "vulkan"}) {
    ProbedDevice d;
    try {
      d = ProbeDevice(kind);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUnsupported) << e.what();
      continue;
    }
    ++probed;
    EXPECT_EQ(d.kind, kind);
    EXPECT_EQ(d.target, kind);
    EXPECT_EQ(d.key.rfind(std::string(kind) + "-", 0), 0u) << d.key;
    ASSERT_TRUE(d.gpu.has_value()) << kind;
    EXPECT_EQ(d.gpu->key, d.key);
    EXPECT_GT(d.gpu->limits.max_threads_per_block, 0);
    EXPECT_GT(d.gpu->limits.max_shared_bytes, 0);
    schemas::RegisterMsg m;
    AddDeviceFacts(d, m);
    EXPECT_EQ(m.max_threads_per_block, d.gpu->limits.max_threads_per_block);
  }
  if (probed == 0) GTEST_SKIP() << "skipped: no OpenCL or Vulkan device";
}

TEST(DeviceProbeTest, AGpuRegistersItsLimitsAndFeatures) {
  runtime::gpu::DeviceDescription h100;
  h100.kind = "cuda";
  h100.name = "NVIDIA H100 80GB HBM3";
  h100.key = "cuda-h100";
  h100.limits.max_threads_per_block = 1024;
  h100.limits.max_shared_bytes = 48 * 1024;
  h100.limits.warp_size = 32;
  h100.limits.fp16 = true;
  h100.limits.fp64 = true;
  h100.limits.int64 = true;
  ProbedDevice probed{"cuda", "cuda-h100", "NVIDIA H100 80GB HBM3, sm_90", "cuda", h100};
  schemas::RegisterMsg m;
  m.hardware = "cuda";
  AddDeviceFacts(probed, m);
  EXPECT_EQ(m.hardware, "NVIDIA H100 80GB HBM3, sm_90");
  EXPECT_EQ(m.max_threads_per_block, 1024u);
  EXPECT_EQ(m.max_shared_bytes, 49152u);
  EXPECT_EQ(m.warp_size, 32u);
  EXPECT_EQ(m.features, (std::vector<std::string>{"fp16", "fp64", "int64"}));

  schemas::RegisterMsg cpu;
  AddDeviceFacts(ProbeDevice("cpu"), cpu);
  EXPECT_EQ(cpu.max_threads_per_block, 0u);
  EXPECT_TRUE(cpu.features.empty());
}

// Whether this machine has a CUDA device (then the absent-device checks do not apply).
bool HasCudaDevice(std::string* why) {
  try {
    ProbeDevice("cuda");
    return true;
  } catch (const Error& e) {
    *why = e.what();
    return false;
  }
}

TEST(DeviceProbeTest, MissingCudaDeviceNamesTheDriverOrDevice) {
  std::string why;
  if (HasCudaDevice(&why)) GTEST_SKIP() << "this machine has a CUDA device";
  EXPECT_NE(why.find("no cuda device"), std::string::npos) << why;
  EXPECT_TRUE(why.find("libcuda") != std::string::npos ||
              why.find("CUDA device") != std::string::npos)
      << why;
}

TEST(DeviceProbeTest, WorkerWithoutTheDeviceSaysSoAndExitsNonZero) {
  std::string why;
  if (HasCudaDevice(&why)) GTEST_SKIP() << "this machine has a CUDA device";
  runtime::ProcessOptions p;
  // Nothing listens there: the worker must stop before it ever connects.
  p.argv = {KILN_WORKER_PATH, "--coordinator", "tcp://127.0.0.1:9", "--device", "cuda"};
  p.capture_output = true;
  p.time_limit_s = 60;
  runtime::ProcessResult r = runtime::RunProcess(p);
  ASSERT_FALSE(r.timed_out) << r.output;
  ASSERT_TRUE(r.exited) << r.Describe();
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("no cuda device"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("libcuda.so.1"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace kiln::worker
