// The WebGPU runtime on this machine's Vulkan adapter through wgpu-native (lavapipe where there
// is no GPU): the device's facts and the limits it is opened with, and hand-written WGSL run in
// kiln-webgpu-runner (storage buffers, the uniform of scalars, override constants, workgroup
// memory and barriers, a grid folded past 65535 workgroups, timestamps), outputs compared with
// the reference interpreter; kernels past a limit, WGSL that does not compile, a scalar that
// does not fit 32 bits and a hang each end as that candidate's result while the runner and the
// caller go on.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>

#include "ir/interpreter/interpreter.h"
#include "runtime/file_util.h"
#include "runtime/gpu/device.h"
#include "runtime/gpu/gpu_protocol.h"
#include "runtime/measure_result.h"
#include "runtime/sandbox_protocol.h"
#include "runtime/subprocess.h"
#include "runtime/webgpu/webgpu_api.h"
#include "runtime/webgpu/webgpu_backend.h"
#include "runtime/webgpu/workgroup_storage.h"
#include "tests/codegen/test_kernels.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/runtime/webgpu_test_kernels.h"

namespace kiln::runtime::webgpu {
namespace {

using namespace ir;  // NOLINT(google-build-using-namespace)
using codegen::testing::MakeBlock;
using codegen::testing::MakeFunc;
using codegen::testing::Root;
using codegen::testing::Spatial;

// Why the device half cannot run here ("" when it can).
const std::string& NoDevice() {
  static const std::string* why = [] {
    try {
      OpenWebGpuDevice();
      return new std::string;
    } catch (const Error& e) {
      return new std::string(e.what());
    }
  }();
  return *why;
}

#define REQUIRE_DEVICE() \
  if (!NoDevice().empty()) GTEST_SKIP() << "skipped: no wgpu-native device: " << NoDevice()

// C[i] = A[i] * alpha + B[i] over a symbolic n (kAxpy's function).
PrimFunc Axpy() {
  DataType f32 = DataType::Float(32);
  Var n("n", DataType::Int(64));
  Buffer a = DeclBuffer("A", f32, {n});
  Buffer b = DeclBuffer("B", f32, {n});
  Buffer c = DeclBuffer("C", f32, {n});
  Var alpha("alpha", f32);
  Var i("i", DataType::Int(64)), vi("vi", DataType::Int(64));
  Stmt store = BufferStore(c, BufferLoad(a, {vi}) * alpha + BufferLoad(b, {vi}), {vi});
  Stmt block = MakeBlock("C", {Spatial(vi, n)}, {i}, store);
  return MakeFunc("axpy", {a, b, c},
                  Root(For(i, IntImm(DataType::Int(64), 0), n, ForKind::kSerial, block)), {alpha});
}

constexpr double kAlpha = 0.75;

struct RunnerOutcome {
  ProcessResult process;
  SandboxResult result;
  std::map<int, HostTensor> outputs;  // by parameter index
};

class WebGpuRuntimeTest : public ::testing::Test {
 protected:
  void SetUp() override { REQUIRE_DEVICE(); }

  // Runs `wgsl`'s kernel `symbol` over `tensors` (every one a parameter buffer) and `scalars`.
  RunnerOutcome Run(const std::string& wgsl, const std::string& symbol, std::array<int64_t, 3> grid,
                    std::array<int64_t, 3> block, const std::vector<HostTensor>& tensors,
                    const std::vector<gpu::GpuArgSpec>& scalars, double time_limit_s = 60) {
    std::string tag = std::to_string(runs_++);
    gpu::GpuRunRequest request;
    request.source_path = dir_.Sub("kernel" + tag + ".wgsl");
    WriteFileAtomically(request.source_path, wgsl);
    request.kernels.push_back({symbol, grid, block});
    for (size_t i = 0; i < tensors.size(); ++i) {
      std::string path = dir_.Sub("in" + tag + "_" + std::to_string(i) + ".bin");
      WriteTensorFile(tensors[i], path);
      request.buffers.push_back(
          {tensors[i].dtype(), tensors[i].shape(), path, static_cast<int>(i)});
      gpu::GpuArgSpec arg;
      arg.kind = gpu::GpuArgSpec::Kind::kBuffer;
      arg.buffer = static_cast<int>(i);
      request.args.push_back(arg);
    }
    for (const gpu::GpuArgSpec& s : scalars) request.args.push_back(s);
    request.timing = {.number = 2, .repeat = 3, .min_repeat_ms = 1, .warmup = 1};
    request.dump_outputs = true;
    request.output_dir = dir_.Sub("out" + tag);
    std::filesystem::create_directory(request.output_dir);
    std::string request_path = dir_.Sub("request" + tag + ".json");
    std::string result_path = dir_.Sub("result" + tag + ".json");
    WriteFileAtomically(request_path, gpu::GpuRequestToJson(request));

    RunnerOutcome outcome;
    ProcessOptions p;
    p.argv = {KILN_WEBGPU_RUNNER_PATH, request_path, result_path};
    p.extra_env = env_;
    p.time_limit_s = time_limit_s;
    p.capture_output = true;
    outcome.process = RunProcess(p);
    if (outcome.process.ok()) {
      outcome.result = ResultFromJson(ReadWholeFile(result_path), result_path);
      for (const TensorFileRef& out : outcome.result.outputs) {
        outcome.outputs[out.param_index] = ReadTensorFile(out.path, out.dtype, out.shape);
      }
    }
    return outcome;
  }

  static std::vector<HostTensor> AxpyTensors(int64_t n) {
    DataType f32 = DataType::Float(32);
    return {HostTensor::Random(f32, {n}, 1, -1, 1), HostTensor::Random(f32, {n}, 2, -1, 1),
            HostTensor::Random(f32, {n}, 3, -1, 1)};
  }

  static std::vector<gpu::GpuArgSpec> AxpyScalars(int64_t n) {
    gpu::GpuArgSpec alpha;
    alpha.kind = gpu::GpuArgSpec::Kind::kFloat;
    alpha.dtype = DataType::Float(32);
    alpha.float_value = kAlpha;
    gpu::GpuArgSpec count;
    count.kind = gpu::GpuArgSpec::Kind::kInt;
    count.dtype = DataType::Int(64);
    count.int_value = n;
    return {alpha, count};
  }

  RunnerOutcome RunAxpy(int64_t n, std::array<int64_t, 3> grid, std::array<int64_t, 3> block) {
    return Run(test_wgsl::kAxpy, "axpy", grid, block, AxpyTensors(n), AxpyScalars(n));
  }

  // The runner's axpy outputs against the interpreter's on the same inputs.
  static MeasureResult CompareAxpy(const RunnerOutcome& outcome, int64_t n) {
    std::vector<HostTensor> tensors = AxpyTensors(n);
    std::vector<ArgValue> args(tensors.begin(), tensors.end());
    args.push_back(kAlpha);
    Interpret(Axpy(), args);
    std::vector<HostTensor> expected, actual;
    for (int i = 0; i < 3; ++i) {
      expected.push_back(std::get<HostTensor>(args[i]));
      actual.push_back(outcome.outputs.at(i));
    }
    MeasureResult checked;
    CheckOutputs(expected, actual, checked, std::nullopt, {"A", "B", "C"});
    return checked;
  }

  testing::ScratchDir dir_;
  int runs_ = 0;
  std::vector<std::string> env_;  // the runner's extra environment
};

TEST(WebGpuApiTest, VersionsAndTheLibraryRefusedAtLoad) {
  EXPECT_EQ(VersionString(kPinnedWgpuNativeVersion), "29.0.1.1");
  std::string missing = "/nonexistent/libwgpu_native-release.so";
  setenv("KILN_WGPU_NATIVE", missing.c_str(), 1);
  try {
    LoadWgpuNative();
    ADD_FAILURE() << "loaded " << missing;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("no wgpu-native"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(missing), std::string::npos) << e.what();
  }
  unsetenv("KILN_WGPU_NATIVE");
}

TEST(WebGpuDeviceTest, KeysComeFromDeviceNamesAndTheLimitsPolicy) {
  EXPECT_EQ(WebGpuDeviceKey("llvmpipe (LLVM 15.0.6, 256 bits)", LimitsPolicy::kWebGpuDefaults),
            "webgpu-llvmpipe");
  EXPECT_EQ(WebGpuDeviceKey("NVIDIA GeForce RTX 4090", LimitsPolicy::kAdapter),
            "webgpu-nvidia-geforce-rtx-4090-adapter-limits");
  WGPULimits adapter = {};
  adapter.maxComputeInvocationsPerWorkgroup = 1024;
  adapter.maxComputeWorkgroupStorageSize = 32768;
  WGPULimits defaults = RequiredLimits(adapter, LimitsPolicy::kWebGpuDefaults);
  EXPECT_EQ(defaults.maxComputeInvocationsPerWorkgroup, 256u);
  EXPECT_EQ(defaults.maxComputeWorkgroupStorageSize, 16384u);
  EXPECT_EQ(defaults.maxStorageBuffersPerShaderStage, 8u);
  EXPECT_EQ(defaults.maxComputeWorkgroupsPerDimension, 65535u);
  EXPECT_EQ(defaults.maxTextureDimension2D, WGPU_LIMIT_U32_UNDEFINED);  // WebGPU's default
  WGPULimits own = RequiredLimits(adapter, LimitsPolicy::kAdapter);
  EXPECT_EQ(own.maxComputeInvocationsPerWorkgroup, 1024u);
  EXPECT_EQ(own.maxComputeWorkgroupStorageSize, 32768u);
}

TEST(WebGpuDeviceTest, WorkgroupStorageIsCountedPerEntryPoint) {
  EXPECT_EQ(WorkgroupStorageOf(test_wgsl::kTiledMatmul, "matmul").bytes, 2 * 64 * 4);
  EXPECT_EQ(WorkgroupStorageOf(test_wgsl::kWorkgroupMemoryPastTheLimit, "bad").bytes, 20480);
  EXPECT_EQ(WorkgroupStorageOf(test_wgsl::kAxpy, "axpy").bytes, 0);
  const char* two = R"(
var<workgroup> a: array<vec3<f32>, 10>;
var<workgroup> b: array<array<f16, 3>, 2>;
var<workgroup> c: mat4x4<f32>;
fn first() { a[0] = vec3<f32>(); }
fn second() { b[0][0] = 1.0h; c[0][0] = 1.0; })";
  EXPECT_EQ(WorkgroupStorageOf(two, "first").bytes, 160);  // vec3 strides 16 bytes
  WorkgroupStorage second = WorkgroupStorageOf(two, "second");
  EXPECT_EQ(second.bytes, 16);  // 12 bytes rounded up to 16
  EXPECT_EQ(second.unknown, "c");
}

TEST(WebGpuDeviceTest, OpensTheAdapterWithWebGpuDefaultLimits) {
  REQUIRE_DEVICE();
  WebGpuDeviceInfo info;
  std::unique_ptr<gpu::GpuBackend> backend = OpenWebGpuDevice(&info);
  EXPECT_EQ(info.library, "wgpu-native 29.0.1.1");
  EXPECT_EQ(info.backend, "vulkan");
  EXPECT_FALSE(info.device.empty());
  EXPECT_EQ(info.key.rfind("webgpu-", 0), 0u) << info.key;
  // Exactly the limits tuned against, whatever the adapter could grant.
  EXPECT_EQ(info.limits.maxComputeInvocationsPerWorkgroup, 256u);
  EXPECT_EQ(info.limits.maxComputeWorkgroupStorageSize, 16384u);
  EXPECT_EQ(info.limits.maxStorageBuffersPerShaderStage, 8u);
  EXPECT_EQ(info.limits.maxComputeWorkgroupsPerDimension, 65535u);
  EXPECT_GE(info.adapter_limits.maxComputeInvocationsPerWorkgroup, 256u);
  gpu::DeviceDescription d = backend->Describe();
  EXPECT_EQ(d.kind, "webgpu");
  EXPECT_EQ(d.key, info.key);
  EXPECT_EQ(d.limits.max_threads_per_block, 256);
  EXPECT_EQ(d.limits.max_shared_bytes, 16384);
  EXPECT_FALSE(d.limits.fp64);
  EXPECT_FALSE(d.limits.int64);
  EXPECT_NE(d.platform.find("wgpu-native"), std::string::npos) << d.platform;
  EXPECT_NE(DescribeWebGpuDevice(info).find(info.key), std::string::npos);
  if (info.device.find("llvmpipe") != std::string::npos) {
    // lavapipe (DEPENDENCIES.md): timestamps inside passes, 1 ns ticks, 32 KiB, 1024 threads.
    EXPECT_EQ(info.key, "webgpu-llvmpipe");
    EXPECT_EQ(info.adapter_type, "cpu");
    EXPECT_TRUE(info.timestamps);
    EXPECT_TRUE(info.timestamps_inside_passes);
    EXPECT_DOUBLE_EQ(info.timestamp_period_ns, 1.0);
    EXPECT_EQ(info.adapter_limits.maxComputeInvocationsPerWorkgroup, 1024u);
    EXPECT_EQ(info.adapter_limits.maxComputeWorkgroupStorageSize, 32768u);
  }
}

TEST(WebGpuRunnerTest, DescribesTheDeviceForTheMeasurer) {
  REQUIRE_DEVICE();
  testing::ScratchDir dir;
  std::string path = dir.Sub("device.json");
  ProcessOptions p;
  p.argv = {KILN_WEBGPU_RUNNER_PATH, "describe", path};
  p.time_limit_s = 60;
  p.capture_output = true;
  ProcessResult run = RunProcess(p);
  ASSERT_TRUE(run.ok()) << run.Describe() << run.output;
  gpu::DeviceDescription d = gpu::DeviceFromJson(ReadWholeFile(path), path);
  WebGpuDeviceInfo info;
  OpenWebGpuDevice(&info);
  EXPECT_EQ(d.kind, "webgpu");
  EXPECT_EQ(d.key, info.key);
  EXPECT_EQ(d.limits.max_threads_per_block, 256);
  EXPECT_EQ(d.limits.max_shared_bytes, 16384);
}

TEST(WebGpuRunnerTest, WithoutWgpuNativeTheRunnerSaysSo) {
  testing::ScratchDir dir;
  ProcessOptions p;
  p.argv = {KILN_WEBGPU_RUNNER_PATH, "describe", dir.Sub("device.json")};
  p.extra_env = {"KILN_WGPU_NATIVE=/nonexistent/libwgpu_native-release.so"};
  p.time_limit_s = 60;
  p.capture_output = true;
  ProcessResult run = RunProcess(p);
  EXPECT_TRUE(run.exited);
  EXPECT_EQ(run.exit_code, gpu::kNoDeviceExitStatus) << run.Describe() << run.output;
  EXPECT_NE(run.output.find("no wgpu-native"), std::string::npos) << run.output;
}

TEST(WgslValidateToolTest, ReportsEachValidatorAndExitsNonZeroOnARejection) {
  testing::ScratchDir dir;
  std::string good = dir.Sub("matmul.wgsl"), bad = dir.Sub("barrier.wgsl");
  WriteFileAtomically(good, test_wgsl::kTiledMatmul);
  WriteFileAtomically(bad, test_wgsl::kBarrierInNonUniformControlFlow);
  auto run = [](std::vector<std::string> args) {
    ProcessOptions p;
    p.argv = {KILN_WGSL_VALIDATE_PATH};
    p.argv.insert(p.argv.end(), args.begin(), args.end());
    p.time_limit_s = 60;
    p.capture_output = true;
    return RunProcess(p);
  };
  ProcessResult accepted = run({good, "matmul=8,8,1/6,4,1"});
  ProcessResult rejected = run({bad});
  ProcessResult naga_only = run({"--naga", bad});
  ProcessResult usage = run({good, "matmul=8,8"});
  for (ProcessResult* r : {&accepted, &rejected, &naga_only}) {
    if (r->exited && r->exit_code == 3) GTEST_SKIP() << "skipped: " << r->output;
  }
  EXPECT_EQ(accepted.exit_code, 0) << accepted.output;
  EXPECT_NE(accepted.output.find("naga: ok"), std::string::npos) << accepted.output;
  EXPECT_NE(accepted.output.find("tint: ok"), std::string::npos) << accepted.output;
  EXPECT_EQ(rejected.exit_code, 1) << rejected.output;
  EXPECT_NE(rejected.output.find("uniform control flow"), std::string::npos) << rejected.output;
  EXPECT_EQ(naga_only.exit_code, 0) << naga_only.output;  // naga lets it through
  EXPECT_EQ(usage.exit_code, 2) << usage.output;
}

TEST_F(WebGpuRuntimeTest, TiledMatmulWithWorkgroupMemoryMatchesTheInterpreter) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("matmul");
  PrimFunc f = entry.build();
  std::vector<HostTensor> inputs = ir::zoo::MakeArguments(entry, f, 7);
  RunnerOutcome outcome = Run(test_wgsl::kTiledMatmul, "matmul", {6, 4, 1}, {8, 8, 1}, inputs, {});
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  std::vector<ArgValue> args(inputs.begin(), inputs.end());
  Interpret(f, args);
  std::vector<HostTensor> expected, actual;
  for (size_t i = 0; i < inputs.size(); ++i) {
    expected.push_back(std::get<HostTensor>(args[i]));
    actual.push_back(outcome.outputs.at(static_cast<int>(i)));
  }
  MeasureResult checked;
  CheckOutputs(expected, actual, checked, std::nullopt, {"A", "B", "C"});
  EXPECT_TRUE(checked.ok()) << checked.message;
  EXPECT_EQ(outcome.result.repeat_seconds.size(), 3u);
  EXPECT_GT(outcome.result.median_seconds, 0);
  EXPECT_GT(outcome.result.build_seconds, 0);
}

TEST_F(WebGpuRuntimeTest, ScalarsTravelInTheUniformAndTheGuardDropsExtraThreads) {
  // 16 workgroups of 64 cover 1000 elements; the guard drops the last 24 threads.
  RunnerOutcome outcome = RunAxpy(1000, {16, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  MeasureResult checked = CompareAxpy(outcome, 1000);
  EXPECT_TRUE(checked.ok()) << checked.message;
  EXPECT_GE(outcome.result.number, 2);
  // Too few workgroups: the oracle notices the elements no thread wrote.
  RunnerOutcome short_grid = RunAxpy(1000, {8, 1, 1}, {64, 1, 1});
  ASSERT_EQ(short_grid.result.error_kind, MeasureErrorKind::kOk) << short_grid.result.message;
  EXPECT_EQ(CompareAxpy(short_grid, 1000).error_kind, MeasureErrorKind::kWrongResult);
}

TEST_F(WebGpuRuntimeTest, EveryTimerTimesTheRun) {
  // Timestamps inside the pass (lavapipe has them), the pass's own timestamps, the host clock.
  for (const char* timer : {"", "pass", "host"}) {
    SCOPED_TRACE(std::string("timer ") + timer);
    env_ = {std::string("KILN_WEBGPU_TIMER=") + timer};
    RunnerOutcome outcome = RunAxpy(1000, {16, 1, 1}, {64, 1, 1});
    ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
    ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
    EXPECT_TRUE(CompareAxpy(outcome, 1000).ok());
    ASSERT_EQ(outcome.result.repeat_seconds.size(), 3u);
    for (double seconds : outcome.result.repeat_seconds) {
      EXPECT_GT(seconds, 0);
      EXPECT_LT(seconds, 1);  // 2 runs of 1000 elements
    }
  }
}

TEST_F(WebGpuRuntimeTest, AGridPastTheDimensionLimitRunsFolded) {
  // 100000 workgroups of one thread: dispatched as (65535, 2, 1), past-the-end ones leave.
  RunnerOutcome outcome = RunAxpy(100000, {100000, 1, 1}, {1, 1, 1});
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  MeasureResult checked = CompareAxpy(outcome, 100000);
  EXPECT_TRUE(checked.ok()) << checked.message;
}

TEST_F(WebGpuRuntimeTest, KernelsPastALimitAreErrorsAndTheRunnerGoesOn) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("matmul");
  std::vector<HostTensor> inputs = ir::zoo::MakeArguments(entry, entry.build(), 7);
  // 512 invocations per workgroup on a device opened with WebGPU's 256 (lavapipe has 1024).
  RunnerOutcome threads =
      Run(test_wgsl::kTiledMatmul, "matmul", {3, 2, 1}, {16, 32, 1}, inputs, {});
  ASSERT_TRUE(threads.process.ok()) << threads.process.Describe() << threads.process.output;
  EXPECT_EQ(threads.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(threads.result.message.find("maxComputeInvocationsPerWorkgroup limit 256"),
            std::string::npos)
      << threads.result.message;
  EXPECT_NE(threads.result.message.find("kernel matmul"), std::string::npos);
  // 20 KiB of workgroup storage on a device opened with 16 KiB (lavapipe has 32 KiB).
  RunnerOutcome storage = Run(test_wgsl::kWorkgroupMemoryPastTheLimit, "bad", {1, 1, 1}, {64, 1, 1},
                              {HostTensor::Random(DataType::Float(32), {64}, 1, -1, 1)}, {});
  EXPECT_EQ(storage.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(storage.result.message.find("20480 bytes of workgroup storage"), std::string::npos)
      << storage.result.message;
  EXPECT_NE(storage.result.message.find("16384"), std::string::npos) << storage.result.message;
  // A dimension past the device's.
  RunnerOutcome wide = Run(test_wgsl::kTiledMatmul, "matmul", {1, 1, 1}, {1, 1, 128}, inputs, {});
  EXPECT_EQ(wide.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(wide.result.message.find("maxComputeWorkgroupSizeZ limit 64"), std::string::npos)
      << wide.result.message;
  // The next candidate runs.
  RunnerOutcome next = RunAxpy(1000, {16, 1, 1}, {64, 1, 1});
  ASSERT_EQ(next.result.error_kind, MeasureErrorKind::kOk) << next.result.message;
  EXPECT_TRUE(CompareAxpy(next, 1000).ok());
}

TEST_F(WebGpuRuntimeTest, UnderTheAdaptersOwnLimitsTheSameKernelRunsWithItsOwnKey) {
  // KILN_WEBGPU_LIMITS=adapter: the device is opened with all the adapter grants (lavapipe:
  // 1024 invocations), the key says so, and 512 invocations per workgroup run.
  env_ = {"KILN_WEBGPU_LIMITS=adapter"};
  std::string path = dir_.Sub("adapter-device.json");
  ProcessOptions p;
  p.argv = {KILN_WEBGPU_RUNNER_PATH, "describe", path};
  p.extra_env = env_;
  p.time_limit_s = 60;
  p.capture_output = true;
  ProcessResult run = RunProcess(p);
  ASSERT_TRUE(run.ok()) << run.Describe() << run.output;
  gpu::DeviceDescription d = gpu::DeviceFromJson(ReadWholeFile(path), path);
  EXPECT_EQ(d.key.size() - d.key.rfind("-adapter-limits"), 15u) << d.key;
  if (d.limits.max_threads_per_block < 512) GTEST_SKIP() << "skipped: the adapter has < 512";
  RunnerOutcome outcome = RunAxpy(1000, {2, 1, 1}, {512, 1, 1});
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  EXPECT_TRUE(CompareAxpy(outcome, 1000).ok());
}

TEST_F(WebGpuRuntimeTest, WgslThatDoesNotCompileIsABuildErrorWithNagasMessage) {
  RunnerOutcome outcome = Run("@compute @workgroup_size(1) fn axpy() { let x = missing; }\n",
                              "axpy", {1, 1, 1}, {1, 1, 1}, AxpyTensors(4), {});
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  EXPECT_EQ(outcome.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(outcome.result.message.find("missing"), std::string::npos) << outcome.result.message;
  EXPECT_NE(outcome.result.message.find("naga"), std::string::npos) << outcome.result.message;
}

TEST_F(WebGpuRuntimeTest, AScalarPast32BitsIsARuntimeErrorNamingIt) {
  std::vector<gpu::GpuArgSpec> scalars = AxpyScalars(1000);
  scalars[1].int_value = int64_t{1} << 40;
  RunnerOutcome outcome =
      Run(test_wgsl::kAxpy, "axpy", {16, 1, 1}, {64, 1, 1}, AxpyTensors(1000), scalars);
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  EXPECT_EQ(outcome.result.error_kind, MeasureErrorKind::kRuntimeError);
  EXPECT_NE(outcome.result.message.find("does not fit the i32"), std::string::npos)
      << outcome.result.message;
  EXPECT_NE(outcome.result.message.find(std::to_string(int64_t{1} << 40)), std::string::npos);
}

TEST_F(WebGpuRuntimeTest, AHangingKernelIsKilledAtTheLimitAndTheNextOneRuns) {
  RunnerOutcome outcome = Run(test_wgsl::kHang, "axpy", {65535, 64, 1}, {64, 1, 1}, AxpyTensors(64),
                              AxpyScalars(64), /*time_limit_s=*/3);
  EXPECT_TRUE(outcome.process.timed_out) << outcome.process.Describe();
  RunnerOutcome next = RunAxpy(1000, {16, 1, 1}, {64, 1, 1});
  ASSERT_EQ(next.result.error_kind, MeasureErrorKind::kOk) << next.result.message;
}

}  // namespace
}  // namespace kiln::runtime::webgpu
