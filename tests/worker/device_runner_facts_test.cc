// What a device runner says of its device and what the host makes of it: the cores of a
// big.LITTLE phone by name from its /proc/cpuinfo, HWCAP bits by name, qemu-user told apart by
// the x86 /proc/cpuinfo it passes through, libraries of another machine refused by their ELF
// header; and on the host, the device key (a result of one phone is never filed under another,
// and an emulated runner's key says so), the target, the cross toolchain and kernel flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include "codegen/target.h"
#include "runtime/cpu_builder.h"
#include "runtime/kernel_source.h"
#include "runtime/measurer.h"
#include "runtime/remote_cpu/cross_toolchain.h"
#include "tests/ir/zoo/zoo.h"
#include "tests/runtime/runtime_test_util.h"
#include "worker/device_runner/candidate_run.h"
#include "worker/device_runner/device_facts.h"
#include "worker/remote_device.h"

namespace kiln::worker {
namespace {

using runtime::remote_cpu::RunnerFacts;

// Two processors of each cluster of a Pixel 8's Tensor G3 (1 x X3, 4 x A715, 4 x A510), as its
// /proc/cpuinfo lists them, cut short.
const char* kPhoneCpuinfo = R"(processor	: 0
BogoMIPS	: 49.15
Features	: fp asimd evtstrm aes pmull sha1 sha2 crc32 atomics fphp asimdhp cpuid asimdrdm
CPU implementer	: 0x41
CPU architecture: 8
CPU variant	: 0x1
CPU part	: 0xd46
CPU revision	: 1

processor	: 1
CPU implementer	: 0x41
CPU part	: 0xd46

processor	: 4
CPU implementer	: 0x41
CPU part	: 0xd4d

processor	: 5
CPU implementer	: 0x41
CPU part	: 0xd4d

processor	: 8
CPU implementer	: 0x41
CPU part	: 0xd4e

processor	: 9
CPU implementer	: 0x51
CPU part	: 0x999
)";

const char* kX86Cpuinfo = R"(processor	: 0
vendor_id	: AuthenticAMD
model name	: AMD EPYC 9R14
flags		: fpu vme de pse avx avx2 avx512f
)";

TEST(DeviceRunnerFactsTest, PhoneCoresAreNamedAndCountedByCluster) {
  EXPECT_EQ(device_runner::ArmCoresFromCpuinfo(kPhoneCpuinfo),
            "cortex-a510x2+cortex-a715x2+cortex-x3x1+0x51-0x999x1");
  EXPECT_EQ(device_runner::ArmCoresFromCpuinfo(kX86Cpuinfo), "");
  EXPECT_EQ(device_runner::ArmPartName(0x41, 0xd0b), "cortex-a76");
  EXPECT_EQ(device_runner::ArmPartName(0x42, 0xd0b), "");
}

TEST(DeviceRunnerFactsTest, HwcapBitsAreNamedAsLinuxNamesThem) {
  EXPECT_EQ(device_runner::Aarch64HwcapNames(0b11, 0), "fp asimd");
  EXPECT_EQ(device_runner::Aarch64HwcapNames((1u << 20) | (1u << 22), 1u << 1), "asimddp sve sve2");
  EXPECT_EQ(device_runner::Aarch64HwcapNames(0, 0), "");
}

TEST(DeviceRunnerFactsTest, QemuUserIsToldApartByTheHostsCpuinfo) {
  std::string why = device_runner::EmulationFromCpuinfo(kX86Cpuinfo, "aarch64");
  EXPECT_NE(why.find("qemu-user"), std::string::npos) << why;
  EXPECT_NE(why.find("AMD EPYC 9R14"), std::string::npos) << why;
  EXPECT_EQ(device_runner::EmulationFromCpuinfo(kPhoneCpuinfo, "aarch64"), "");
  EXPECT_EQ(device_runner::EmulationFromCpuinfo(kX86Cpuinfo, "x86_64"), "");
  EXPECT_NE(device_runner::EmulationFromCpuinfo(kPhoneCpuinfo, "x86_64"), "");
}

TEST(DeviceRunnerFactsTest, ThisMachinesFactsAreWhole) {
  RunnerFacts f = device_runner::DescribeThisDevice(false);
  EXPECT_EQ(f.triple, runtime::remote_cpu::HostTriple());
  EXPECT_GE(f.cores, 1);
  EXPECT_GE(f.page_size, 4096);
  EXPECT_FALSE(f.cpu.empty());
  EXPECT_FALSE(f.emulated) << f.emulation;
  RunnerFacts forced = device_runner::DescribeThisDevice(true);
  EXPECT_TRUE(forced.emulated);
  EXPECT_NE(forced.emulation.find("--emulated"), std::string::npos);
}

TEST(DeviceRunnerFactsTest, LibrariesOfAnotherMachineAreRefusedByTheirHeader) {
  std::ifstream in("/proc/self/exe", std::ios::binary);
  std::stringstream bytes;
  bytes << in.rdbuf();
  std::string self = bytes.str();
  // This test program is a position-independent executable: an ELF of type ET_DYN for this
  // machine, which the header check lets through.
  EXPECT_EQ(device_runner::ElfProblem(self), "");
  std::string other = self;
  other[18] = other[18] == 62 ? static_cast<char>(183) : 62;
  other[19] = 0;
  std::string why = device_runner::ElfProblem(other);
  EXPECT_NE(why.find("ELF for machine"), std::string::npos) << why;
  EXPECT_NE(why.find("this runner"), std::string::npos) << why;
  EXPECT_NE(device_runner::ElfProblem("#!/bin/sh\n"), "");
  std::string relocatable = self;
  relocatable[16] = 1;
  EXPECT_NE(device_runner::ElfProblem(relocatable).find("not a shared object"), std::string::npos);
}

RunnerFacts Phone() {
  RunnerFacts f;
  f.triple = "aarch64-linux-android";
  f.os = "Android 14 (API 34)";
  f.model = "Google Pixel 8";
  f.cpu = "cortex-a510x4+cortex-a715x4+cortex-x3x1";
  f.features = "fp asimd fphp asimdhp asimddp";
  f.cores = 9;
  return f;
}

TEST(DeviceRunnerKeyTest, EachFactThatChangesSpeedChangesTheKey) {
  RunnerFacts phone = Phone();
  std::string key = DeviceKeyOfRunner(phone);
  EXPECT_EQ(key.rfind("aarch64-android-google-pixel-8-cortex-a510x4-", 0), 0u) << key;
  EXPECT_EQ(DeviceKeyOfRunner(phone), key) << "a key is stable";
  std::set<std::string> keys = {key};
  RunnerFacts other = phone;
  other.model = "Google Pixel 8 Pro";
  keys.insert(DeviceKeyOfRunner(other));
  other = phone;
  other.cpu = "cortex-a55x4+cortex-a76x4";
  keys.insert(DeviceKeyOfRunner(other));
  other = phone;
  other.features += " sve";
  keys.insert(DeviceKeyOfRunner(other));
  other = phone;
  other.cores = 8;
  keys.insert(DeviceKeyOfRunner(other));
  other = phone;
  other.triple = "aarch64-linux-gnu";
  keys.insert(DeviceKeyOfRunner(other));
  EXPECT_EQ(keys.size(), 6u);
  // The API level of the build is not the device's.
  other = phone;
  other.triple = "aarch64-linux-android29";
  EXPECT_EQ(DeviceKeyOfRunner(other), key);

  RunnerFacts emulated = phone;
  emulated.emulated = true;
  emulated.emulation = "qemu-user";
  std::string emulated_key = DeviceKeyOfRunner(emulated);
  EXPECT_NE(emulated_key, key);
  EXPECT_EQ(emulated_key.substr(emulated_key.size() - 9), "-emulated") << emulated_key;
  EXPECT_EQ(emulated_key.find("pixel"), std::string::npos)
      << "an emulator is named for no device: " << emulated_key;
}

TEST(DeviceRunnerKeyTest, AnEmulatorsRecordsAreNeverFiledUnderARealKey) {
  RunnerFacts phone = Phone();
  EXPECT_EQ(RecordKeyOfRunner(phone, ""), DeviceKeyOfRunner(phone));
  EXPECT_EQ(RecordKeyOfRunner(phone, "lab-pixel-8"), "lab-pixel-8");
  phone.emulated = true;
  EXPECT_EQ(RecordKeyOfRunner(phone, "lab-pixel-8"), "lab-pixel-8-emulated");
  EXPECT_EQ(RecordKeyOfRunner(phone, "x-emulated"), "x-emulated");
  EXPECT_EQ(RecordKeyOfRunner(phone, ""), DeviceKeyOfRunner(phone));
}

TEST(DeviceRunnerKeyTest, RegistrationCarriesTheRunnersFacts) {
  RunnerFacts phone = Phone();
  EXPECT_EQ(TargetOfRunner(phone), "llvm -mtriple=aarch64-linux-android");
  schemas::RegisterMsg m;
  AddRunnerFacts(phone, m);
  EXPECT_EQ(m.vector_bytes, 16u);
  EXPECT_EQ(m.num_cores, 9u);
  EXPECT_NE(m.hardware.find("Google Pixel 8"), std::string::npos) << m.hardware;
  EXPECT_NE(m.hardware.find("Android 14"), std::string::npos) << m.hardware;
  phone.emulated = true;
  phone.emulation = "qemu-user";
  EXPECT_NE(HardwareOfRunner(phone).find("emulated: qemu-user"), std::string::npos);
}

TEST(DeviceRunnerKeyTest, KernelFlagsFollowTheDevicesFeatures) {
  RunnerFacts phone = Phone();
  auto has = [](const std::vector<std::string>& flags, const std::string& flag) {
    return std::find(flags.begin(), flags.end(), flag) != flags.end();
  };
  runtime::remote_cpu::CrossToolchain gcc{"aarch64-linux-gnu-gcc", {}, "aarch64-linux-gnu"};
  std::vector<std::string> flags = runtime::remote_cpu::KernelFlags(phone, gcc, false);
  EXPECT_TRUE(has(flags, "-march=armv8.2-a+fp16+dotprod"));
  EXPECT_FALSE(has(flags, "-fopenmp"));
  EXPECT_FALSE(has(flags, "-march=native"));
  phone.features = "fp asimd";
  flags = runtime::remote_cpu::KernelFlags(phone, gcc, true);
  EXPECT_TRUE(has(flags, "-march=armv8-a"));
  EXPECT_TRUE(has(flags, "-fopenmp"));
}

TEST(DeviceRunnerKeyTest, TargetsWithAnotherTripleRunOnARemoteCpu) {
  EXPECT_EQ(runtime::remote_cpu::TripleOfTarget("llvm -mtriple=aarch64-linux-gnu -mcpu=x"),
            "aarch64-linux-gnu");
  EXPECT_EQ(runtime::remote_cpu::TripleOfTarget("llvm"), "");
  EXPECT_EQ(runtime::DeviceKindOfTarget("llvm -mtriple=aarch64-linux-gnu"), "remote-cpu");
  EXPECT_EQ(runtime::DeviceKindOfTarget("llvm -mtriple=" + runtime::remote_cpu::HostTriple()),
            "cpu");
  EXPECT_EQ(runtime::DeviceKindOfTarget("llvm"), "cpu");
}

TEST(DeviceRunnerKeyTest, TheCrossToolchainIsChosenByTriple) {
  unsetenv("KILN_CROSS_CC");
  runtime::remote_cpu::CrossToolchain host =
      runtime::remote_cpu::FindCrossToolchain(runtime::remote_cpu::HostTriple());
  EXPECT_EQ(host.compiler, "gcc");
  setenv("KILN_CROSS_CC", "clang --target=aarch64-linux-android29 --sysroot=/ndk", 1);
  runtime::remote_cpu::CrossToolchain given =
      runtime::remote_cpu::FindCrossToolchain("aarch64-linux-android29");
  unsetenv("KILN_CROSS_CC");
  EXPECT_EQ(given.compiler, "clang");
  EXPECT_EQ(given.flags,
            (std::vector<std::string>{"--target=aarch64-linux-android29", "--sysroot=/ndk"}));
  unsetenv("ANDROID_NDK_ROOT");
  unsetenv("ANDROID_NDK");
  unsetenv("ANDROID_NDK_HOME");
  runtime::remote_cpu::CrossToolchain android =
      runtime::remote_cpu::FindCrossToolchain("aarch64-linux-android");
  EXPECT_EQ(android.compiler, "clang");
  ASSERT_GE(android.flags.size(), 2u);
  EXPECT_EQ(android.flags[0], "--target=aarch64-linux-android29");
  EXPECT_EQ(android.flags[1], "-fuse-ld=lld");
  EXPECT_THROW(runtime::remote_cpu::FindCrossToolchain("mips-unknown-elf"), Error);
}

// Without the NDK, clang and lld build a generated kernel into an Android aarch64 shared object.
TEST(DeviceRunnerKeyTest, ClangAndLldBuildAnAndroidKernelWithoutTheNdk) {
  unsetenv("KILN_CROSS_CC");
  unsetenv("ANDROID_NDK_ROOT");
  unsetenv("ANDROID_NDK");
  unsetenv("ANDROID_NDK_HOME");
  runtime::remote_cpu::CrossToolchain t =
      runtime::remote_cpu::FindCrossToolchain("aarch64-linux-android29");
  if (runtime::remote_cpu::FindProgram("clang").empty() ||
      runtime::remote_cpu::FindProgram("ld.lld").empty() ||
      std::find(t.flags.begin(), t.flags.end(), "-nostdlib") == t.flags.end()) {
    GTEST_SKIP() << "skipped: no clang and lld, or no aarch64 C headers (/usr/aarch64-linux-gnu)";
  }
  ir::PrimFunc f = ir::zoo::ZooLookup("softmax").build();
  std::unique_ptr<codegen::CodegenTarget> c = codegen::CreateTarget("c");
  runtime::GeneratedKernel kernel = runtime::GenerateKernel(f, *c, runtime::KernelSymbol(f));
  runtime::remote_cpu::RunnerFacts phone = Phone();
  kiln::runtime::testing::ScratchDir dir;
  runtime::BuildOptions b;
  b.compiler = t.compiler;
  b.flags = t.flags;
  for (const std::string& flag : runtime::remote_cpu::KernelFlags(phone, t, false)) {
    b.flags.push_back(flag);
  }
  b.cache_dir = dir.path().string();
  runtime::BuildResult built = runtime::BuildCSource(kernel.source.code, b);
  ASSERT_TRUE(built.ok) << built.error;
  std::ifstream in(built.library_path, std::ios::binary);
  std::string elf((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_GT(elf.size(), 64u);
  EXPECT_EQ(elf.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_EQ(static_cast<uint8_t>(elf[18]), 183) << "EM_AARCH64";
  EXPECT_EQ(static_cast<uint8_t>(elf[16]), 3) << "a shared object";
}

}  // namespace
}  // namespace kiln::worker
