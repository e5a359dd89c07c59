// The Vulkan runtime on this machine's device (lavapipe where there is no GPU): discovery,
// GLSL to SPIR-V, and hand-written kernels run in kiln-vulkan-sandbox, their outputs compared
// with the reference interpreter; a compile error, a device limit, a hang and a malformed
// program are results or faults with clear messages.
#include <gtest/gtest.h>

#include <cstdlib>

#include "codegen/kernel_abi.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/file_util.h"
#include "runtime/measure_result.h"
#include "runtime/sandbox_client.h"
#include "runtime/vulkan/spirv_compiler.h"
#include "runtime/vulkan/vulkan_device.h"
#include "runtime/vulkan/vulkan_program.h"
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

constexpr char kAxpyGlsl[] = R"(#version 450
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
layout(local_size_x = 64) in;
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

VulkanProgram OneKernel(std::string glsl, std::array<uint32_t, 3> groups,
                        std::array<uint32_t, 3> threads, uint32_t shared_bytes = 0) {
  VulkanProgram program;
  program.kernels.push_back({"axpy", std::move(glsl), groups, threads, shared_bytes});
  return program;
}

class VulkanRuntimeTest : public ::testing::Test {
 protected:
  std::vector<ArgSpec> AxpyArgs() const {
    return {ArgSpec::Random(DataType::Float(32), {kN}, 1),
            ArgSpec::Random(DataType::Float(32), {kN}, 2),
            ArgSpec::Random(DataType::Float(32), {kN}, 3), ArgSpec::Float(0.75)};
  }

  SandboxOutcome Run(const VulkanProgram& program, SandboxPhase phase, double time_limit_s = 60) {
    std::string program_path = dir_.Sub("program" + std::to_string(runs_++) + ".json");
    WriteFileAtomically(program_path, ProgramToJson(program));
    SandboxRequest request;
    request.phase = phase;
    request.source_path = program_path;
    request.signature = codegen::SignatureOf(Axpy(), "axpy");
    request.args = AxpyArgs();
    request.timing.number = 2;
    request.timing.repeat = 3;
    request.timing.min_repeat_ms = 1;
    request.dump_outputs = true;
    SandboxOptions options;
    options.sandbox_path = KILN_VULKAN_SANDBOX_PATH;
    options.time_limit_s = time_limit_s;
    return SandboxClient(options).Run(request);
  }

  // The interpreter's outputs on the same inputs.
  std::vector<HostTensor> Expected() const {
    std::vector<ArgValue> args = MaterializeArgs(AxpyArgs());
    Interpret(Axpy(), args);
    return {std::get<HostTensor>(args[0]), std::get<HostTensor>(args[1]),
            std::get<HostTensor>(args[2])};
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

TEST_F(VulkanRuntimeTest, HandWrittenKernelMatchesTheInterpreterAndIsTimed) {
  // 16 groups of 64 cover 1000 elements; the guard drops the last 24 threads.
  SandboxOutcome outcome = Run(OneKernel(kAxpyGlsl, {16, 1, 1}, {64, 1, 1}), SandboxPhase::kTime);
  ASSERT_TRUE(outcome.measure.ok()) << outcome.measure.message;
  ASSERT_EQ(outcome.outputs.size(), 3u);
  std::vector<HostTensor> actual = {outcome.outputs[0], outcome.outputs[1], outcome.outputs[2]};
  MeasureResult checked;
  CheckOutputs(Expected(), actual, checked, std::nullopt, {"A", "B", "C"});
  EXPECT_TRUE(checked.ok()) << checked.message;
  EXPECT_EQ(outcome.measure.repeat_seconds.size(), 3u);
  EXPECT_GT(outcome.measure.median_seconds, 0);
  EXPECT_GE(outcome.measure.number, 2);
  EXPECT_GT(outcome.measure.build_seconds, 0);
}

TEST_F(VulkanRuntimeTest, TooFewGroupsIsAWrongResultNotAnError) {
  // The oracle notices the elements no thread wrote.
  SandboxOutcome outcome = Run(OneKernel(kAxpyGlsl, {8, 1, 1}, {64, 1, 1}), SandboxPhase::kRunOnce);
  ASSERT_TRUE(outcome.measure.ok()) << outcome.measure.message;
  std::vector<HostTensor> actual = {outcome.outputs[0], outcome.outputs[1], outcome.outputs[2]};
  MeasureResult checked;
  CheckOutputs(Expected(), actual, checked, std::nullopt, {"A", "B", "C"});
  EXPECT_EQ(checked.error_kind, MeasureErrorKind::kWrongResult);
  EXPECT_NE(checked.message.find("C"), std::string::npos) << checked.message;
}

TEST_F(VulkanRuntimeTest, ShaderThatDoesNotCompileIsABuildError) {
  SandboxOutcome outcome = Run(OneKernel("#version 450\nlayout(local_size_x = 1) in;\n"
                                         "void main() { float x = missing; }\n",
                                         {1, 1, 1}, {1, 1, 1}),
                               SandboxPhase::kTime);
  EXPECT_EQ(outcome.measure.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(outcome.measure.message.find("missing"), std::string::npos) << outcome.measure.message;
}

TEST_F(VulkanRuntimeTest, KernelPastADeviceLimitIsABuildErrorNamingIt) {
  VulkanDeviceInfo device = DefaultVulkanDevice();
  uint32_t too_many = device.max_workgroup_invocations * 2;
  std::string glsl = std::string(kAxpyGlsl);
  SandboxOutcome threads =
      Run(OneKernel(glsl, {1, 1, 1}, {too_many / 2, 2, 1}), SandboxPhase::kTime);
  EXPECT_EQ(threads.measure.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(threads.measure.message.find("maxComputeWorkGroupInvocations"), std::string::npos)
      << threads.measure.message;

  SandboxOutcome shared =
      Run(OneKernel(glsl, {16, 1, 1}, {64, 1, 1}, device.max_shared_memory_bytes + 4),
          SandboxPhase::kTime);
  EXPECT_EQ(shared.measure.error_kind, MeasureErrorKind::kBuildError);
  EXPECT_NE(shared.measure.message.find("maxComputeSharedMemorySize"), std::string::npos)
      << shared.measure.message;
}

TEST_F(VulkanRuntimeTest, HangingKernelIsATimeout) {
  // lavapipe ends any loop after 65535 iterations, so a hang is work that would take hours:
  // 65535 x 64 groups of 64 threads, each spinning 65535 times, until the sandbox's limit
  // kills the process.
  constexpr char kHang[] = R"(#version 450
layout(local_size_x = 64) in;
layout(std430, set = 0, binding = 0) buffer A_ { float A[]; };
layout(std430, set = 0, binding = 2) buffer C_ { float C[]; };
void main() {
  float x = A[gl_LocalInvocationID.x];
  for (uint i = 0u; i < 65535u; ++i) x = x * 0.999 + A[i % 64u];
  C[gl_LocalInvocationID.x] = x;
}
)";
  SandboxOutcome outcome =
      Run(OneKernel(kHang, {65535, 64, 1}, {64, 1, 1}), SandboxPhase::kRunOnce, /*time_limit_s=*/3);
  EXPECT_EQ(outcome.measure.error_kind, MeasureErrorKind::kTimeout) << outcome.measure.message;
  EXPECT_NE(outcome.measure.message.find("limit 3 s"), std::string::npos)
      << outcome.measure.message;
}

TEST_F(VulkanRuntimeTest, MalformedProgramIsAFaultOfTheMachinery) {
  std::string program_path = dir_.Sub("broken.json");
  WriteFileAtomically(program_path, R"({"version": 1, "kernels": [{"name": "k"}]})");
  SandboxRequest request;
  request.phase = SandboxPhase::kRunOnce;
  request.source_path = program_path;
  request.signature = codegen::SignatureOf(Axpy(), "axpy");
  request.args = AxpyArgs();
  SandboxOptions options;
  options.sandbox_path = KILN_VULKAN_SANDBOX_PATH;
  try {
    SandboxClient(options).Run(request);
    FAIL() << "expected a SandboxFault";
  } catch (const SandboxFault& e) {
    EXPECT_NE(std::string(e.what()).find("kernels[0].glsl"), std::string::npos) << e.what();
  }
}

TEST(VulkanProgramTest, JsonRoundTripAndValidation) {
  VulkanProgram program = OneKernel("void main() {}", {4, 2, 1}, {32, 4, 1}, 1024);
  program.workspace_bytes = {64, 0};
  VulkanProgram back = ProgramFromJson(ProgramToJson(program), "p.json");
  ASSERT_EQ(back.kernels.size(), 1u);
  EXPECT_EQ(back.kernels[0].groups, program.kernels[0].groups);
  EXPECT_EQ(back.kernels[0].threads, program.kernels[0].threads);
  EXPECT_EQ(back.kernels[0].shared_bytes, 1024u);
  EXPECT_EQ(back.workspace_bytes, program.workspace_bytes);
  auto error_of = [](const std::string& text) {
    try {
      ProgramFromJson(text, "p.json");
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error_of("{").find("p.json: not valid JSON"), std::string::npos);
  EXPECT_NE(error_of(R"({"version": 2, "kernels": []})").find("p.json.version"), std::string::npos);
  EXPECT_NE(error_of(R"({"version": 1, "kernels": []})").find("non-empty"), std::string::npos);
  EXPECT_NE(error_of(R"({"version": 1, "kernels": [{"name": "k", "glsl": "", "groups": [1, 0, 1],
                     "threads": [1, 1, 1], "shared_bytes": 0}]})")
                .find("kernels[0].groups[1]"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::runtime::vulkan
