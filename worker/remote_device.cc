// The registration of a worker that fronts a device runner, from the runner's facts.
#include "worker/remote_device.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>

#include "runtime/remote_cpu/runner_connection.h"
#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::worker {
namespace {

using runtime::remote_cpu::RunnerFacts;

// Lower-case letters, digits and single dashes, at most `max` characters.
std::string Slug(const std::string& text, size_t max) {
  std::string out;
  for (char c : text) {
    if (std::isalnum(static_cast<unsigned char>(c))) {
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!out.empty() && out.back() != '-') {
      out += '-';
    }
  }
  if (out.size() > max) out.resize(max);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out;
}

std::string WithoutApiLevel(std::string triple) {
  while (!triple.empty() && std::isdigit(static_cast<unsigned char>(triple.back()))) {
    triple.pop_back();
  }
  return triple;
}

}  // namespace

std::string DeviceKeyOfRunner(const RunnerFacts& f) {
  std::string triple = WithoutApiLevel(f.triple);
  std::string arch = triple.substr(0, triple.find('-'));
  std::string system = triple.find("android") != std::string::npos ? "android" : "linux";
  StableHasher h;
  h.String("kiln-device-runner-key-v1");
  h.String(triple);
  h.String(f.model);
  h.String(f.cpu);
  h.String(f.features);
  h.Int(f.cores);
  h.Int(f.emulated ? 1 : 0);
  char digest[9];
  std::snprintf(digest, sizeof digest, "%08llx",
                static_cast<unsigned long long>(h.value() & 0xffffffffULL));
  std::string key = arch + "-" + system;
  if (!f.emulated) {
    std::string model = Slug(f.model, 24);
    if (!model.empty()) key += "-" + model;
  }
  std::string cpu = Slug(f.cpu, 40);
  if (!cpu.empty()) key += "-" + cpu;
  key += "-" + std::string(digest);
  if (f.emulated) key += "-emulated";
  return key;
}

std::string RecordKeyOfRunner(const RunnerFacts& facts, const std::string& requested) {
  std::string key = requested.empty() ? DeviceKeyOfRunner(facts) : requested;
  const std::string suffix = "-emulated";
  bool marked = key.size() >= suffix.size() &&
                key.compare(key.size() - suffix.size(), suffix.size(), suffix) == 0;
  if (facts.emulated && !marked) key += suffix;
  return key;
}

std::string HardwareOfRunner(const RunnerFacts& f) {
  std::string text = f.triple + ", " + f.os;
  if (!f.kernel.empty()) text += ", kernel " + f.kernel;
  if (!f.model.empty()) text += ", " + f.model;
  text += ", " + f.cpu + ", " + std::to_string(f.cores) + " cores";
  if (!f.features.empty()) text += ", features " + f.features;
  if (f.emulated) text += "; emulated: " + f.emulation;
  return text;
}

std::string TargetOfRunner(const RunnerFacts& f) { return "llvm -mtriple=" + f.triple; }

int VectorBytesOfRunner(const RunnerFacts& f) {
  // The C emitter's vectors are fixed-width; on aarch64 they are NEON's 16 bytes whether or
  // not the core has SVE.
  if (f.triple.rfind("x86_64", 0) == 0) {
    std::string features = " " + f.features + " ";
    if (features.find(" avx512f ") != std::string::npos) return 64;
    if (features.find(" avx ") != std::string::npos) return 32;
  }
  return 16;
}

ProbedDevice UseDeviceRunner(const runtime::remote_cpu::RemoteRunnerOptions& runner,
                             RunnerFacts* facts_out) {
  std::unique_ptr<runtime::remote_cpu::RunnerConnection> connection =
      runtime::remote_cpu::RunnerConnection::Open(runner.address, runner.triple,
                                                  runner.connect_timeout_s);
  RunnerFacts facts = connection->facts();
  connection.reset();
  runtime::remote_cpu::RegisterRemoteCpuMeasurer(runner);
  ProbedDevice device{runtime::remote_cpu::kRemoteCpuDeviceKind, DeviceKeyOfRunner(facts),
                      HardwareOfRunner(facts), TargetOfRunner(facts)};
  RegisterDeviceProbe(runtime::remote_cpu::kRemoteCpuDeviceKind, [device] { return device; });
  if (facts_out) *facts_out = facts;
  return device;
}

ProbedDevice ProbeDeviceRunnerFromEnvironment() {
  const char* address = std::getenv(runtime::remote_cpu::kDeviceRunnerEnv);
  KILN_CHECK(address != nullptr && *address != '\0', ErrorKind::kUnsupported,
             "no remote-cpu device here: start kiln-device-runner on the device and give "
             "kiln-worker --device-runner HOST:PORT, or set " +
                 std::string(runtime::remote_cpu::kDeviceRunnerEnv) + "=HOST:PORT");
  return UseDeviceRunner({.address = address});
}

void AddRunnerFacts(const RunnerFacts& facts, schemas::RegisterMsg& message) {
  message.hardware = HardwareOfRunner(facts);
  message.vector_bytes = static_cast<uint32_t>(VectorBytesOfRunner(facts));
  message.num_cores = static_cast<uint32_t>(std::max(1, facts.cores));
}

}  // namespace kiln::worker
