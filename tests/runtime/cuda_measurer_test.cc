// The CUDA measurer end to end on a CUDA GPU: bound and tiled kernels built by NVRTC in the
// runner process and compared with the reference interpreter, and candidates that exceed the
// device, fault or compute something else as error results while measuring goes on. Without a
// GPU, creating the measurer fails naming the missing driver or device, and the rest says
// "skipped: no CUDA device" (the compile half is codegen_cuda_test).
#include "runtime/cuda/cuda_measurer.h"

#include <gtest/gtest.h>

#include "ir/text/parser.h"
#include "runtime_test_util.h"
#include "support/error.h"
#include "tests/testing/golden.h"

namespace kiln::runtime {
namespace {

using testing::ScratchDir;

constexpr char kMatmul[] = R"(@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for i, j, k in T.grid(64, 64, 64):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
)";

// The matmul bound to 4x4 blocks of 16x16 threads; `OFFSET` moves its stores.
constexpr char kBoundMatmul[] = R"(@T.prim_func
def matmul(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
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
                            C[vi, vj] = C[vi, vj] + A[vi, vk] * SCALE B[vk, vj]
)";

std::string Bound(const std::string& scale) {
  std::string text = kBoundMatmul;
  return text.replace(text.find("SCALE "), 6, scale);
}

class CudaMeasurerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MeasureOptions options;
    options.target = "cuda";
    options.cache_dir = scratch_.Sub("cache");
    options.sandbox_path = KILN_SANDBOX_PATH;
    options.timing = {.number = 2, .repeat = 3, .min_repeat_ms = 1};
    options.run_time_limit_s = 60;
    try {
      measurer_ = CreateMeasurer("cuda", options);
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
      std::string message = e.what();
      EXPECT_NE(message.find("no cuda device"), std::string::npos) << message;
      EXPECT_TRUE(message.find("driver") != std::string::npos ||
                  message.find("device") != std::string::npos)
          << message;
      GTEST_SKIP() << "skipped: no CUDA device (" << message << ")";
    }
  }

  MeasureResult Measure(const std::string& workload, const std::string& scheduled) {
    return measurer_->Measure({ir::ParsePrimFunc(workload), ir::ParsePrimFunc(scheduled)});
  }

  ScratchDir scratch_;
  std::unique_ptr<Measurer> measurer_;
};

TEST_F(CudaMeasurerTest, BoundMatmulMatchesTheReferenceAndIsTimedByEvents) {
  MeasureResult r = Measure(kMatmul, Bound(""));
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.correctness_checked);
  EXPECT_EQ(r.repeat_seconds.size(), 3u);
  EXPECT_GT(r.median_seconds, 0);
  EXPECT_GT(r.build_seconds, 0);
}

TEST_F(CudaMeasurerTest, SharedMemoryTileInFloat16MatchesTheReference) {
  std::string scheduled = kiln::testing::ReadTextFile(
      kiln::testing::SourcePath("tests/codegen/testdata/cuda/tiled_matmul_f16.tir"));
  // The workload: the same product without a schedule.
  std::string workload = R"(@T.prim_func
def tiled_matmul_f16(A: T.Buffer((128, 128), "float16"), B: T.Buffer((128, 128), "float16"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 128):
        with T.block("C"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + T.Cast("float32", A[vi, vk]) * T.Cast("float32", B[vk, vj])
)";
  MeasureResult r = Measure(workload, scheduled);
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.correctness_checked);
}

TEST_F(CudaMeasurerTest, CrossThreadReductionMatchesTheReference) {
  std::string scheduled = kiln::testing::ReadTextFile(
      kiln::testing::SourcePath("tests/ir/testdata/tir/cross_thread_sum.tir"));
  std::string workload = R"(@T.prim_func
def cross_thread_sum(A: T.Buffer((32, 1024), "float32"), B: T.Buffer((32,), "float32")):
    for i, k in T.grid(32, 1024):
        with T.block("B"):
            vi, vk = T.axis.remap("SR", [i, k])
            with T.init():
                B[vi] = T.float32(0.0)
            B[vi] = B[vi] + A[vi, vk]
)";
  MeasureResult r = Measure(workload, scheduled);
  ASSERT_TRUE(r.ok()) << r.message;
}

TEST_F(CudaMeasurerTest, WrongKernelIsAWrongResult) {
  MeasureResult r = Measure(kMatmul, Bound("T.float32(2.0) * "));
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kWrongResult) << r.message;
  EXPECT_NE(r.message.find("C"), std::string::npos) << r.message;
  EXPECT_EQ(r.median_seconds, 0);
}

TEST_F(CudaMeasurerTest, KernelBeyondTheDeviceIsABuildErrorNamingTheLimit) {
  std::string wide = R"(@T.prim_func
def fill(A: T.Buffer((4096,), "float32")):
    for tx in T.thread_binding(4096, thread="threadIdx.x"):
        with T.block("A"):
            vi = T.axis.spatial(4096, tx)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(1.0)
)";
  std::string plain = R"(@T.prim_func
def fill(A: T.Buffer((4096,), "float32")):
    for i in range(4096):
        with T.block("A"):
            vi = T.axis.spatial(4096, i)
            T.reads()
            T.writes(A[vi])
            A[vi] = T.float32(1.0)
)";
  MeasureResult r = Measure(plain, wide);
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kBuildError) << r.message;
  EXPECT_NE(r.message.find("threads per block"), std::string::npos) << r.message;
}

TEST_F(CudaMeasurerTest, IllegalAddressIsARuntimeErrorAndMeasuringGoesOn) {
  std::string bad = Bound("");
  bad.replace(bad.find("C[vi, vj] = C[vi, vj] +"), 23, "C[vi, vj] = C[vi + 100000000, vj] +");
  MeasureResult r = Measure(kMatmul, bad);
  EXPECT_EQ(r.error_kind, MeasureErrorKind::kRuntimeError) << r.message;
  MeasureResult next = Measure(kMatmul, Bound(""));
  EXPECT_TRUE(next.ok()) << next.message;
}

}  // namespace
}  // namespace kiln::runtime
