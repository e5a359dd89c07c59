// What the design space needs to know of this machine's CPU: the width of its widest SIMD
// register, read from /proc/cpuinfo's flags (never assumed: sessions run on AMD Zen 4 and on
// Intel Xeon, and a worker may be any x86 or Arm machine).
#pragma once

#include <string_view>

namespace kiln::runtime {

// The widest vector register in bytes the first processor in `cpuinfo` (the text of
// /proc/cpuinfo) offers: 64 with AVX-512, 32 with AVX, 16 otherwise (SSE, NEON).
int VectorBytesFromCpuinfo(std::string_view cpuinfo);

// VectorBytesFromCpuinfo of this machine (16 where /proc/cpuinfo cannot be read).
int HostVectorBytes();

}  // namespace kiln::runtime
