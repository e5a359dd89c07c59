// The device key a CPU worker registers with: records are keyed by it, so two machines share
// records only when their CPUs would run a kernel alike. It is derived from /proc/cpuinfo
// (vendor, family, model and the SIMD flags that change which code is fast), never hard-coded:
// "cpu-zen4", "cpu-zen3", "cpu-xeon-amx", "cpu-xeon-avx512", "cpu-intel-avx2", "cpu-arm64-sve".
#pragma once

#include <string>
#include <string_view>

namespace kiln::worker {

// The key of the first processor described in `cpuinfo` (the text of /proc/cpuinfo); an
// unrecognized CPU gets a generic key of its architecture and widest SIMD ("cpu-x86-64-avx2"),
// never an error.
std::string DeviceKeyFromCpuinfo(std::string_view cpuinfo);

// "model name, N logical cores": what `tune workers` shows.
std::string HardwareSummaryFromCpuinfo(std::string_view cpuinfo);

// The two above on this machine's /proc/cpuinfo ("cpu-unknown" where it cannot be read).
std::string DetectCpuDeviceKey();
std::string DetectCpuHardware();

}  // namespace kiln::worker
