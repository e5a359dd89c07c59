// The host CPU's vector width from /proc/cpuinfo.
#include "runtime/host_cpu.h"

#include <fstream>
#include <sstream>
#include <string>

namespace kiln::runtime {

int VectorBytesFromCpuinfo(std::string_view cpuinfo) {
  // Only the first processor block: every core of a machine runs the same kernels.
  size_t pos = 0;
  while (pos < cpuinfo.size()) {
    size_t end = cpuinfo.find('\n', pos);
    if (end == std::string_view::npos) end = cpuinfo.size();
    std::string_view line = cpuinfo.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) break;  // end of the first processor block
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words{std::string(line.substr(line.find(':') + 1))};
    bool avx = false, avx512 = false;
    for (std::string word; words >> word;) {
      if (word == "avx512f") avx512 = true;
      if (word == "avx" || word == "avx2") avx = true;
    }
    return avx512 ? 64 : avx ? 32 : 16;
  }
  return 16;
}

int HostVectorBytes() {
  static const int bytes = [] {
    std::ifstream in("/proc/cpuinfo");
    std::stringstream text;
    text << in.rdbuf();
    return VectorBytesFromCpuinfo(text.str());
  }();
  return bytes;
}

}  // namespace kiln::runtime
