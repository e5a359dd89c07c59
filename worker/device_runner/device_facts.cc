// The device's facts: /proc/cpuinfo, getauxval, uname, the device tree or Android's system
// properties, and the detection of a user-mode emulator.
#include "worker/device_runner/device_facts.h"

#include <sys/utsname.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/auxv.h>
#endif
#if defined(__ANDROID__)
#include <sys/system_properties.h>
#endif

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <utility>
#include <vector>

namespace kiln::worker::device_runner {
namespace {

std::string ReadText(const char* path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Trim(std::string_view s) {
  size_t begin = s.find_first_not_of(" \t\r\n");
  if (begin == std::string_view::npos) return {};
  size_t end = s.find_last_not_of(std::string_view(" \t\r\n\0", 5));
  return std::string(s.substr(begin, end - begin + 1));
}

// The value of each "name : value" line of `text` named `name`, in order.
std::vector<std::string> Values(std::string_view text, std::string_view name) {
  std::vector<std::string> values;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    if (Trim(line.substr(0, colon)) == name) values.push_back(Trim(line.substr(colon + 1)));
  }
  return values;
}

#if defined(__ANDROID__)
std::string Property(const char* name) {
  char value[PROP_VALUE_MAX] = {};
  __system_property_get(name, value);
  return value;
}
#endif

}  // namespace

std::string_view RunnerTriple() {
#if defined(__aarch64__) && defined(__ANDROID__)
  return "aarch64-linux-android";
#elif defined(__aarch64__)
  return "aarch64-linux-gnu";
#elif defined(__x86_64__) && defined(__ANDROID__)
  return "x86_64-linux-android";
#elif defined(__x86_64__)
  return "x86_64-linux-gnu";
#else
#error "kiln-device-runner: add this architecture's triple and ELF machine"
#endif
}

uint16_t RunnerElfMachine() {
#if defined(__aarch64__)
  return 183;  // EM_AARCH64
#else
  return 62;  // EM_X86_64
#endif
}

std::string ArmPartName(unsigned implementer, unsigned part) {
  static const std::map<std::pair<unsigned, unsigned>, const char*> kParts = {
      {{0x41, 0xd02}, "cortex-a34"},
      {{0x41, 0xd03}, "cortex-a53"},
      {{0x41, 0xd04}, "cortex-a35"},
      {{0x41, 0xd05}, "cortex-a55"},
      {{0x41, 0xd06}, "cortex-a65"},
      {{0x41, 0xd07}, "cortex-a57"},
      {{0x41, 0xd08}, "cortex-a72"},
      {{0x41, 0xd09}, "cortex-a73"},
      {{0x41, 0xd0a}, "cortex-a75"},
      {{0x41, 0xd0b}, "cortex-a76"},
      {{0x41, 0xd0c}, "neoverse-n1"},
      {{0x41, 0xd0d}, "cortex-a77"},
      {{0x41, 0xd0e}, "cortex-a76ae"},
      {{0x41, 0xd40}, "neoverse-v1"},
      {{0x41, 0xd41}, "cortex-a78"},
      {{0x41, 0xd42}, "cortex-a78ae"},
      {{0x41, 0xd44}, "cortex-x1"},
      {{0x41, 0xd46}, "cortex-a510"},
      {{0x41, 0xd47}, "cortex-a710"},
      {{0x41, 0xd48}, "cortex-x2"},
      {{0x41, 0xd49}, "neoverse-n2"},
      {{0x41, 0xd4a}, "neoverse-e1"},
      {{0x41, 0xd4b}, "cortex-a78c"},
      {{0x41, 0xd4d}, "cortex-a715"},
      {{0x41, 0xd4e}, "cortex-x3"},
      {{0x41, 0xd4f}, "neoverse-v2"},
      {{0x41, 0xd80}, "cortex-a520"},
      {{0x41, 0xd81}, "cortex-a720"},
      {{0x41, 0xd82}, "cortex-x4"},
      {{0x41, 0xd85}, "cortex-x925"},
      {{0x41, 0xd87}, "cortex-a725"},
      {{0x51, 0x800}, "kryo-2xx-gold"},
      {{0x51, 0x801}, "kryo-2xx-silver"},
      {{0x51, 0x802}, "kryo-3xx-gold"},
      {{0x51, 0x803}, "kryo-3xx-silver"},
      {{0x51, 0x804}, "kryo-4xx-gold"},
      {{0x51, 0x805}, "kryo-4xx-silver"},
      {{0x51, 0x001}, "oryon"},
      {{0x53, 0x001}, "exynos-m1"},
      {{0x53, 0x002}, "exynos-m3"},
      {{0x53, 0x003}, "exynos-m4"},
      {{0x53, 0x004}, "exynos-m5"},
      // qemu's "max" CPU (user-mode emulation's default): no device has it.
      {{0x00, 0x051}, "qemu-max"},
  };
  auto it = kParts.find({implementer, part});
  return it == kParts.end() ? std::string() : std::string(it->second);
}

std::string ArmCoresFromCpuinfo(std::string_view cpuinfo) {
  std::vector<std::string> implementers = Values(cpuinfo, "CPU implementer");
  std::vector<std::string> parts = Values(cpuinfo, "CPU part");
  std::vector<std::pair<std::string, int>> cores;  // name, count; in order of appearance
  for (size_t i = 0; i < parts.size(); ++i) {
    unsigned implementer =
        i < implementers.size() ? std::strtoul(implementers[i].c_str(), nullptr, 0) : 0;
    unsigned part = std::strtoul(parts[i].c_str(), nullptr, 0);
    std::string name = ArmPartName(implementer, part);
    if (name.empty()) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "0x%02x-0x%03x", implementer, part);
      name = buf;
    }
    bool counted = false;
    for (auto& [n, count] : cores) {
      if (n == name) {
        ++count;
        counted = true;
      }
    }
    if (!counted) cores.push_back({name, 1});
  }
  std::string out;
  for (const auto& [name, count] : cores) {
    if (!out.empty()) out += '+';
    out += name;
    out += 'x';
    out += std::to_string(count);
  }
  return out;
}

std::string Aarch64HwcapNames(uint64_t hwcap, uint64_t hwcap2) {
  // Linux's arch/arm64/include/uapi/asm/hwcap.h, in bit order.
  static const char* const kHwcap[] = {
      "fp",      "asimd", "evtstrm", "aes",   "pmull",    "sha1",   "sha2", "crc32",
      "atomics", "fphp",  "asimdhp", "cpuid", "asimdrdm", "jscvt",  "fcma", "lrcpc",
      "dcpop",   "sha3",  "sm3",     "sm4",   "asimddp",  "sha512", "sve",  "asimdfhm",
      "dit",     "uscat", "ilrcpc",  "flagm", "ssbs",     "sb",     "paca", "pacg"};
  static const char* const kHwcap2[] = {
      "dcpodp", "sve2",    "sveaes",   "svepmull", "svebitperm", "svesha3", "svesm4", "flagm2",
      "frint",  "svei8mm", "svef32mm", "svef64mm", "svebf16",    "i8mm",    "bf16",   "dgh",
      "rng",    "bti",     "mte",      "ecv",      "afp",        "rpres",   "mte3",   "sme"};
  std::string out;
  auto add = [&](uint64_t bits, const char* const* names, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      if ((bits & (uint64_t{1} << i)) == 0) continue;
      if (!out.empty()) out += ' ';
      out += names[i];
    }
  };
  add(hwcap, kHwcap, sizeof kHwcap / sizeof *kHwcap);
  add(hwcap2, kHwcap2, sizeof kHwcap2 / sizeof *kHwcap2);
  return out;
}

std::string EmulationFromCpuinfo(std::string_view cpuinfo, std::string_view runner_arch) {
  bool x86 = !Values(cpuinfo, "vendor_id").empty() && !Values(cpuinfo, "flags").empty();
  bool arm = !Values(cpuinfo, "CPU implementer").empty() || !Values(cpuinfo, "Features").empty();
  if (runner_arch == "aarch64" && x86 && !arm) {
    std::vector<std::string> model = Values(cpuinfo, "model name");
    return "user-mode emulation (qemu-user): this aarch64 process reads the /proc/cpuinfo of an "
           "x86 host (" +
           (model.empty() ? std::string("unknown model") : model.front()) + ")";
  }
  if (runner_arch == "x86_64" && arm && !x86) {
    return "user-mode emulation: this x86_64 process reads the /proc/cpuinfo of an Arm host";
  }
  return {};
}

remote_cpu::RunnerFacts DescribeThisDevice(bool force_emulated) {
  remote_cpu::RunnerFacts f;
  f.triple = std::string(RunnerTriple());
  std::string arch = f.triple.substr(0, f.triple.find('-'));
  std::string cpuinfo = ReadText("/proc/cpuinfo");
  utsname u{};
  if (uname(&u) == 0) f.kernel = u.release;
  f.cores = static_cast<int>(std::max(1L, sysconf(_SC_NPROCESSORS_ONLN)));
  f.page_size = std::max(1L, sysconf(_SC_PAGESIZE));

  f.emulation = EmulationFromCpuinfo(cpuinfo, arch);
  f.emulated = !f.emulation.empty();
  if (force_emulated && !f.emulated) {
    f.emulated = true;
    f.emulation = "marked emulated by --emulated";
  }

#if defined(__ANDROID__)
  std::string release = Property("ro.build.version.release");
  std::string sdk = Property("ro.build.version.sdk");
  f.os = "Android " + release + (sdk.empty() ? "" : " (API " + sdk + ")");
  std::string maker = Property("ro.product.manufacturer");
  f.model = Trim(maker + " " + Property("ro.product.model"));
#else
  f.os = "Linux";
  std::string os_release = ReadText("/etc/os-release");
  size_t at = os_release.find("PRETTY_NAME=");
  if (at != std::string::npos) {
    size_t end = os_release.find('\n', at);
    std::string name = os_release.substr(at + 12, end == std::string::npos ? end : end - at - 12);
    if (name.size() >= 2 && name.front() == '"') name = name.substr(1, name.size() - 2);
    f.os += " (" + name + ")";
  }
  f.model = Trim(ReadText("/proc/device-tree/model"));
#endif
  if (f.emulated) {
    // The host's model is not the emulated device's.
    f.model = "qemu-user";
  }

#if defined(__aarch64__)
  f.cpu = ArmCoresFromCpuinfo(cpuinfo);
  unsigned long hwcap = getauxval(AT_HWCAP);
#if defined(AT_HWCAP2)
  unsigned long hwcap2 = getauxval(AT_HWCAP2);
#else
  unsigned long hwcap2 = 0;
#endif
  f.features = Aarch64HwcapNames(hwcap, hwcap2);
  constexpr unsigned long kHwcapCpuid = 1ul << 11;
  if (f.cpu.empty() && (hwcap & kHwcapCpuid)) {
    // No per-core names in /proc/cpuinfo (emulated, or a locked-down system): the main ID
    // register of this core, which the kernel (or the emulator) lets user space read.
    uint64_t midr = 0;
    asm volatile("mrs %0, midr_el1" : "=r"(midr));
    unsigned implementer = (midr >> 24) & 0xff;
    unsigned part = (midr >> 4) & 0xfff;
    std::string name = ArmPartName(implementer, part);
    char buf[64];
    std::snprintf(buf, sizeof buf, "midr-0x%08llx", static_cast<unsigned long long>(midr));
    f.cpu = (name.empty() ? std::string(buf) : name) + "x" + std::to_string(f.cores);
  }
#else
  std::vector<std::string> names = Values(cpuinfo, "model name");
  f.cpu = names.empty() ? std::string("unknown") : names.front();
  std::vector<std::string> flags = Values(cpuinfo, "flags");
  if (!flags.empty()) {
    for (const char* feature : {"sse4_2", "avx", "avx2", "fma", "avx512f", "amx_tile"}) {
      std::string padded = " " + flags.front() + " ";
      if (padded.find(" " + std::string(feature) + " ") != std::string::npos) {
        if (!f.features.empty()) f.features += ' ';
        f.features += feature;
      }
    }
  }
#endif
  if (f.cpu.empty()) f.cpu = "unknown";
  return f;
}

}  // namespace kiln::worker::device_runner
