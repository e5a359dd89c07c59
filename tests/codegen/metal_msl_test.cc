// The MSL emitter (the Metal target): the argument layout it shares with the runtimes, the
// shape of its source (metal_stdlib, one `kernel void` per kernel with [[buffer(i)]] arguments
// and the threadgroup position attributes, KilnArgs for scalars, threadgroup arrays inside the
// kernel, threadgroup_barrier), each refusal with a message naming the kernel and the limit,
// every zoo function under the default GPU schedule emitted, and each kernel of those and of
// hand-scheduled shared-memory matmuls compared in structure with spirv-cross's MSL
// translation of the GLSL target's SPIR-V (tests/codegen/metal_spirv_cross.h; where shaderc
// and spirv-cross are installed). What the kernels compute is checked by
// tests/runtime/metal_shim_test.cc, which runs them on the CPU shim against the interpreter.
#include <gtest/gtest.h>

#include <cstring>
#include <iostream>
#include <regex>

#include "codegen/lower.h"
#include "codegen/metal/metal_abi.h"
#include "codegen/metal/msl_emitter.h"
#include "ir/compute/create_prim_func.h"
#include "ir/compute/reduce.h"
#include "search/schedule/schedule.h"
#include "search/space/thread_binding.h"
#include "tests/codegen/test_kernels.h"
#include "tests/ir/zoo/zoo.h"
#ifdef KILN_HAVE_SHADERC
#include "tests/codegen/metal_spirv_cross.h"
#endif

namespace kiln::codegen {
namespace {

using search::BlockRV;
using search::LoopRV;
using search::Schedule;

EmittedSource Emit(const ir::PrimFunc& f, const MslEmitOptions& options = {}) {
  MetalTarget target(options);
  return target.Emit(Lower(f, target.DefaultLowerOptions()), "kiln_" + f->name);
}

std::string ErrorOf(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported) << e.what();
    return e.what();
  }
  return "no error";
}

int Count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// matmul 32 x 48 x 40 with i and j split into blocks and threads, and optionally a 8 x 16
// shared tile of A and of B per k step (a cooperative fetch with barriers).
ir::PrimFunc BoundMatmul(bool shared) {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV a_shared, b_shared;
  if (shared) {
    a_shared = sch.CacheRead(c, 0, "shared");
    b_shared = sch.CacheRead(c, 1, "shared");
  }
  std::vector<LoopRV> loops = sch.GetLoops(c);
  std::vector<LoopRV> i = sch.Split(loops[0], {std::nullopt, 8});
  std::vector<LoopRV> j = sch.Split(loops[1], {std::nullopt, 16});
  std::vector<LoopRV> k = sch.Split(loops[2], {std::nullopt, 8});
  sch.Reorder({i[0], j[0], i[1], j[1], k[0], k[1]});
  sch.Bind(i[0], "blockIdx.y");
  sch.Bind(j[0], "blockIdx.x");
  sch.Bind(i[1], "threadIdx.y");
  sch.Bind(j[1], "threadIdx.x");
  if (shared) {
    for (BlockRV cache : {a_shared, b_shared}) {
      sch.ComputeAt(cache, k[0]);
      std::vector<LoopRV> cl = sch.GetLoops(cache);
      LoopRV fused = sch.Fuse({cl[cl.size() - 2], cl[cl.size() - 1]});
      std::vector<LoopRV> parts = sch.Split(fused, {std::nullopt, 8, 16});
      sch.Bind(parts[1], "threadIdx.y");
      sch.Bind(parts[2], "threadIdx.x");
    }
  }
  return sch.func();
}

// matmul with k split 8 x 5: 8 threads sum partial products into a shared buffer (rfactor),
// then one thread per row sums those.
ir::PrimFunc RFactorMatmul() {
  ir::PrimFunc f = ir::zoo::ZooLookup("matmul").build();
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
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
  return sch.func();
}

// C = A + B over 64 elements of `dtype` (loop variable of `index`), 2 blocks of 32 threads.
ir::PrimFunc BoundAdd(ir::DataType dtype, ir::DataType index = ir::DataType::Int(32)) {
  ir::Buffer a = ir::DeclBuffer("A", dtype, {64});
  ir::Buffer b = ir::DeclBuffer("B", dtype, {64});
  ir::Buffer c = ir::DeclBuffer("C", dtype, {64});
  ir::Var i("i", index), vi("vi", index);
  ir::Stmt body = ir::BufferStore(c, ir::BufferLoad(a, {vi}) + ir::BufferLoad(b, {vi}), {vi});
  ir::Stmt block =
      testing::MakeBlock("C", {testing::Spatial(vi, ir::IntImm(index, 64))}, {i}, body);
  ir::PrimFunc f =
      testing::MakeFunc("add", {a, b, c},
                        testing::Root(ir::For(i, ir::IntImm(index, 0), ir::IntImm(index, 64),
                                              ir::ForKind::kSerial, block)));
  Schedule sch(f);
  std::vector<LoopRV> parts = sch.Split(sch.GetLoops(sch.GetBlock("C"))[0], {std::nullopt, 32});
  sch.Bind(parts[0], "blockIdx.x");
  sch.Bind(parts[1], "threadIdx.x");
  return sch.func();
}

// OUT[i] = IN0[i] + ... + IN{n-1}[i] (+ s0 + ... + s{scalars-1}), bound to 64 threads.
ir::PrimFunc ManyArguments(int inputs, int scalars) {
  ir::DataType f32 = ir::DataType::Float(32);
  std::vector<ir::Buffer> buffers;
  ir::Var i("i"), vi("vi");
  ir::Expr sum = testing::F32(0);
  for (int b = 0; b < inputs; ++b) {
    buffers.push_back(ir::DeclBuffer("IN" + std::to_string(b), f32, {64}));
    sum = sum + ir::BufferLoad(buffers.back(), {vi});
  }
  std::vector<ir::Var> vars;
  for (int s = 0; s < scalars; ++s) {
    vars.emplace_back("s" + std::to_string(s), f32);
    sum = sum + vars.back();
  }
  ir::Buffer out = ir::DeclBuffer("OUT", f32, {64});
  buffers.push_back(out);
  ir::Stmt block =
      testing::MakeBlock("OUT", {testing::Spatial(vi, 64)}, {i}, ir::BufferStore(out, sum, {vi}));
  ir::PrimFunc f = testing::MakeFunc(
      "many", buffers, testing::Root(ir::For(i, 0, 64, ir::ForKind::kSerial, block)), vars);
  Schedule sch(f);
  sch.Bind(sch.GetLoops(sch.GetBlock("OUT"))[0], "threadIdx.x");
  return sch.func();
}

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

TEST(MetalAbiTest, BuffersTakeTheirTableIndexAndScalarsKilnArgsSlots) {
  metal::MetalArgLayout layout = metal::LayoutOf({true, false, true, false, false, true});
  EXPECT_EQ(layout.buffer_index, (std::vector<int>{0, -1, 1, -1, -1, 2}));
  EXPECT_EQ(layout.args_offset, (std::vector<int>{-1, 0, -1, 8, 16, -1}));
  EXPECT_EQ(layout.num_buffers, 3);
  EXPECT_EQ(layout.args_bytes, 24u);
  EXPECT_EQ(layout.args_index, 3);
  EXPECT_EQ(layout.table_entries(), 4);
  metal::MetalArgLayout buffers_only = metal::LayoutOf({true, true});
  EXPECT_EQ(buffers_only.args_bytes, 0u);
  EXPECT_EQ(buffers_only.args_index, -1);
  EXPECT_EQ(buffers_only.table_entries(), 2);

  uint8_t slot[8];
  metal::PackArgSlot(ir::DataType::Int(32), -5, 0, slot);
  int32_t i32;
  std::memcpy(&i32, slot, 4);
  EXPECT_EQ(i32, -5);
  metal::PackArgSlot(ir::DataType::Int(64), int64_t{1} << 40, 0, slot);
  int64_t i64;
  std::memcpy(&i64, slot, 8);
  EXPECT_EQ(i64, int64_t{1} << 40);
  metal::PackArgSlot(ir::DataType::Float(32), 0, 2.5, slot);
  float f32;
  std::memcpy(&f32, slot, 4);
  EXPECT_EQ(f32, 2.5f);
  metal::PackArgSlot(ir::DataType::Bool(), 7, 0, slot);
  std::memcpy(&i32, slot, 4);
  EXPECT_EQ(i32, 1);

  gpu::GpuLimits limits = metal::MetalLimits();
  EXPECT_EQ(limits.max_threads_per_block, 1024);
  EXPECT_EQ(limits.max_shared_bytes, 32768);
  EXPECT_EQ(limits.warp_size, 32);
  EXPECT_TRUE(limits.fp16);
  EXPECT_FALSE(limits.fp64);
  EXPECT_TRUE(limits.int64);
  EXPECT_EQ(metal::kMaxBufferArguments, 31);
  EXPECT_EQ(limits.max_buffer_arguments, 31);
}

TEST(MslEmitterTest, IsTheRegisteredMetalTarget) {
  std::unique_ptr<CodegenTarget> target = CreateTarget("metal");
  EXPECT_EQ(target->Name(), "metal");
  EXPECT_FALSE(target->DefaultLowerOptions().plan_storage);
}

TEST(MslEmitterTest, BoundMatmulIsOneKernelWithBufferAttributes) {
  EmittedSource source = Emit(BoundMatmul(false));
  const std::string& code = source.code;
  EXPECT_EQ(source.language, "msl");
  EXPECT_NE(code.find("#include <metal_stdlib>\nusing namespace metal;\n"), std::string::npos)
      << code;
  EXPECT_EQ(Count(code, "kernel void "), 1) << code;
  EXPECT_NE(code.find("kernel void kiln_matmul("), std::string::npos) << code;
  EXPECT_NE(code.find("device float* A [[buffer(0)]]"), std::string::npos) << code;
  EXPECT_NE(code.find("device float* B [[buffer(1)]]"), std::string::npos) << code;
  EXPECT_NE(code.find("device float* C [[buffer(2)]]"), std::string::npos) << code;
  EXPECT_NE(code.find("uint3 kiln_group [[threadgroup_position_in_grid]]"), std::string::npos);
  EXPECT_NE(code.find("uint3 kiln_local [[thread_position_in_threadgroup]]"), std::string::npos);
  EXPECT_NE(code.find("kiln_group.y"), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_local.x"), std::string::npos) << code;
  // No scalars: no argument struct. Nothing MSL lacks.
  EXPECT_EQ(code.find("KilnArgs"), std::string::npos) << code;
  EXPECT_EQ(code.find("double"), std::string::npos) << code;
  EXPECT_EQ(code.find("__"), std::string::npos) << code;
  EXPECT_EQ(code.find("threadgroup_barrier"), std::string::npos) << code;
  ASSERT_TRUE(source.launch.has_value());
  EXPECT_EQ(ir::AsConstInt(source.launch->kernels[0].extents.block[0]), 16);
}

TEST(MslEmitterTest, SharedTilesAreThreadgroupArraysInsideTheKernelWithBarriers) {
  EmittedSource source = Emit(BoundMatmul(true));
  const std::string& code = source.code;
  size_t kernel = code.find("kernel void kiln_matmul(");
  std::smatch m;
  std::regex tile(R"(threadgroup float (\w+)\[(\d+)\];)");
  ASSERT_TRUE(std::regex_search(code, m, tile)) << code;
  EXPECT_GT(static_cast<size_t>(m.position(0)), kernel) << code;
  EXPECT_EQ(Count(code, "threadgroup float "), 2) << code;
  EXPECT_GE(Count(code, "threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);"),
            2)
      << code;
  int64_t elements = 0;
  for (auto it = std::sregex_iterator(code.begin(), code.end(), tile); it != std::sregex_iterator();
       ++it) {
    elements += std::stoll((*it)[2]);
  }
  EXPECT_EQ(source.launch->kernels[0].shared_bytes, elements * 4) << code;
}

TEST(MslEmitterTest, ScalarsAndShapesTravelInKilnArgsAndSeveralKernelsShareTheArguments) {
  // softmax over a symbolic row count: several kernels, the row count a KilnArgs member.
  const ir::zoo::ZooEntry& entry = ir::zoo::ZooLookup("softmax_symbolic");
  EmittedSource source = Emit(search::DefaultGpuSchedule(entry.build(), 64));
  const std::string& code = source.code;
  ASSERT_TRUE(source.launch.has_value());
  size_t kernels = source.launch->kernels.size();
  EXPECT_GT(kernels, 1u) << code;
  EXPECT_EQ(Count(code, "kernel void "), static_cast<int>(kernels)) << code;
  for (const gpu::KernelLaunch& k : source.launch->kernels) {
    EXPECT_NE(code.find("kernel void " + k.symbol + "("), std::string::npos) << code;
  }
  EXPECT_NE(code.find("struct KilnArgs {"), std::string::npos) << code;
  std::vector<bool> is_buffer;
  for (const ArgSlot& slot : source.signature.slots) {
    is_buffer.push_back(slot.kind == SlotKind::kBufferData);
  }
  for (size_t w = 0; w < source.launch->workspace.size(); ++w) is_buffer.push_back(true);
  metal::MetalArgLayout layout = metal::LayoutOf(is_buffer);
  ASSERT_GT(layout.args_bytes, 0u);
  EXPECT_EQ(Count(code, "constant KilnArgs& kiln_args [[buffer(" +
                            std::to_string(layout.args_index) + ")]]"),
            static_cast<int>(kernels))
      << code;
  EXPECT_NE(code.find("kiln_args.p"), std::string::npos) << code;
}

TEST(MslEmitterTest, Float16IsHalfAndBoolIsStoredAsUchar) {
  EXPECT_NE(Emit(BoundAdd(ir::DataType::Float(16))).code.find("device half* A [[buffer(0)]]"),
            std::string::npos);
  std::string where = Emit(search::DefaultGpuSchedule(ir::zoo::ZooLookup("where").build())).code;
  EXPECT_NE(where.find("device uchar* cond"), std::string::npos) << where;
  EXPECT_NE(where.find(" != 0)"), std::string::npos) << where;
}

TEST(MslEmitterTest, RefusesFloat64AndBFloat16NamingTheKernel) {
  std::string error = ErrorOf([] { Emit(BoundAdd(ir::DataType::Float(64))); });
  EXPECT_NE(error.find("function add, kernel kiln_add"), std::string::npos) << error;
  EXPECT_NE(error.find("float64, which Metal has not (no double"), std::string::npos) << error;
  error = ErrorOf(
      [] { Emit(search::DefaultGpuSchedule(ir::zoo::ZooLookup("float64_reduce").build())); });
  EXPECT_NE(error.find("function float64_reduce"), std::string::npos) << error;
  EXPECT_NE(error.find("no double"), std::string::npos) << error;
  error = ErrorOf([] { Emit(BoundAdd(ir::DataType::BFloat16())); });
  EXPECT_NE(error.find("function add, kernel kiln_add: bfloat16"), std::string::npos) << error;
}

TEST(MslEmitterTest, RefusesA64BitIndexOnADeviceWithout64BitIntegers) {
  ir::PrimFunc wide_index = BoundAdd(ir::DataType::Float(32), ir::DataType::Int(64));
  // With 64-bit integers (every Metal GPU): emitted, the index narrowed where it provably fits.
  std::string code = Emit(wide_index).code;
  EXPECT_NE(code.find("long"), std::string::npos) << code;
  MslEmitOptions no_int64;
  no_int64.limits.int64 = false;
  std::string error = ErrorOf([&] { Emit(wide_index, no_int64); });
  EXPECT_NE(error.find("function add, kernel kiln_add: int64 (a 64-bit index or value) on a "
                       "Metal device without 64-bit integers; the limit is 32-bit integers"),
            std::string::npos)
      << error;
  // A 32-bit index on the same device is fine.
  EXPECT_NO_THROW(Emit(BoundAdd(ir::DataType::Float(32)), no_int64));
}

TEST(MslEmitterTest, RefusesMoreThan31BufferArguments) {
  // 30 inputs + 1 output = 31 buffers: the table is full, and fits.
  EXPECT_NO_THROW(Emit(ManyArguments(30, 0)));
  // 31 inputs + 1 output = 32 buffers.
  std::string error = ErrorOf([] { Emit(ManyArguments(31, 0)); });
  EXPECT_NE(error.find("function many, kernel kiln_many: 32 buffer arguments (32 tensors, 0 "
                       "workspace) exceed Metal's limit of 31 entries in a kernel's buffer "
                       "argument table"),
            std::string::npos)
      << error;
  // 30 buffers and a scalar: KilnArgs takes the 31st entry and fits; 31 and a scalar do not.
  EXPECT_NO_THROW(Emit(ManyArguments(29, 1)));
  error = ErrorOf([] { Emit(ManyArguments(30, 2)); });
  EXPECT_NE(error.find("32 buffer arguments (31 tensors, 0 workspace, KilnArgs)"),
            std::string::npos)
      << error;
}

TEST(MslEmitterTest, RefusesThreadgroupMemoryPastTheLimitNamingKernelAndBuffer) {
  // A 16 x 1024 float tile of B per block: 64 KiB of threadgroup memory.
  ir::PrimFunc f = ComputeMatmul(16, 1024, 16);
  Schedule sch(f);
  BlockRV c = sch.GetBlock("C");
  BlockRV b_shared = sch.CacheRead(c, 1, "shared");
  std::vector<LoopRV> loops = sch.GetLoops(c);
  sch.Bind(loops[0], "blockIdx.x");
  sch.ComputeAt(b_shared, loops[0]);
  std::string error = ErrorOf([&] { Emit(sch.func()); });
  EXPECT_NE(error.find("kernel kiln_"), std::string::npos) << error;
  EXPECT_NE(error.find("65536 bytes of threadgroup memory (B"), std::string::npos) << error;
  EXPECT_NE(error.find(" float32[16384])"), std::string::npos) << error;
  EXPECT_NE(error.find("exceed Metal's limit of 32768 bytes of threadgroup memory per "
                       "threadgroup"),
            std::string::npos)
      << error;
}

TEST(MslEmitterTest, RefusesMoreThreadsPerThreadgroupThanTheLimit) {
  // 32 x 64 threads in one threadgroup: 2048.
  ir::PrimFunc f = testing::Matmul(32, 64, 4);
  Schedule sch(f);
  std::vector<LoopRV> loops = sch.GetLoops(sch.GetBlock("C"));
  sch.Bind(loops[0], "threadIdx.y");
  sch.Bind(loops[1], "threadIdx.x");
  std::string error = ErrorOf([&] { Emit(sch.func()); });
  EXPECT_NE(error.find("kernel kiln_"), std::string::npos) << error;
  EXPECT_NE(error.find("2048 threads per threadgroup (64 x 32 x 1) exceed Metal's limit of "
                       "1024 threads per threadgroup"),
            std::string::npos)
      << error;
}

TEST(MslEmitterTest, EveryZooFunctionEmitsButFloat64AndBFloat16) {
  int emitted = 0;
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    SCOPED_TRACE(entry.name);
    try {
      std::string code = Emit(search::DefaultGpuSchedule(entry.build())).code;
      EXPECT_EQ(code.find("double"), std::string::npos) << code;
      ++emitted;
    } catch (const Error& e) {
      std::string what = e.what();
      EXPECT_TRUE(what.find("float64") != std::string::npos ||
                  what.find("bfloat16") != std::string::npos)
          << what;
      EXPECT_NE(what.find("function " + entry.name), std::string::npos) << what;
    }
  }
  EXPECT_EQ(emitted, static_cast<int>(ir::zoo::Zoo().size()) - 2);
}

// ---- Beside spirv-cross (tests/codegen/metal_spirv_cross.h) ------------------------------

#ifdef KILN_HAVE_SHADERC
TEST(MslBesideSpirvCrossTest, EachKernelsThreadgroupArraysAndBarriersAgree) {
  std::string tool = testing::SpirvCrossPath();
  if (tool.empty()) GTEST_SKIP() << "skipped: no spirv-cross (Debian package spirv-cross)";
  // Hand-scheduled shared memory, then every zoo function under the default GPU schedule but
  // the two Metal refuses (float64, bfloat16).
  std::vector<std::pair<std::string, ir::PrimFunc>> functions = {
      {"matmul with shared tiles", BoundMatmul(true)},
      {"matmul reduced across threads", RFactorMatmul()},
      {"softmax_symbolic, 64 threads",
       search::DefaultGpuSchedule(ir::zoo::ZooLookup("softmax_symbolic").build(), 64)},
  };
  for (const ir::zoo::ZooEntry& entry : ir::zoo::Zoo()) {
    if (entry.name == "float64_reduce" || entry.name == "bfloat16_add") continue;
    functions.push_back({entry.name, search::DefaultGpuSchedule(entry.build())});
  }
  testing::SpirvCrossTally tally;
  for (const auto& [name, f] : functions) {
    EXPECT_EQ(testing::CompareWithSpirvCross(f, tool, tally), "") << name;
  }
  // The comparison had something to compare.
  EXPECT_GE(tally.kernels, static_cast<int>(functions.size()));
  EXPECT_GE(tally.threadgroup_arrays, 3);
  EXPECT_GE(tally.kernels_with_barriers, 2);
  std::cout << "[ spirv-cross ] " << tally.kernels << " kernels of " << functions.size()
            << " functions agree in structure; " << tally.threadgroup_arrays
            << " threadgroup arrays, " << tally.kernels_with_barriers << " kernels with barriers\n";
}
#else
TEST(MslBesideSpirvCrossTest, EachKernelsThreadgroupArraysAndBarriersAgree) {
  GTEST_SKIP() << "skipped: the Vulkan runtime (shaderc) is not built, so there is no SPIR-V "
                  "to hand spirv-cross";
}
#endif

}  // namespace
}  // namespace kiln::codegen
