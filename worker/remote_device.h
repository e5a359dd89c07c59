// A worker that fronts a kiln-device-runner (`kiln-worker --device-runner HOST:PORT`): the
// host builds, the phone or board runs (runtime/remote_cpu/). What it registers comes from
// the runner's facts, so that a result of one device is never reused for another:
//   device key  <arch>-<linux|android>[-<model>]-<cores by name>-<digest>[-emulated], the
//               digest over the triple, model, cores, CPU features and core count
//               ("aarch64-android-google-pixel-8-cortex-x3x1-cortex-a715x4-...-1f2e3d4c");
//               an emulated runner's key always ends in "-emulated", so its records (times of
//               the emulator) are never filed under a real device
//   target      "llvm -mtriple=<triple>": jobs for that triple only reach such workers
//   facts       the design space's: 16-byte vectors on aarch64 (NEON), the runner's cores;
//               the hardware line names system, model, kernel, cores and features
#pragma once

#include <string>

#include "runtime/remote_cpu/remote_cpu_measurer.h"
#include "schemas/messages.h"
#include "worker/device_probe.h"

namespace kiln::worker {

// The device key of a runner with `facts` (see above).
std::string DeviceKeyOfRunner(const runtime::remote_cpu::RunnerFacts& facts);
// The key records of the runner are filed under when the user asked for `requested`
// (kiln-worker --device-key; empty: DeviceKeyOfRunner): an emulated runner's key always ends
// in "-emulated", whatever was asked.
std::string RecordKeyOfRunner(const runtime::remote_cpu::RunnerFacts& facts,
                              const std::string& requested);
// "aarch64-linux-gnu, Linux (Debian ...), kernel 6.1, qemu-user, cortex-a57x2, 2 cores,
// features fp asimd ...; emulated: ...".
std::string HardwareOfRunner(const runtime::remote_cpu::RunnerFacts& facts);
// "llvm -mtriple=aarch64-linux-gnu".
std::string TargetOfRunner(const runtime::remote_cpu::RunnerFacts& facts);
// The widest vector register the generated code uses on the runner's CPU.
int VectorBytesOfRunner(const runtime::remote_cpu::RunnerFacts& facts);

// Connects to the runner at `runner.address` (kiln::Error(kIO) naming it when it cannot),
// registers the "remote-cpu" measurer and device probe for it, and returns the probed device.
ProbedDevice UseDeviceRunner(const runtime::remote_cpu::RemoteRunnerOptions& runner,
                             runtime::remote_cpu::RunnerFacts* facts = nullptr);

// UseDeviceRunner for the runner KILN_DEVICE_RUNNER names (`tune run --target "llvm
// -mtriple=aarch64-linux-gnu"`); kiln::Error(kUnsupported) saying so when it is unset.
ProbedDevice ProbeDeviceRunnerFromEnvironment();

// Fills what `facts` tell the coordinator: hardware, vector width and cores.
void AddRunnerFacts(const runtime::remote_cpu::RunnerFacts& facts, schemas::RegisterMsg& message);

}  // namespace kiln::worker
