// The Vulkan runtime on this machine's device (lavapipe where there is no GPU): discovery,
// GLSL to SPIR-V, and a hand-written kernel run in kiln-vulkan-runner (buffers, push
// constants, specialization constants, timestamps), its outputs compared with the reference
// interpreter; a compile error and a launch past a device limit are build errors naming them,
// and a hang ends at the wall-clock limit.
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
#include "runtime/vulkan/spirv_cache.h"
#include "runtime/vulkan/spirv_compiler.h"
#include "runtime/vulkan/vulkan_device.h"
#include "tests/codegen/test_kernels.h"
#include "tests/runtime/runtime_test_util.h"

namespace kiln::runtime::vulkan {
namespace {

using namespace ir;
using codegen::testing::MakeBlock;
using codegen::testing::MakeFunc;
using codegen::testing::Root;
using codegen::testing::Spatial;

// C[i] = A[i] * alpha + B[i] over a symbolic n: buffers, a float scalar and a shape variable
// (both push constants).
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

// The work group size comes from specialization constants 0-2, as the GLSL target emits it.
constexpr char kAxpyGlsl[] = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, set = 0, binding = 0) buffer A_ { float A[]; };
layout(std430, set = 0, binding = 1) buffer B_ { float B[]; };
layout(std430, set = 0, binding = 2) buffer C_ { float C[]; };
layout(push_constant) uniform Args {
  layout(offset = 0) float alpha;
  layout(offset = 8) int64_t n;
} args;
void main() {
  int64_t i = int64_t(gl_GlobalInvocationID.x);
  if (i < args.n) C[int(i)] = A[int(i)] * args.alpha + B[int(i)];
}
)";

constexpr int64_t kN = 1000;
constexpr double kAlpha = 0.75;

// What the runner made of one request.
struct RunnerOutcome {
  ProcessResult process;
  SandboxResult result;
  std::map<int, HostTensor> outputs;  // by parameter index
};

class VulkanRuntimeTest : public ::testing::Test {
 protected:
  // Inputs of A, B, C (C is overwritten) and the scalars, as the interpreter takes them.
  std::vector<ArgValue> Inputs() const {
    DataType f32 = DataType::Float(32);
    return {HostTensor::Random(f32, {kN}, 1, -1, 1), HostTensor::Random(f32, {kN}, 2, -1, 1),
            HostTensor::Random(f32, {kN}, 3, -1, 1), kAlpha};
  }

  RunnerOutcome Run(const std::string& glsl, std::array<int64_t, 3> grid,
                    std::array<int64_t, 3> block, double time_limit_s = 60) {
    std::string tag = std::to_string(runs_++);
    gpu::GpuRunRequest request;
    request.source_path = dir_.Sub("kernel" + tag + ".comp");
    WriteFileAtomically(request.source_path, glsl);
    request.kernels.push_back({"axpy", grid, block});
    std::vector<ArgValue> inputs = Inputs();
    for (int i = 0; i < 3; ++i) {
      const auto& t = std::get<HostTensor>(inputs[i]);
      std::string path = dir_.Sub("in" + tag + "_" + std::to_string(i) + ".bin");
      WriteTensorFile(t, path);
      request.buffers.push_back({t.dtype(), t.shape(), path, i});
      gpu::GpuArgSpec arg;
      arg.kind = gpu::GpuArgSpec::Kind::kBuffer;
      arg.buffer = i;
      request.args.push_back(arg);
    }
    gpu::GpuArgSpec alpha;
    alpha.kind = gpu::GpuArgSpec::Kind::kFloat;
    alpha.dtype = DataType::Float(32);
    alpha.float_value = kAlpha;
    gpu::GpuArgSpec n;
    n.kind = gpu::GpuArgSpec::Kind::kInt;
    n.dtype = DataType::Int(64);
    n.int_value = kN;
    request.args.push_back(alpha);
    request.args.push_back(n);
    request.timing = {.number = 2, .repeat = 3, .min_repeat_ms = 1, .warmup = 1};
    request.dump_outputs = true;
    request.output_dir = dir_.Sub("out" + tag);
    std::filesystem::create_directory(request.output_dir);
    std::string request_path = dir_.Sub("request" + tag + ".json");
    std::string result_path = dir_.Sub("result" + tag + ".json");
    WriteFileAtomically(request_path, gpu::GpuRequestToJson(request));

    RunnerOutcome outcome;
    ProcessOptions p;
    p.argv = {KILN_VULKAN_RUNNER_PATH, request_path, result_path};
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

  // The runner's outputs compared with the interpreter's on the same inputs.
  MeasureResult Compare(RunnerOutcome& outcome) const {
    std::vector<ArgValue> args = Inputs();
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
};

TEST(VulkanDeviceTest, DiscoversADeviceWithLimitsAndFeatures) {
  std::vector<VulkanDeviceInfo> devices = DiscoverVulkanDevices();
  ASSERT_FALSE(devices.empty());
  VulkanDeviceInfo device = DefaultVulkanDevice();
  EXPECT_EQ(device.key, VulkanDeviceKey(device.name));
  EXPECT_EQ(device.key.rfind("vulkan-", 0), 0u) << device.key;
  EXPECT_GE(device.max_workgroup_invocations, 128u);
  EXPECT_GE(device.max_shared_memory_bytes, 16384u);
  EXPECT_GT(device.subgroup_size, 0u);
  EXPECT_GE(device.max_push_constants_bytes, 128u);
  EXPECT_TRUE(device.timestamps);
  EXPECT_GT(device.timestamp_period_ns, 0);
  if (device.driver == "llvmpipe") {
    // lavapipe's figures (DEPENDENCIES.md): the key the records of this machine carry.
    EXPECT_EQ(device.key, "vulkan-llvmpipe");
    EXPECT_EQ(device.max_workgroup_invocations, 1024u);
    EXPECT_EQ(device.max_shared_memory_bytes, 32768u);
    EXPECT_EQ(device.subgroup_size, 8u);
    EXPECT_TRUE(device.shader_float16);
    EXPECT_TRUE(device.shader_int64);
  }
  EXPECT_NE(DescribeVulkanDevice(device).find(device.key), std::string::npos);
}

TEST(VulkanDeviceTest, KeysComeFromDeviceNames) {
  EXPECT_EQ(VulkanDeviceKey("llvmpipe (LLVM 15.0.6, 256 bits)"), "vulkan-llvmpipe");
  EXPECT_EQ(VulkanDeviceKey("NVIDIA H100 PCIe"), "vulkan-nvidia-h100-pcie");
  EXPECT_EQ(VulkanDeviceKey("SwiftShader Device (Subzero)"), "vulkan-swiftshader-device");
}

TEST(SpirvCompilerTest, CompilesAComputeShaderAndReportsErrorsWithLines) {
  SpirvResult ok = CompileGlslToSpirv(kAxpyGlsl, "axpy.comp");
  ASSERT_TRUE(ok.ok) << ok.error;
  ASSERT_GT(ok.words.size(), 5u);
  EXPECT_EQ(ok.words[0], 0x07230203u);  // the SPIR-V magic number

  SpirvResult bad =
      CompileGlslToSpirv("#version 450\nvoid main() { undeclared = 1; }\n", "bad.comp");
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("bad.comp:2"), std::string::npos) << bad.error;
  EXPECT_NE(bad.error.find("undeclared"), std::string::npos) << bad.error;
}

TEST(SpirvCacheTest, StoresCompiledModulesAndRecompilesWhatIsMissingOrCorrupt) {
  testing::ScratchDir dir;
  SpirvResult first = CompileGlslCached(kAxpyGlsl, "axpy.comp", {"KILN_ENTRY_axpy"}, dir.path());
  ASSERT_TRUE(first.ok) << first.error;
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(dir.path() / "spirv")) {
    files.push_back(f.path());
  }
  ASSERT_EQ(files.size(), 1u);
  SpirvResult hit = CompileGlslCached(kAxpyGlsl, "axpy.comp", {"KILN_ENTRY_axpy"}, dir.path());
  EXPECT_EQ(hit.words, first.words);
  EXPECT_EQ(hit.compile_seconds, 0);  // not compiled again
  // Another macro is another module.
  CompileGlslCached(kAxpyGlsl, "axpy.comp", {"OTHER"}, dir.path());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path() / "spirv"),
                          std::filesystem::directory_iterator()),
            2);
  // A corrupt entry is compiled again and replaced.
  WriteFileAtomically(files[0].string(), "not spir-v");
  SpirvResult again = CompileGlslCached(kAxpyGlsl, "axpy.comp", {"KILN_ENTRY_axpy"}, dir.path());
  EXPECT_EQ(again.words, first.words);
  EXPECT_GT(again.compile_seconds, 0);
  // Errors are not stored.
  SpirvResult bad =
      CompileGlslCached("#version 450\nvoid main() { x; }\n", "bad.comp", {}, dir.path());
  EXPECT_FALSE(bad.ok);
  EXPECT_FALSE(
      CompileGlslCached("#version 450\nvoid main() { x; }\n", "bad.comp", {}, dir.path()).ok);
}

TEST_F(VulkanRuntimeTest, HandWrittenKernelMatchesTheInterpreterAndIsTimed) {
  // 16 groups of 64 cover 1000 elements; the guard drops the last 24 threads.
  RunnerOutcome outcome = Run(kAxpyGlsl, {16, 1, 1}, {64, 1, 1});
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  ASSERT_EQ(outcome.outputs.size(), 3u);
  MeasureResult checked = Compare(outcome);
  EXPECT_TRUE(checked.ok()) << checked.message;
  EXPECT_EQ(outcome.result.repeat_seconds.size(), 3u);
  EXPECT_GT(outcome.result.median_seconds, 0);
  EXPECT_GE(outcome.result.number, 2);
  EXPECT_GT(outcome.result.build_seconds, 0);
}

TEST_F(VulkanRuntimeTest, TooFewGroupsIsAWrongResultNotAnError) {
  // The oracle notices the elements no thread wrote.
  RunnerOutcome outcome = Run(kAxpyGlsl, {8, 1, 1}, {64, 1, 1});
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  MeasureResult checked = Compare(outcome);
  EXPECT_EQ(checked.error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_NE(checked.message.find("C"), std::string::npos) << checked.message;
}

TEST_F(VulkanRuntimeTest, ShaderThatDoesNotCompileIsABuildError) {
  RunnerOutcome outcome =
      Run("#version 450\nlayout(local_size_x = 1) in;\nvoid main() { float x = missing; }\n",
          {1, 1, 1}, {1, 1, 1});
  EXPECT_EQ(outcome.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(outcome.result.message.find("missing"), std::string::npos) << outcome.result.message;
}

TEST_F(VulkanRuntimeTest, LaunchPastADeviceLimitIsABuildErrorNamingIt) {
  VulkanDeviceInfo device = DefaultVulkanDevice();
  int64_t half = device.max_workgroup_invocations;
  RunnerOutcome threads = Run(kAxpyGlsl, {1, 1, 1}, {half, 2, 1});
  EXPECT_EQ(threads.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(threads.result.message.find("maxComputeWorkGroupInvocations"), std::string::npos)
      << threads.result.message;
  RunnerOutcome groups =
      Run(kAxpyGlsl, {int64_t{device.max_workgroup_count[0]} + 1, 1, 1}, {64, 1, 1});
  EXPECT_EQ(groups.result.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(groups.result.message.find("maxComputeWorkGroupCount[0]"), std::string::npos)
      << groups.result.message;
}

TEST_F(VulkanRuntimeTest, HangingKernelIsKilledAtTheLimit) {
  // lavapipe ends any loop after 65535 iterations, so a hang is work that would take hours:
  // 65535 x 64 groups of 64 threads, each spinning 65535 times.
  constexpr char kHang[] = R"(#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, set = 0, binding = 0) buffer A_ { float A[]; };
layout(std430, set = 0, binding = 2) buffer C_ { float C[]; };
void main() {
  float x = A[gl_LocalInvocationID.x];
  for (uint i = 0u; i < 65535u; ++i) x = x * 0.999 + A[i % 64u];
  C[gl_LocalInvocationID.x] = x;
}
)";
  RunnerOutcome outcome = Run(kHang, {65535, 64, 1}, {64, 1, 1}, /*time_limit_s=*/3);
  EXPECT_TRUE(outcome.process.timed_out) << outcome.process.Describe();
}

TEST_F(VulkanRuntimeTest, WildStoreEndsOnlyTheRunnerOrIsDropped) {
  // Stores a gigabyte past the buffer: a driver either kills the runner (a signal, which the
  // measurer reports as a runtime error) or drops them (lavapipe checks bounds); the caller
  // goes on either way, and nothing inside the buffer changes.
  constexpr char kWild[] = R"(#version 450
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(std430, set = 0, binding = 2) buffer C_ { float C[]; };
void main() { C[(1 << 28) + int(gl_GlobalInvocationID.x) * 4096] = 1.0; }
)";
  RunnerOutcome outcome = Run(kWild, {4, 1, 1}, {64, 1, 1}, /*time_limit_s=*/30);
  ASSERT_FALSE(outcome.process.timed_out) << outcome.process.Describe();
  if (!outcome.process.exited) {
    EXPECT_GT(outcome.process.signal, 0) << outcome.process.Describe();
    return;
  }
  ASSERT_TRUE(outcome.process.ok()) << outcome.process.Describe() << outcome.process.output;
  ASSERT_EQ(outcome.result.error_kind, MeasureErrorKind::kOk) << outcome.result.message;
  std::vector<ArgValue> inputs = Inputs();
  MeasureResult unchanged;
  CheckOutputs({std::get<HostTensor>(inputs[2])}, {outcome.outputs.at(2)}, unchanged, std::nullopt,
               {"C"});
  EXPECT_TRUE(unchanged.ok()) << unchanged.message;
}

TEST(VulkanRunnerTest, DescribesTheDeviceForTheMeasurer) {
  testing::ScratchDir dir;
  std::string path = dir.Sub("device.json");
  ProcessOptions p;
  p.argv = {KILN_VULKAN_RUNNER_PATH, "describe", path};
  p.time_limit_s = 60;
  p.capture_output = true;
  ProcessResult run = RunProcess(p);
  ASSERT_TRUE(run.ok()) << run.Describe() << run.output;
  gpu::DeviceDescription d = gpu::DeviceFromJson(ReadWholeFile(path), path);
  VulkanDeviceInfo info = DefaultVulkanDevice();
  EXPECT_EQ(d.kind, "vulkan");
  EXPECT_EQ(d.name, info.name);
  EXPECT_EQ(d.key, info.key);
  EXPECT_EQ(d.limits.max_threads_per_block, info.max_workgroup_invocations);
  EXPECT_EQ(d.limits.max_shared_bytes, info.max_shared_memory_bytes);
  EXPECT_EQ(d.limits.warp_size, info.subgroup_size);
  EXPECT_EQ(d.limits.fp16, info.shader_float16 && info.storage_16bit);
  EXPECT_EQ(d.timer_resolution_ns, info.timestamp_period_ns);
}

}  // namespace
}  // namespace kiln::runtime::vulkan
