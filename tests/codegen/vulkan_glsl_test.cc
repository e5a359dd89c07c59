// The GLSL emitter (the Vulkan target): the argument layout it shares with the runtime, the
// shape of its source (one main per kernel under its entry macro, storage buffers, push
// constants, specialization constants for the work group size, shared arrays at global scope,
// no C-only syntax), what it refuses by name, and every zoo function under the default GPU
// schedule compiled to SPIR-V with shaderc. What the kernels compute is checked on the device
// by tests/runtime's Vulkan tests.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/lower.h"
#include "codegen/vulkan/glsl_emitter.h"
#include "codegen/vulkan/vulkan_abi.h"
#include "search/schedule/schedule.h"
#include "search/space/thread_binding.h"
#include "tests/codegen/test_kernels.h"
#include "tests/ir/zoo/zoo.h"
#ifdef KILN_HAVE_SHADERC
#include "runtime/vulkan/spirv_compiler.h"
#endif

namespace kiln::codegen {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::Schedule;

// lavapipe's limits and features: what the emitter may use.
GlslEmitOptions DeviceOptions() {
  GlslEmitOptions options;
  options.limits.max_threads_per_block = 1024;
  options.limits.max_shared_bytes = 32768;
  options.limits.fp16 = true;
  return options;
}

EmittedSource Emit(const ir::PrimFunc& f, const GlslEmitOptions& options = DeviceOptions()) {
  VulkanTarget target(options);
  return target.Emit(Lower(f, target.DefaultLowerOptions()), "kiln_" + f->name);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST(VulkanAbiTest, BuffersTakeBindingsAndScalarsPushConstantSlots) {
  vulkan::VulkanArgLayout layout = vulkan::LayoutOf({true, false, true, false, false, true});
  EXPECT_EQ(layout.binding, (std::vector<int>{0, -1, 1, -1, -1, 2}));
  EXPECT_EQ(layout.push_offset, (std::vector<int>{-1, 0, -1, 8, 16, -1}));
  EXPECT_EQ(layout.num_buffers, 3);
  EXPECT_EQ(layout.push_bytes, 24u);
  EXPECT_EQ(vulkan::EntryMacro("kiln_mm_k1"), "KILN_ENTRY_kiln_mm_k1");
  EXPECT_TRUE(vulkan::IsWidePushSlot(ir::DataType::Int(64)));
  EXPECT_FALSE(vulkan::IsWidePushSlot(ir::DataType::Float(32)));
}

TEST(GlslEmitterTest, IsTheRegisteredVulkanTarget) {
  std::unique_ptr<CodegenTarget> target = CreateTarget("vulkan");
  EXPECT_EQ(target->Name(), "vulkan");
  EXPECT_FALSE(target->DefaultLowerOptions().plan_storage);
}

TEST(GlslEmitterTest, BoundMatmulIsOneComputeShader) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  sch.Reorder({i[0], j[0], i[1], j[1], loops[2]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  EmittedSource source = Emit(sch.func());
  const std::string& code = source.code;
  EXPECT_EQ(source.language, "glsl");
  EXPECT_EQ(code.rfind("#version 450\n", 0), 0u) << code;
  EXPECT_NE(code.find("layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;"),
            std::string::npos)
      << code;
  for (int b = 0; b < 3; ++b) {
    EXPECT_NE(code.find("layout(std430, set = 0, binding = " + std::to_string(b) + ")"),
              std::string::npos)
        << code;
  }
  EXPECT_EQ(Count(code, "void main()"), 1) << code;
  EXPECT_NE(code.find("#if defined(KILN_ENTRY_kiln_matmul)"), std::string::npos) << code;
  EXPECT_NE(code.find("gl_WorkGroupID.y"), std::string::npos) << code;
  EXPECT_NE(code.find("gl_LocalInvocationID.x"), std::string::npos) << code;
  // C-only spellings GLSL rejects: casts, (void), pointers.
  EXPECT_FALSE(std::regex_search(code, std::regex(R"(\((int|float|int64_t|uint)\)\s*\()"))) << code;
  EXPECT_EQ(code.find("(void)"), std::string::npos) << code;
  EXPECT_EQ(code.find('*' + std::string(" restrict")), std::string::npos) << code;
  EXPECT_EQ(code.find("push_constant"), std::string::npos) << code;
}

TEST(GlslEmitterTest, SymbolicShapesArePushConstantsAndSeveralKernelsSeveralMains) {
  // softmax over a symbolic row count: several blocks, each bound on its own, several kernels.
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("softmax_symbolic");
  EmittedSource source = Emit(search::DefaultGpuSchedule(entry.build(), 64));
  const std::string& code = source.code;
  ASSERT_TRUE(source.launch.has_value());
  size_t kernels = source.launch->kernels.size();
  EXPECT_GT(kernels, 1u) << code;
  EXPECT_EQ(Count(code, "void main()"), static_cast<int>(kernels)) << code;
  for (const gpu::KernelLaunch& k : source.launch->kernels) {
    EXPECT_NE(code.find("#if defined(" + vulkan::EntryMacro(k.symbol) + ")"), std::string::npos)
        << code;
  }
  EXPECT_NE(code.find("layout(push_constant) uniform KilnArgs"), std::string::npos) << code;
  EXPECT_NE(code.find("layout(offset = 0)"), std::string::npos) << code;
}

TEST(GlslEmitterTest, SharedArraysLiveAtGlobalScope) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV a_shared = sch.CacheRead(c, 0, "shared");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  sch.Reorder({i[0], loops[1], i[1]});
  sch.Bind(i[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.x");
  sch.ComputeAt(a_shared, i[0]);
  std::string code = Emit(sch.func()).code;
  size_t shared = code.find("shared float");
  ASSERT_NE(shared, std::string::npos) << code;
  EXPECT_LT(shared, code.find("void main()")) << code;
  EXPECT_NE(code.find("barrier();"), std::string::npos) << code;
}

// C = A + B over 64 elements of `dtype`, bound to 2 blocks of 32 threads.
ir::PrimFunc BoundAdd(ir::DataType dtype) {
  ir::Buffer a = ir::DeclBuffer("A", dtype, {64});
  ir::Buffer b = ir::DeclBuffer("B", dtype, {64});
  ir::Buffer c = ir::DeclBuffer("C", dtype, {64});
  ir::Var i("i"), vi("vi");
  ir::Stmt body = ir::BufferStore(c, ir::BufferLoad(a, {vi}) + ir::BufferLoad(b, {vi}), {vi});
  ir::Stmt block = testing::MakeBlock("C", {testing::Spatial(vi, 64)}, {i}, body);
  ir::PrimFunc f = testing::MakeFunc("add", {a, b, c},
                                     testing::Root(ir::For(i, 0, 64, ir::ForKind::kSerial, block)));
  Schedule sch(f);
  std::vector<LoopRV> parts = sch.Split(sch.GetLoops(sch.GetBlock("C"))[0], {std::nullopt, 32});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  return sch.func();
}

TEST(GlslEmitterTest, RefusesWhatTheDeviceLacksByName) {
  ir::PrimFunc half = BoundAdd(ir::DataType::Float(16));
  EXPECT_NE(Emit(half).code.find("float16_t"), std::string::npos);
  GlslEmitOptions no_fp16 = DeviceOptions();
  no_fp16.limits.fp16 = false;
  std::string error = ErrorOf([&] { Emit(half, no_fp16); });
  EXPECT_NE(error.find("float16 on a device without shaderFloat16"), std::string::npos) << error;

  ir::PrimFunc wide = BoundAdd(ir::DataType::Int(64));
  GlslEmitOptions no_int64 = DeviceOptions();
  no_int64.limits.int64 = false;
  error = ErrorOf([&] { Emit(wide, no_int64); });
  EXPECT_NE(error.find("int64 on a device without shaderInt64"), std::string::npos) << error;

  error = ErrorOf([&] { Emit(BoundAdd(ir::DataType::BFloat16())); });
  EXPECT_NE(error.find("bfloat16"), std::string::npos) << error;
}

TEST(GlslEmitterTest, MoreScalarsThanPushConstantsHoldIsRefused) {
  // C[i] = A[i] + s0 + ... + s16: 17 scalars, 136 bytes of push constants.
  ir::DataType f32 = ir::DataType::Float(32);
  ir::Buffer a = ir::DeclBuffer("A", f32, {64});
  ir::Buffer c = ir::DeclBuffer("C", f32, {64});
  std::vector<ir::Var> scalars;
  ir::Var i("i"), vi("vi");
  ir::Expr sum = ir::BufferLoad(a, {vi});
  for (int s = 0; s < 17; ++s) {
    scalars.emplace_back("s" + std::to_string(s), f32);
    sum = sum + scalars.back();
  }
  ir::Stmt block =
      testing::MakeBlock("C", {testing::Spatial(vi, 64)}, {i}, ir::BufferStore(c, sum, {vi}));
  ir::PrimFunc f =
      testing::MakeFunc("many_scalars", {a, c},
                        testing::Root(ir::For(i, 0, 64, ir::ForKind::kSerial, block)), scalars);
  Schedule sch(f);
  sch.Bind(sch.GetLoops(sch.GetBlock("C"))[0], "threadIdx.x");
  std::string error = ErrorOf([&] { Emit(sch.func()); });
  EXPECT_NE(error.find("136 bytes of push constants"), std::string::npos) << error;
}

TEST(GlslEmitterTest, EveryZooFunctionCompilesToSpirv) {
  int emitted = 0;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    SCOPED_TRACE(entry.name);
    EmittedSource source;
    try {
      source = Emit(search::DefaultGpuSchedule(entry.build()));
    } catch (const Error& e) {
      // Vulkan has no bfloat16 type; everything else must emit.
      EXPECT_NE(std::string(e.what()).find("bfloat16"), std::string::npos) << e.what();
      continue;
    }
    ++emitted;
#ifdef KILN_HAVE_SHADERC
    for (const gpu::KernelLaunch& k : source.launch->kernels) {
      runtime::vulkan::SpirvResult spirv = runtime::vulkan::CompileGlslToSpirv(
          source.code, k.symbol + ".comp", {vulkan::EntryMacro(k.symbol)}, /*optimize=*/false);
      EXPECT_TRUE(spirv.ok) << spirv.error << "\n" << source.code;
    }
#endif
  }
  EXPECT_GE(emitted, static_cast<int>(ir::zoo::Zoo().size()) - 1);
}

}  // namespace
}  // namespace kiln::codegen
