// Device keys from /proc/cpuinfo texts of the CPUs Kiln meets, and this machine's own.
#include "worker/device_key.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace kiln::worker {
namespace {

std::string X86(const std::string& vendor, int family, int model, const std::string& name,
                const std::string& flags, int processors = 2) {
  std::string out;
  for (int p = 0; p < processors; ++p) {
    out += "processor\t: " + std::to_string(p) + "\nvendor_id\t: " + vendor +
           "\ncpu family\t: " + std::to_string(family) + "\nmodel\t\t: " + std::to_string(model) +
           "\nmodel name\t: " + name + "\nflags\t\t: fpu sse sse2 " + flags + "\n\n";
  }
  return out;
}

TEST(DeviceKey, AmdGenerations) {
  EXPECT_EQ(DeviceKeyFromCpuinfo(X86("AuthenticAMD", 25, 17, "AMD EPYC 9B14", "avx avx2 avx512f")),
            "cpu-zen4");
  EXPECT_EQ(DeviceKeyFromCpuinfo(X86("AuthenticAMD", 25, 1, "AMD EPYC 7B13", "avx avx2")),
            "cpu-zen3");
  EXPECT_EQ(DeviceKeyFromCpuinfo(X86("AuthenticAMD", 23, 49, "AMD EPYC 7B12", "avx avx2")),
            "cpu-zen2");
  EXPECT_EQ(DeviceKeyFromCpuinfo(X86("AuthenticAMD", 26, 2, "AMD EPYC 9005", "avx512f")),
            "cpu-zen5");
}

TEST(DeviceKey, IntelBySimd) {
  EXPECT_EQ(DeviceKeyFromCpuinfo(X86("GenuineIntel", 6, 143, "Intel(R) Xeon(R) Platinum 8481C",
                                     "avx2 avx512f amx_tile")),
            "cpu-xeon-amx");
  EXPECT_EQ(
      DeviceKeyFromCpuinfo(X86("GenuineIntel", 6, 85, "Intel(R) Xeon(R) CPU", "avx2 avx512f")),
      "cpu-xeon-avx512");
  EXPECT_EQ(DeviceKeyFromCpuinfo(
                X86("GenuineIntel", 6, 154, "12th Gen Intel(R) Core(TM) i7", "avx avx2")),
            "cpu-intel-avx2");
}

TEST(DeviceKey, ArmAndUnknown) {
  std::string arm =
      "processor\t: 0\nBogoMIPS\t: 243.75\nFeatures\t: fp asimd evtstrm sve\nCPU implementer\t: "
      "0x41\n\n";
  EXPECT_EQ(DeviceKeyFromCpuinfo(arm), "cpu-arm64-sve");
  EXPECT_EQ(DeviceKeyFromCpuinfo(""), "cpu-unknown");
  EXPECT_EQ(DeviceKeyFromCpuinfo("garbage without colons\n\n\n"), "cpu-unknown");
}

TEST(DeviceKey, HardwareSummaryCountsEveryProcessor) {
  EXPECT_EQ(HardwareSummaryFromCpuinfo(X86("AuthenticAMD", 25, 17, "AMD EPYC 9B14", "", 4)),
            "AMD EPYC 9B14, 4 logical cores");
}

TEST(DeviceKey, ThisMachineHasAKey) {
  std::string key = DetectCpuDeviceKey();
  EXPECT_THAT(key, ::testing::StartsWith("cpu-"));
  EXPECT_THAT(DetectCpuHardware(), ::testing::HasSubstr("logical cores"));
}

}  // namespace
}  // namespace kiln::worker
