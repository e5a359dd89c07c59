// A worker's device kind "metal" on a machine without a Mac: the probe finds the CPU shim
// (kiln-metal-shim-runner), and what the worker registers says the device is an emulation --
// its key is the shim's, no Mac's, and its features carry "emulated" -- so the coordinator and
// `tune workers` never take its times for a Metal GPU's.
#include <gtest/gtest.h>

#include <algorithm>

#include "runtime/metal/metal_device_key.h"
#include "support/error.h"
#include "worker/device_probe.h"

namespace kiln::worker {
namespace {

TEST(MetalProbeTest, TheShimRegistersAsAnEmulation) {
  ProbedDevice d;
  try {
    d = ProbeDevice("metal");
  } catch (const Error& e) {
    ASSERT_EQ(e.kind(), ErrorKind::kUnsupported) << e.what();
    GTEST_SKIP() << "skipped: no Metal device or shim: " << e.what();
  }
  EXPECT_EQ(d.kind, "metal");
  EXPECT_EQ(d.target, "metal");
  ASSERT_TRUE(d.gpu.has_value());
#ifndef __APPLE__
  EXPECT_EQ(d.key, runtime::metal::kMetalShimDeviceKey);
  EXPECT_TRUE(d.gpu->emulated);
  EXPECT_NE(d.hardware.find("Metal (CPU shim)"), std::string::npos) << d.hardware;
#endif
  schemas::RegisterMsg m;
  AddDeviceFacts(d, m);
  EXPECT_EQ(m.max_threads_per_block, 1024u);
  EXPECT_EQ(m.warp_size, 32u);
  bool emulated = std::find(m.features.begin(), m.features.end(), "emulated") != m.features.end();
  EXPECT_EQ(emulated, d.gpu->emulated);
  EXPECT_EQ(std::find(m.features.begin(), m.features.end(), "fp64"), m.features.end());
}

}  // namespace
}  // namespace kiln::worker
