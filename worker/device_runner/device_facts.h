// What kiln-device-runner tells the host about the device it runs on (RunnerFacts,
// runtime/remote_cpu/runner_protocol.h): the triple it was built for, the system, the
// machine's model, its CPU cores by name (big.LITTLE clusters counted apart), the CPU
// features from the auxiliary vector (getauxval's HWCAP bits, which an emulator reports for
// the CPU it emulates), cores and page size, and whether it runs under a user-mode emulator
// (qemu-user: the /proc/cpuinfo it reads is the host's, of another architecture). The parsers
// take text and bits, so that tests feed them samples from real devices.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "runtime/remote_cpu/runner_protocol.h"

namespace kiln::worker::device_runner {

namespace remote_cpu = ::kiln::runtime::remote_cpu;

// The triple this runner was compiled for: "aarch64-linux-gnu", "aarch64-linux-android",
// "x86_64-linux-gnu".
std::string_view RunnerTriple();

// The ELF e_machine of the code this runner loads (EM_AARCH64 = 183, EM_X86_64 = 62).
uint16_t RunnerElfMachine();

// The CPU cores `cpuinfo` (the text of /proc/cpuinfo of an Arm Linux or Android device)
// describes, by name and count in order of first appearance: "cortex-a76x4+cortex-a55x4".
// An unknown part is named by its implementer and part numbers ("0x51-0x804"). Empty when the
// text has no "CPU part" lines (an x86 /proc/cpuinfo; see EmulationFromCpuinfo).
std::string ArmCoresFromCpuinfo(std::string_view cpuinfo);

// The name of Arm CPU part `part` of implementer `implementer` ("cortex-a76"), or empty.
std::string ArmPartName(unsigned implementer, unsigned part);

// The Linux names of the aarch64 HWCAP and HWCAP2 bits set ("fp asimd ... sve").
std::string Aarch64HwcapNames(uint64_t hwcap, uint64_t hwcap2);

// Why a runner compiled for `runner_arch` ("aarch64") that reads `cpuinfo` is emulated, or
// empty when it is not: a /proc/cpuinfo of another architecture (an x86 one: "vendor_id" and
// "flags" lines, no "CPU implementer") is what qemu-user passes through from its host.
std::string EmulationFromCpuinfo(std::string_view cpuinfo, std::string_view runner_arch);

// The facts of this device. `force_emulated` marks it emulated whatever the detection says
// (a full-system emulator cannot be told from a device).
remote_cpu::RunnerFacts DescribeThisDevice(bool force_emulated);

}  // namespace kiln::worker::device_runner
