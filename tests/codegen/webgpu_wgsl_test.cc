// The WGSL emitter (the WebGPU target): the argument layout and grid folding it shares with the
// runtime, the shape of its source (storage bindings, one uniform struct, overridable workgroup
// size and grid, one entry point per kernel, workgroup arrays at module scope, no C-only
// syntax), what it refuses by name (types WGSL lacks, the device's limits), and every zoo
// function under the default GPU schedule emitted or refused for a stated reason. That the WGSL
// is valid for both WebGPU compilers, and what the kernels compute, is checked by
// tests/runtime's WebGPU tests.
#include <gtest/gtest.h>

#include <regex>

#include "codegen/lower.h"
#include "codegen/webgpu/webgpu_abi.h"
#include "codegen/webgpu/wgsl_emitter.h"
#include "search/schedule/schedule.h"
#include "search/space/candidate.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "tests/codegen/test_kernels.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::codegen {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::Schedule;

EmittedSource Emit(const ir::PrimFunc& f, const WgslEmitOptions& options = {}) {
  WebGpuTarget target(options);
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

TEST(WebGpuAbiTest, BuffersTakeBindingsAndScalarsOneUniformStruct) {
  webgpu::WebGpuArgLayout layout = webgpu::LayoutOf({true, false, true, false, false, true});
  EXPECT_EQ(layout.binding, (std::vector<int>{0, -1, 1, -1, -1, 2}));
  EXPECT_EQ(layout.uniform_offset, (std::vector<int>{-1, 0, -1, 4, 8, -1}));
  EXPECT_EQ(layout.num_buffers, 3);
  EXPECT_EQ(layout.uniform_binding, 3);
  EXPECT_EQ(layout.uniform_bytes, 16u);
  webgpu::WebGpuArgLayout buffers_only = webgpu::LayoutOf({true, true});
  EXPECT_EQ(buffers_only.uniform_binding, -1);
  EXPECT_EQ(buffers_only.uniform_bytes, 0u);
  EXPECT_EQ(webgpu::LayoutOf(std::vector<bool>(5, false)).uniform_bytes, 32u);
  EXPECT_EQ(webgpu::UniformMemberType(ir::DataType::Int(64)), "i32");
  EXPECT_EQ(webgpu::UniformMemberType(ir::DataType::Bool()), "u32");
  EXPECT_EQ(webgpu::UniformMemberType(ir::DataType::Float(16)), "f32");
}

TEST(WebGpuAbiTest, GridsPastTheDimensionLimitAreFolded) {
  gpu::ConcreteLaunch small;
  small.symbol = "k";
  small.grid = {4, 3, 2};
  EXPECT_EQ(webgpu::DispatchOf(small, 65535), (std::array<uint32_t, 3>{24, 1, 1}));
  gpu::ConcreteLaunch wide = small;
  wide.grid = {200000, 1, 1};
  std::array<uint32_t, 3> d = webgpu::DispatchOf(wide, 65535);
  EXPECT_EQ(d, (std::array<uint32_t, 3>{65535, 4, 1}));
  EXPECT_GE(int64_t{d[0]} * d[1] * d[2], 200000);
  gpu::ConcreteLaunch huge = small;
  huge.grid = {int64_t{1} << 20, int64_t{1} << 20, 1};
  d = webgpu::DispatchOf(huge, 1 << 16);
  EXPECT_EQ(d[0], 1u << 16);
  EXPECT_EQ(d[1], 1u << 16);
  EXPECT_EQ(d[2], 1u << 8);
  huge.grid = {int64_t{1} << 30, int64_t{1} << 30, 1};
  std::string error = ErrorOf([&] { webgpu::DispatchOf(huge, 65535); });
  EXPECT_NE(error.find("kernel k: 1152921504606846976 workgroups do not fit"), std::string::npos)
      << error;
}

TEST(WgslEmitterTest, IsTheRegisteredWebGpuTarget) {
  std::unique_ptr<CodegenTarget> target = CreateTarget("webgpu");
  EXPECT_EQ(target->Name(), "webgpu");
  EXPECT_FALSE(target->DefaultLowerOptions().plan_storage);
}

TEST(WgslEmitterTest, BoundMatmulIsOneEntryPoint) {
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
  EXPECT_EQ(source.language, "wgsl");
  for (int b = 0; b < 3; ++b) {
    EXPECT_NE(code.find("@group(0) @binding(" + std::to_string(b) + ") var<storage, read_write>"),
              std::string::npos)
        << code;
  }
  EXPECT_NE(code.find("array<f32>;"), std::string::npos) << code;
  EXPECT_EQ(Count(code, "@compute @workgroup_size(kiln_wg_x, kiln_wg_y, kiln_wg_z)"), 1) << code;
  EXPECT_NE(code.find("fn kiln_matmul(@builtin(workgroup_id)"), std::string::npos) << code;
  for (const char* constant :
       {"kiln_wg_x", "kiln_wg_y", "kiln_wg_z", "kiln_grid_x", "kiln_grid_y", "kiln_grid_z"}) {
    EXPECT_NE(code.find(std::string("override ") + constant + ": u32 = 1u;"), std::string::npos)
        << code;
  }
  EXPECT_NE(code.find("kiln_block.y"), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_thread.x"), std::string::npos) << code;
  EXPECT_NE(code.find("if (kiln_linear >= kiln_grid_x * kiln_grid_y * kiln_grid_z) { return; }"),
            std::string::npos)
      << code;
  // C-only spellings WGSL rejects: casts, (void), ternaries, const declarations, ++i.
  EXPECT_FALSE(std::regex_search(code, std::regex(R"(\((int|float|int64_t|uint)\)\s*\()"))) << code;
  EXPECT_EQ(code.find("(void)"), std::string::npos) << code;
  EXPECT_EQ(code.find(" ? "), std::string::npos) << code;
  EXPECT_EQ(code.find("const "), std::string::npos) << code;
  EXPECT_FALSE(std::regex_search(code, std::regex(R"(\+\+[a-zA-Z_])"))) << code;
  EXPECT_EQ(code.find("var<uniform>"), std::string::npos) << code;  // no scalars
}

TEST(WgslEmitterTest, SymbolicShapesAreUniformMembersAndSeveralKernelsSeveralEntries) {
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("softmax_symbolic");
  EmittedSource source = Emit(search::DefaultGpuSchedule(entry.build(), 64));
  const std::string& code = source.code;
  ASSERT_TRUE(source.launch.has_value());
  size_t kernels = source.launch->kernels.size();
  EXPECT_GT(kernels, 1u) << code;
  EXPECT_EQ(Count(code, "@compute @workgroup_size("), static_cast<int>(kernels)) << code;
  for (const gpu::KernelLaunch& k : source.launch->kernels) {
    EXPECT_NE(code.find("fn " + k.symbol + "("), std::string::npos) << code;
  }
  EXPECT_NE(code.find("struct KilnArgs {\n  p"), std::string::npos) << code;
  EXPECT_NE(code.find("var<uniform> kiln_args: KilnArgs;"), std::string::npos) << code;
  EXPECT_NE(code.find(": i32 = kiln_args.p"), std::string::npos) << code;
}

TEST(WgslEmitterTest, SharedArraysAreWorkgroupVariablesAtModuleScope) {
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
  size_t shared = code.find("var<workgroup> ");
  ASSERT_NE(shared, std::string::npos) << code;
  EXPECT_LT(shared, code.find("@compute")) << code;
  EXPECT_NE(code.find("workgroupBarrier();"), std::string::npos) << code;
}

// C = A + B over 64 elements of `dtype`, bound to 2 blocks of 32 threads.
ir::PrimFunc BoundAdd(ir::DataType dtype, int num_inputs = 2) {
  std::vector<ir::Buffer> buffers;
  ir::Var i("i"), vi("vi");
  ir::Expr sum;
  for (int k = 0; k < num_inputs; ++k) {
    buffers.push_back(ir::DeclBuffer("A" + std::to_string(k), dtype, {64}));
    ir::Expr load = ir::BufferLoad(buffers.back(), {vi});
    sum = sum.defined() ? sum + load : load;
  }
  ir::Buffer c = ir::DeclBuffer("C", dtype, {64});
  buffers.push_back(c);
  ir::Stmt body = ir::BufferStore(c, sum, {vi});
  ir::Stmt block = testing::MakeBlock("C", {testing::Spatial(vi, 64)}, {i}, body);
  ir::PrimFunc f = testing::MakeFunc("add", buffers,
                                     testing::Root(ir::For(i, 0, 64, ir::ForKind::kSerial, block)));
  Schedule sch(f);
  std::vector<LoopRV> parts = sch.Split(sch.GetLoops(sch.GetBlock("C"))[0], {std::nullopt, 32});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  return sch.func();
}

TEST(WgslEmitterTest, RefusesWhatWgslOrTheDeviceLacksByName) {
  ir::PrimFunc half = BoundAdd(ir::DataType::Float(16));
  std::string error = ErrorOf([&] { Emit(half); });
  EXPECT_NE(error.find("function add: float16 on a WebGPU device without the shader-f16 feature"),
            std::string::npos)
      << error;
  WgslEmitOptions f16;
  f16.limits.gpu.fp16 = true;
  std::string code = Emit(half, f16).code;
  EXPECT_NE(code.find("enable f16;"), std::string::npos) << code;
  EXPECT_NE(code.find("array<f16>"), std::string::npos) << code;

  error = ErrorOf([&] { Emit(BoundAdd(ir::DataType::Int(64))); });
  EXPECT_NE(error.find("function add: buffer A0 holds int64; WebGPU storage buffers hold i32, u32, "
                       "f32 and (with shader-f16) f16 (WGSL has no 64-bit integers)"),
            std::string::npos)
      << error;
  error = ErrorOf([&] { Emit(BoundAdd(ir::DataType::Int(8))); });
  EXPECT_NE(error.find("buffer A0 holds int8"), std::string::npos) << error;
  error = ErrorOf([&] { Emit(BoundAdd(ir::DataType::Float(64))); });
  EXPECT_NE(error.find("buffer A0 holds float64"), std::string::npos) << error;
  error = ErrorOf([&] { Emit(BoundAdd(ir::DataType::BFloat16())); });
  EXPECT_NE(error.find("bfloat16"), std::string::npos) << error;

  // Eight storage buffers are WebGPU's guarantee; a ninth needs a device that registers more.
  EXPECT_NO_THROW(Emit(BoundAdd(ir::DataType::Float(32), 7)));
  ir::PrimFunc nine = BoundAdd(ir::DataType::Float(32), 8);
  error = ErrorOf([&] { Emit(nine); });
  EXPECT_NE(error.find("function add: kernel kiln_add binds 9 storage buffers; the device allows 8 "
                       "per shader stage (maxStorageBuffersPerShaderStage)"),
            std::string::npos)
      << error;
  WgslEmitOptions more_buffers;
  more_buffers.limits.gpu.max_buffer_arguments = 10;
  EXPECT_NO_THROW(Emit(nine, more_buffers));
}

TEST(WgslEmitterTest, ThreadsPastTheWorkgroupLimitAreRefused) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 32});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  sch.Reorder({i[0], j[0], i[1], j[1], loops[2]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  std::string error = ErrorOf([&] { Emit(sch.func()); });  // 512 threads, WebGPU allows 256
  EXPECT_NE(error.find("512"), std::string::npos) << error;
  EXPECT_NE(error.find("256"), std::string::npos) << error;
  WgslEmitOptions big;
  big.limits.gpu.max_threads_per_block = 1024;
  big.limits.gpu.max_block_extent = {1024, 1024, 64};
  EXPECT_NO_THROW(Emit(sch.func(), big));
}

TEST(WgslEmitterTest, EveryZooFunctionEmitsOrIsRefusedForWhatWgslLacks) {
  WgslEmitOptions f16;
  f16.limits.gpu.fp16 = true;
  int emitted = 0;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    SCOPED_TRACE(entry.name);
    try {
      std::string code = Emit(search::DefaultGpuSchedule(entry.build()), f16).code;
      EXPECT_EQ(code.find(" ? "), std::string::npos) << code;
      EXPECT_EQ(code.find("(void)"), std::string::npos) << code;
      ++emitted;
    } catch (const Error& e) {
      // WGSL has no bfloat16, float64, 8/16-bit or 64-bit integer storage.
      EXPECT_TRUE(
          std::regex_search(e.what(), std::regex("bfloat16|float64|int8|int16|int64|uint8|bool")))
          << e.what();
    }
  }
  EXPECT_GE(emitted, static_cast<int>(ir::zoo::Zoo().size()) * 3 / 4);
}

// Candidates the search draws from the "webgpu" preset (shared-memory tiles with cooperative
// fetch and barriers, cross-thread reductions, unrolled and vectorized loops) all emit: within
// WebGPU's default limits by construction of the preset.
TEST(WgslEmitterTest, SampledCandidatesOfTheWebGpuPresetEmit) {
  int emitted = 0;
  for (const char* workload :
       {"matmul", "conv2d_stride2_pad1", "dense_bias_relu", "softmax", "sum_keepdims"}) {
    SCOPED_TRACE(workload);
    ir::PrimFunc f = ir::zoo::ZooLookup(workload).build();
    search::DesignSpace space = search::MakeDesignSpace("webgpu");
    search::TuneContext context;
    context.workload = f;
    context.task_name = f->name;
    context.target = "webgpu";
    space.Initialize(context);
    search::RandomEngine rng(7);
    for (const Schedule& sketch : space.Sketches(context)) {
      for (int i = 0; i < 6; ++i) {
        std::optional<search::Candidate> c =
            search::SampleCandidate(f, sketch.trace(), space.postprocs, rng, nullptr);
        if (!c) continue;
        std::string code;
        ASSERT_NO_THROW(code = Emit(c->scheduled).code) << c->postprocessed.AsPython();
        ++emitted;
      }
    }
  }
  EXPECT_GE(emitted, 20);
}

}  // namespace
}  // namespace kiln::codegen
