// CPU device keys from /proc/cpuinfo. Only the first processor block is read: every core of
// one machine is the same kind in the machines Kiln runs on (hybrid cores share their ISA).
#include "worker/device_key.h"

#include <fstream>
#include <set>
#include <sstream>
#include <string>

namespace kiln::worker {
namespace {

struct CpuFacts {
  std::string vendor;
  std::string model_name;
  int family = -1;
  int model = -1;
  std::set<std::string> flags;  // x86 "flags" or arm "Features"
  int processors = 0;
};

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t");
  size_t e = s.find_last_not_of(" \t\r");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

int ToInt(const std::string& s) {
  try {
    return std::stoi(s, nullptr, 0);
  } catch (const std::exception&) {
    return -1;
  }
}

CpuFacts Parse(std::string_view text) {
  CpuFacts facts;
  bool first_block_done = false;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    size_t colon = line.find(':');
    if (colon == std::string::npos) {
      if (Trim(line).empty() && facts.processors > 0) first_block_done = true;
      continue;
    }
    std::string key = Trim(std::string_view(line).substr(0, colon));
    std::string value = Trim(std::string_view(line).substr(colon + 1));
    if (key == "processor") ++facts.processors;
    if (first_block_done) continue;
    if (key == "vendor_id") facts.vendor = value;
    if (key == "model name") facts.model_name = value;
    if (key == "cpu family") facts.family = ToInt(value);
    if (key == "model") facts.model = ToInt(value);
    if (key == "CPU implementer" && facts.vendor.empty()) facts.vendor = "arm";
    if (key == "flags" || key == "Features") {
      std::istringstream words(value);
      std::string word;
      while (words >> word) facts.flags.insert(word);
    }
  }
  return facts;
}

std::string X86Simd(const CpuFacts& f) {
  if (f.flags.count("avx512f")) return "avx512";
  if (f.flags.count("avx2")) return "avx2";
  if (f.flags.count("avx")) return "avx";
  return "sse";
}

}  // namespace

std::string DeviceKeyFromCpuinfo(std::string_view cpuinfo) {
  CpuFacts f = Parse(cpuinfo);
  if (f.vendor == "AuthenticAMD" || f.vendor == "HygonGenuine") {
    // Family 0x17: Zen, Zen+ and Zen 2; 0x19: Zen 3 and Zen 4 (only Zen 4 has AVX-512);
    // 0x1a: Zen 5.
    if (f.family == 0x1a) return "cpu-zen5";
    if (f.family == 0x19) return f.flags.count("avx512f") ? "cpu-zen4" : "cpu-zen3";
    if (f.family == 0x17) return f.model >= 0x30 ? "cpu-zen2" : "cpu-zen";
    return "cpu-amd-" + X86Simd(f);
  }
  if (f.vendor == "GenuineIntel") {
    bool xeon = f.model_name.find("Xeon") != std::string::npos;
    std::string prefix = xeon ? "cpu-xeon-" : "cpu-intel-";
    if (f.flags.count("amx_tile")) return prefix + "amx";
    return prefix + X86Simd(f);
  }
  if (f.vendor == "arm" || f.flags.count("asimd")) {
    return f.flags.count("sve") ? "cpu-arm64-sve" : "cpu-arm64";
  }
  if (!f.flags.empty()) return "cpu-x86-64-" + X86Simd(f);
  return "cpu-unknown";
}

std::string HardwareSummaryFromCpuinfo(std::string_view cpuinfo) {
  CpuFacts f = Parse(cpuinfo);
  std::string name = f.model_name.empty() ? std::string("unknown CPU") : f.model_name;
  return name + ", " + std::to_string(f.processors) + " logical cores";
}

namespace {
std::string ReadCpuinfo() {
  std::ifstream in("/proc/cpuinfo");
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

std::string DetectCpuDeviceKey() { return DeviceKeyFromCpuinfo(ReadCpuinfo()); }
std::string DetectCpuHardware() { return HardwareSummaryFromCpuinfo(ReadCpuinfo()); }

}  // namespace kiln::worker
