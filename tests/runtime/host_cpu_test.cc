// The vector width read from /proc/cpuinfo texts of the machines Kiln runs on.
#include "runtime/host_cpu.h"

#include <gtest/gtest.h>

namespace kiln::runtime {
namespace {

TEST(HostCpuTest, VectorBytesFollowTheFirstProcessorsFlags) {
  EXPECT_EQ(VectorBytesFromCpuinfo("processor\t: 0\nmodel name\t: AMD EPYC 9R14\n"
                                   "flags\t\t: fpu sse2 avx avx2 avx512f avx512bw\n\n"
                                   "processor\t: 1\nflags\t\t: fpu sse2\n"),
            64);
  EXPECT_EQ(VectorBytesFromCpuinfo("processor\t: 0\nflags\t\t: fpu sse2 avx avx2 fma\n"), 32);
  EXPECT_EQ(VectorBytesFromCpuinfo("processor\t: 0\nFeatures\t: fp asimd\n"), 16);
  // A later block does not count: only the first processor is read.
  EXPECT_EQ(VectorBytesFromCpuinfo("processor\t: 0\nflags\t: sse2\n\nflags\t: avx512f\n"), 16);
  EXPECT_EQ(VectorBytesFromCpuinfo(""), 16);
}

TEST(HostCpuTest, ThisMachineHasAKnownWidth) {
  int bytes = HostVectorBytes();
  EXPECT_TRUE(bytes == 16 || bytes == 32 || bytes == 64) << bytes;
}

}  // namespace
}  // namespace kiln::runtime
