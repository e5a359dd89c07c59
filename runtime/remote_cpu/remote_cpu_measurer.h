// RemoteCpuMeasurer: the Measurer of a CPU this host does not run on -- a phone or board
// served by kiln-device-runner (runner_protocol.h), device kind "remote-cpu". The host does
// everything but the run: it generates the kernel's C with the CPU emitter, cross-compiles it
// for the runner's triple (cross_toolchain.h) through the content-addressed build cache, sends
// the shared object with the reference inputs, and compares the outputs the runner returns
// with the workload's reference (runtime/reference_store.h) exactly as the CPU measurer does:
// once per (workload, build), a wrong kernel is an error result. The runner times by the one
// timing definition (runtime/timing.h); the early cutoff applies from the workload's best time
// (a first run the runner abandons is a kTimeout result whose time is a lower bound), and a
// correct kernel timed while the device was busy is timed again (MeasureOptions::max_retimes).
//
// A runner that says it is emulated (qemu-user, or --emulated) measures correctness only:
// every result's message says its times are the emulator's, and the device key a worker
// registers for it says "emulated" (worker/remote_device.h), so they are never stored as
// records of a real device.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>

#include "runtime/cpu_builder.h"
#include "runtime/measurer.h"
#include "runtime/reference_store.h"
#include "runtime/remote_cpu/cross_toolchain.h"
#include "runtime/remote_cpu/runner_connection.h"

namespace kiln::runtime::remote_cpu {

inline constexpr const char* kRemoteCpuDeviceKind = "remote-cpu";
// The environment variable that names the runner when no worker flag did.
inline constexpr const char* kDeviceRunnerEnv = "KILN_DEVICE_RUNNER";

struct RemoteRunnerOptions {
  std::string address;  // RunnerConnection's: "HOST:PORT", "exec:COMMAND ..."
  // The triple kernels are built for when the target has no -mtriple=; empty: the runner's.
  std::string triple = {};
  double connect_timeout_s = 30;
  // Added to the run time limit for moving the library and buffers to and from the device.
  double transfer_allowance_s = 60;
};

// The note every result of an emulated runner carries.
std::string EmulatedNote(const RunnerFacts& facts);

class RemoteCpuMeasurer : public Measurer {
 public:
  // Connects to the runner (kiln::Error(kIO) naming the address when it cannot, kUnsupported
  // when it refuses the triple) and finds the cross toolchain of its triple.
  RemoteCpuMeasurer(MeasureOptions options, RemoteRunnerOptions runner);

  std::string DeviceKind() const override { return kRemoteCpuDeviceKind; }
  MeasureResult Measure(const MeasureCandidate& candidate,
                        MeasureDetails* details = nullptr) override;
  // Builds up to options.build_jobs candidates at once, then runs them on the device one by
  // one.
  std::vector<MeasureResult> MeasureBatch(const std::vector<MeasureCandidate>& candidates) override;

  const RunnerFacts& facts() const { return facts_; }
  const CrossToolchain& toolchain() const { return toolchain_; }

 private:
  struct Prepared {
    MeasureResult result;
    MeasureDetails details;
    bool built = false;
  };
  Prepared Prepare(const MeasureCandidate& candidate);
  MeasureResult Run(const MeasureCandidate& candidate, Prepared& prepared);
  // One run on the device; reconnects once when the connection broke.
  RunResult RunOnDevice(const RunRequest& request);

  MeasureOptions options_;
  RemoteRunnerOptions runner_;
  std::unique_ptr<RunnerConnection> connection_;
  RunnerFacts facts_;
  CrossToolchain toolchain_;
  ReferenceStore references_;
  uint64_t next_run_id_ = 1;
  std::mutex mutex_;
  std::set<std::pair<uint64_t, uint64_t>> verified_;  // (reference key, build key)
  std::map<uint64_t, double> best_seconds_;           // by reference key
};

// Makes "remote-cpu" measurers talk to the runner `runner` describes (replacing the default,
// which reads KILN_DEVICE_RUNNER).
void RegisterRemoteCpuMeasurer(const RemoteRunnerOptions& runner);

// The default factory of "remote-cpu": the runner named by KILN_DEVICE_RUNNER
// (kiln::Error(kUnsupported) saying so when it is unset).
std::unique_ptr<Measurer> CreateRemoteCpuMeasurerFromEnvironment(const MeasureOptions& options);

}  // namespace kiln::runtime::remote_cpu
