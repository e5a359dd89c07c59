// CUDA device keys from device names, and discovery: on a machine without the driver or a
// GPU it fails with a message naming what is missing; with one, it reports sane limits.
#include "runtime/cuda/cuda_device.h"

#include <gtest/gtest.h>

#include "runtime/cuda/cuda_driver.h"
#include "support/error.h"

namespace kiln::runtime::cuda {
namespace {

TEST(CudaDeviceKeyTest, NamesTheModel) {
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA H100 80GB HBM3"), "cuda-h100");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA H100 PCIe"), "cuda-h100");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA H200"), "cuda-h200");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA A100-SXM4-80GB"), "cuda-a100");
  EXPECT_EQ(CudaDeviceKeyFromName("Tesla V100-SXM2-16GB"), "cuda-v100");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA GeForce RTX 4090"), "cuda-rtx-4090");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA GeForce GTX 1080 Ti"), "cuda-gtx-1080-ti");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA RTX A6000"), "cuda-rtx-a6000");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA L4"), "cuda-l4");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA H100 MIG 1g.10gb"), "cuda-h100");
  EXPECT_EQ(CudaDeviceKeyFromName(""), "cuda-unknown");
  EXPECT_EQ(CudaDeviceKeyFromName("NVIDIA"), "cuda-unknown");
}

TEST(CudaDeviceTest, DiscoveryReportsTheDeviceOrWhatIsMissing) {
  std::vector<CudaDeviceInfo> devices;
  try {
    devices = DiscoverCudaDevices();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    std::string message = e.what();
    EXPECT_TRUE(message.find("no CUDA driver") != std::string::npos ||
                message.find("no CUDA device") != std::string::npos)
        << message;
    GTEST_SKIP() << "skipped: no CUDA device (" << message << ")";
  }
  ASSERT_FALSE(devices.empty());
  for (const CudaDeviceInfo& d : devices) {
    EXPECT_EQ(d.key, CudaDeviceKeyFromName(d.name));
    EXPECT_GE(d.compute_major, 5);
    EXPECT_GT(d.sm_count, 0);
    EXPECT_GE(d.limits.max_threads_per_block, 512);
    EXPECT_GE(d.limits.max_shared_bytes, 16 * 1024);
    EXPECT_EQ(d.limits.warp_size, 32);
    EXPECT_GT(d.total_memory_bytes, 0);
    EXPECT_EQ(d.Arch().rfind("sm_", 0), 0u);
  }
}

TEST(CudaDeviceTest, MissingOrdinalNamesTheCount) {
  std::string why;
  try {
    DiscoverCudaDevice(1000);
    FAIL() << "device 1000 exists";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("CUDA"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::runtime::cuda
