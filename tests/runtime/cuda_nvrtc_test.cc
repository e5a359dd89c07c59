// NVRTC through dlopen: CUDA C++ to PTX and an sm_90 cubin without a GPU, compile errors as
// logs, and the toolkit's headers (cuda_fp16.h) found beside the library.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "runtime/cuda/nvrtc.h"
#include "support/error.h"

namespace kiln::runtime::cuda {
namespace {

#define SKIP_WITHOUT_NVRTC()                                                               \
  do {                                                                                     \
    std::string why;                                                                       \
    if (!NvrtcAvailable(&why)) GTEST_SKIP() << "skipped: no CUDA toolkit (" << why << ")"; \
  } while (false)

TEST(NvrtcTest, CompilesToPtxAndCubinForSm90) {
  SKIP_WITHOUT_NVRTC();
  const char* source = R"(#include <cuda_fp16.h>
extern "C" __global__ void scale(half* __restrict__ x, long long n) {
  __shared__ float tile[128];
  int i = blockIdx.x * 128 + threadIdx.x;
  tile[threadIdx.x] = i < n ? __half2float(x[i]) : 0.0f;
  __syncthreads();
  if (i < n) x[i] = __float2half(tile[127 - threadIdx.x] * 2.0f);
}
)";
  NvrtcOutput out = CompileWithNvrtc(source, "scale.cu", {.arch = "sm_90"});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_NE(out.ptx.find(".entry scale"), std::string::npos) << out.ptx;
  EXPECT_NE(out.ptx.find(".target sm_90"), std::string::npos);
  ASSERT_GE(out.cubin.size(), 4u);
  EXPECT_EQ(out.cubin.substr(0, 4), std::string("\x7f"
                                                "ELF"));
  EXPECT_GT(out.seconds, 0);
}

TEST(NvrtcTest, VirtualArchitectureGivesPtxOnly) {
  SKIP_WITHOUT_NVRTC();
  NvrtcOutput out = CompileWithNvrtc("extern \"C\" __global__ void k(float* x) { x[0] = 1; }",
                                     "k.cu", {.arch = "compute_90"});
  ASSERT_TRUE(out.ok) << out.log;
  EXPECT_NE(out.ptx.find(".entry k"), std::string::npos);
  EXPECT_TRUE(out.cubin.empty());
}

TEST(NvrtcTest, CompileErrorIsALogNamingTheLine) {
  SKIP_WITHOUT_NVRTC();
  NvrtcOutput out = CompileWithNvrtc(
      "extern \"C\" __global__ void k(float* x) {\n  x[0] = undefined_name;\n}\n", "bad.cu");
  EXPECT_FALSE(out.ok);
  EXPECT_NE(out.log.find("bad.cu(2)"), std::string::npos) << out.log;
  EXPECT_NE(out.log.find("undefined_name"), std::string::npos) << out.log;
  EXPECT_TRUE(out.ptx.empty());
}

TEST(NvrtcTest, UnknownArchitectureIsAnErrorWithTheLog) {
  SKIP_WITHOUT_NVRTC();
  try {
    CompileWithNvrtc("extern \"C\" __global__ void k() {}", "k.cu", {.arch = "sm_1"});
    FAIL() << "sm_1 compiled";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    std::string message = e.what();
    EXPECT_NE(message.find("k.cu"), std::string::npos) << message;
    EXPECT_NE(message.find("--gpu-architecture"), std::string::npos) << message;
  }
}

TEST(NvrtcTest, ReportsVersionAndArchitectures) {
  SKIP_WITHOUT_NVRTC();
  EXPECT_FALSE(NvrtcVersion().empty());
  std::vector<int> archs = NvrtcSupportedArchs();
  EXPECT_NE(std::find(archs.begin(), archs.end(), 90), archs.end());
  EXPECT_FALSE(CudaIncludeDir().empty());
}

TEST(NvrtcTest, FindsTheWheelsLibraryInAVirtualEnvironment) {
  namespace fs = std::filesystem;
  fs::path venv = fs::temp_directory_path() / ("kiln-venv-test-" + std::to_string(getpid()));
  fs::path lib = venv / "lib" / "python3.11" / "site-packages" / "nvidia" / "cu13" / "lib";
  fs::create_directories(lib);
  std::ofstream(lib / "libnvrtc.so.13") << "";
  fs::create_directories(venv / "lib" / "pkgconfig");
  EXPECT_EQ(NvrtcInVirtualEnv(venv.string()),
            std::vector<std::string>{(lib / "libnvrtc.so.13").string()});
  EXPECT_TRUE(NvrtcInVirtualEnv((venv / "missing").string()).empty());
  EXPECT_TRUE(NvrtcInVirtualEnv("").empty());
  fs::remove_all(venv);
}

}  // namespace
}  // namespace kiln::runtime::cuda
