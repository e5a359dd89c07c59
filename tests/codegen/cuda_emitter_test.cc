// The CUDA emitter: what it prints for thread-bound loops, shared memory, barriers, vectors
// and float16, its launch plans, the device limits it enforces, and that NVRTC compiles what
// it prints for sm_90 (PTX and cubin). Running the kernels needs a GPU: runtime/cuda's tests.
#include "codegen/cuda/cuda_emitter.h"

#include <gtest/gtest.h>

#include "codegen/lower.h"
#include "codegen/target.h"
#include "ir/text/parser.h"
#include "runtime/cuda/nvrtc.h"
#include "support/error.h"
#include "tests/testing/golden.h"

namespace kiln::codegen {
namespace {

EmittedSource EmitText(const std::string& text, const CudaEmitOptions& options = {}) {
  ir::PrimFunc f = ir::ParsePrimFunc(text);
  CudaTarget target(options);
  return target.Emit(Lower(f, target.DefaultLowerOptions()), "kiln_" + f->name);
}

EmittedSource EmitFile(const std::string& relative) {
  return EmitText(testing::ReadTextFile(testing::SourcePath(relative)));
}

// Compiles `source` for sm_90 and checks that every kernel of its plan is in the PTX.
void ExpectCompiles(const EmittedSource& source) {
  std::string why;
  if (!runtime::cuda::NvrtcAvailable(&why)) {
    GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << ")";
  }
  runtime::cuda::NvrtcOutput out =
      runtime::cuda::CompileWithNvrtc(source.code, source.signature.symbol + ".cu");
  ASSERT_TRUE(out.ok) << out.log << "\n" << source.code;
  EXPECT_FALSE(out.cubin.empty());
  ASSERT_TRUE(source.launch.has_value());
  for (const gpu::KernelLaunch& k : source.launch->kernels) {
    EXPECT_NE(out.ptx.find(".entry " + k.symbol + "("), std::string::npos) << k.symbol;
  }
}

std::vector<int64_t> Extents(const std::array<ir::Expr, 3>& e) {
  std::vector<int64_t> out;
  for (const ir::Expr& x : e) out.push_back(ir::AsConstInt(x).value_or(-1));
  return out;
}

const char kMatmul[] = R"(@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    T.func_attr({"tir.noalias": T.bool(True)})
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for by in T.thread_binding(4, thread="blockIdx.y"):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                for ty in T.thread_binding(16, thread="threadIdx.y"):
                    for k in range(64):
                        with T.block("C"):
                            vi = T.axis.spatial(64, bx * 16 + tx)
                            vj = T.axis.spatial(64, by * 16 + ty)
                            vk = T.axis.reduce(64, k)
                            T.reads(A[vi, vk], B[vk, vj])
                            T.writes(C[vi, vj])
                            with T.init():
                                C[vi, vj] = T.float32(0.0)
                            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

TEST(CudaEmitterTest, MatmulWithBindingsIsOneKernelWithItsLaunch) {
  EmittedSource source = EmitText(kMatmul);
  EXPECT_EQ(source.language, "cuda");
  EXPECT_EQ(testing::CheckGoldenFile(testing::SourcePath("tests/codegen/testdata/cuda/matmul.cu"),
                                     source.code),
            "");
  ASSERT_TRUE(source.launch.has_value());
  ASSERT_EQ(source.launch->kernels.size(), 1u);
  const gpu::KernelLaunch& k = source.launch->kernels[0];
  EXPECT_EQ(k.symbol, "kiln_matmul");
  EXPECT_EQ(Extents(k.extents.grid), (std::vector<int64_t>{4, 4, 1}));
  EXPECT_EQ(Extents(k.extents.block), (std::vector<int64_t>{16, 16, 1}));
  EXPECT_EQ(k.shared_bytes, 0);
  ExpectCompiles(source);
}

TEST(CudaEmitterTest, SharedMemoryTileInFloat16HasBarriersAndCompiles) {
  EmittedSource source = EmitFile("tests/codegen/testdata/cuda/tiled_matmul_f16.tir");
  const std::string& code = source.code;
  EXPECT_NE(code.find("#include <cuda_fp16.h>"), std::string::npos);
  EXPECT_NE(code.find("__shared__ alignas(16) half A_shared"), std::string::npos) << code;
  EXPECT_NE(code.find("__syncthreads();"), std::string::npos) << code;
  EXPECT_NE(code.find("__launch_bounds__(64)"), std::string::npos) << code;
  ASSERT_TRUE(source.launch.has_value());
  ASSERT_EQ(source.launch->kernels.size(), 1u);
  // At least a 64x16 tile of A and a 16x64 tile of B per step of k, in half; at most the rows
  // of A and the columns of B the block reads over the whole k loop.
  EXPECT_GE(source.launch->kernels[0].shared_bytes, 2 * 64 * 16 * 2);
  EXPECT_LE(source.launch->kernels[0].shared_bytes, 2 * 64 * 128 * 2);
  ExpectCompiles(source);
}

TEST(CudaEmitterTest, CrossThreadReductionCompiles) {
  EmittedSource source = EmitFile("tests/ir/testdata/tir/cross_thread_sum.tir");
  const std::string& code = source.code;
  EXPECT_NE(code.find("__shared__"), std::string::npos) << code;
  EXPECT_NE(code.find("__syncthreads();"), std::string::npos) << code;
  // The final sum is block-level code: one thread runs it.
  EXPECT_NE(code.find("threadIdx.x < 1"), std::string::npos) << code;
  ExpectCompiles(source);
}

TEST(CudaEmitterTest, VectorizedLoopUsesAlignedVectorAccesses) {
  EmittedSource source = EmitText(R"(@T.prim_func
def axpb(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32")):
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            for v in T.vectorized(4):
                with T.block("B"):
                    vi = T.axis.spatial(1024, bx * 256 + tx * 4 + v)
                    T.reads(A[vi])
                    T.writes(B[vi])
                    B[vi] = A[vi] * T.float32(2.0) + T.float32(1.0)
)");
  const std::string& code = source.code;
  EXPECT_NE(code.find("kiln_vload<float, 4>(A + "), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_vstore<float, 4>(B + "), std::string::npos) << code;
  EXPECT_NE(code.find("kiln_broadcast<float, 4>(2.0f)"), std::string::npos) << code;
  ExpectCompiles(source);
}

TEST(CudaEmitterTest, Float16ArithmeticAndLocalBuffersCompile) {
  EmittedSource source = EmitText(R"(@T.prim_func
def scale_f16(A: T.Buffer((1024,), "float16"), B: T.Buffer((1024,), "float16")):
    L = T.alloc_buffer((1024,), "float16", scope="local")
    for bx in T.thread_binding(4, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            for v in T.vectorized(4):
                with T.block("L"):
                    vi = T.axis.spatial(1024, bx * 256 + tx * 4 + v)
                    T.reads(A[vi])
                    T.writes(L[vi])
                    L[vi] = T.max(A[vi] * T.float16(0.5), T.float16(-1.0))
            for v in T.vectorized(4):
                with T.block("B"):
                    vi = T.axis.spatial(1024, bx * 256 + tx * 4 + v)
                    T.reads(L[vi])
                    T.writes(B[vi])
                    B[vi] = L[vi] + T.float16(1.0)
)");
  // Arithmetic stays in half (rounded per operation, as the interpreter rounds).
  EXPECT_NE(source.code.find("kiln_max<half>("), std::string::npos) << source.code;
  EXPECT_NE(source.code.find("half L["), std::string::npos) << source.code;
  ExpectCompiles(source);
}

TEST(CudaEmitterTest, SymbolicShapesAreParametersAndLaunchExpressions) {
  EmittedSource source = EmitText(R"(@T.prim_func
def scale(A: T.Buffer(("n",), "float32"), B: T.Buffer(("n",), "float32")):
    for bx in T.thread_binding((n + 63) // 64, thread="blockIdx.x"):
        for tx in T.thread_binding(64, thread="threadIdx.x"):
            with T.block("B"):
                vi = T.axis.spatial(n, bx * 64 + tx)
                T.where(bx * 64 + tx < n)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(3.0)
)");
  EXPECT_NE(source.code.find("long long n_arg"), std::string::npos) << source.code;
  ASSERT_TRUE(source.launch.has_value());
  const gpu::KernelLaunch& k = source.launch->kernels[0];
  EXPECT_FALSE(ir::AsConstInt(k.extents.grid[0]).has_value());
  EXPECT_EQ(gpu::EvaluateExtent(k.extents.grid[0], {{"n", 1000}}), 16);
  ExpectCompiles(source);
}

TEST(CudaEmitterTest, TooManyThreadsIsRefusedNamingTheLoop) {
  try {
    EmitText(R"(@T.prim_func
def wide(A: T.Buffer((2048,), "float32")):
    for tx in T.thread_binding(2048, thread="threadIdx.x"):
        with T.block("A"):
            vi = T.axis.spatial(2048, tx)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(1.0)
)");
    FAIL() << "2048 threads per block were accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    std::string message = e.what();
    EXPECT_NE(message.find("tx"), std::string::npos) << message;
    EXPECT_NE(message.find("1024"), std::string::npos) << message;
  }
}

TEST(CudaEmitterTest, SharedMemoryBeyondTheDeviceIsRefusedNamingTheBuffer) {
  CudaEmitOptions small;
  small.limits.max_shared_bytes = 1024;
  try {
    EmitText(testing::ReadTextFile(
                 testing::SourcePath("tests/codegen/testdata/cuda/tiled_matmul_f16.tir")),
             small);
    FAIL() << "the tiles fit in 1 KiB of shared memory";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    std::string message = e.what();
    EXPECT_NE(message.find("A_shared"), std::string::npos) << message;
    EXPECT_NE(message.find("1024"), std::string::npos) << message;
  }
}

TEST(CudaEmitterTest, Float16OnADeviceWithoutItIsRefused) {
  CudaEmitOptions no_half;
  no_half.limits.fp16 = false;
  EXPECT_THROW(EmitText(testing::ReadTextFile(testing::SourcePath(
                            "tests/codegen/testdata/cuda/tiled_matmul_f16.tir")),
                        no_half),
               Error);
}

TEST(CudaEmitterTest, IsRegisteredAsCuda) {
  std::unique_ptr<CodegenTarget> target = CreateTarget("cuda");
  EXPECT_EQ(target->Name(), "cuda");
  EXPECT_FALSE(target->DefaultLowerOptions().plan_storage);
}

}  // namespace
}  // namespace kiln::codegen
