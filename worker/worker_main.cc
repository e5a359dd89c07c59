// kiln-worker: connects to a coordinator, registers this machine's device and measures the
// batches it is sent until SIGINT or SIGTERM. All the logic is in the library (BatchRunner,
// WorkerClient); this file only reads the command line.
//   kiln-worker --coordinator tcp://HOST:7070 [--device cpu|cuda|opencl|vulkan|webgpu|metal|fake]
//               [--id NAME] [--build-jobs N]
//   kiln-worker --coordinator tcp://HOST:7070 --device-runner HOST:PORT   (a phone or board:
//               this host builds, kiln-device-runner there runs; docs/phone.md)
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <atomic>
#include <csignal>
#include <iostream>
#include <thread>

#include "schemas/curve_keys.h"
#include "support/error.h"
#include "support/log_format.h"
#include "support/logging.h"
#include "worker/batch_runner.h"
#include "worker/device_key.h"
#include "worker/device_probe.h"
#include "worker/fake_measurer.h"
#include "worker/registration.h"
#include "worker/remote_device.h"
#include "worker/worker_client.h"

namespace {
std::atomic<bool> g_stop{false};
void OnSignal(int) { g_stop = true; }
}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"kiln-worker: builds and times candidates for a Kiln coordinator"};
  std::string coordinator;
  std::string device = "cpu";
  std::string device_key;
  std::string id;
  std::string target = "llvm";
  std::string cache_dir;
  std::string log_level;
  std::string keys;
  int build_jobs = 0;
  app.add_option("--coordinator", coordinator, "the coordinator's address (tcp://HOST:7070)")
      ->required();
  app.add_option("--device", device,
                 "the device kind measured on: cpu, cuda, opencl, vulkan, webgpu, metal (its CPU "
                 "shim without a Mac), or fake (a fixed sleep)");
  std::string device_runner;
  app.add_option("--device-runner", device_runner,
                 "front a kiln-device-runner (HOST:PORT, or exec:COMMAND speaking on its standard "
                 "input and output): build here, run there; the device kind is remote-cpu");
  app.add_option("--device-key", device_key,
                 "the key records are filed under (default: detected, e.g. cpu-zen4)");
  app.add_option("--id", id, "this worker's name (default HOSTNAME-PID)");
  app.add_option("--target", target,
                 "the codegen target it builds for (default: the device's; llvm for cpu)");
  app.add_option("--build-jobs", build_jobs, "candidates built at once (default: all cores)");
  app.add_option("--cache-dir", cache_dir, "builds and references (default ~/.cache/kiln)");
  app.add_option("--keys", keys, "CurveZMQ keys: DIR/worker.key and DIR/coordinator.pub");
  app.add_option("--log-level", log_level, "trace, debug, info, warn, error or off");
  std::string fault;
  std::string fault_task = "*";
  app.add_option("--fault", fault,
                 "for testing validation only: break the results of matching tasks: wrong, nan, "
                 "drift, crash or hang");
  app.add_option("--fault-task", fault_task, "the tasks --fault breaks (a glob, default *)");
  std::string log_format = "text";
  app.add_option("--log-format", log_format, "text, or json: one JSON object per log line")
      ->check(CLI::IsMember({"text", "json"}));
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  kiln::SetLogLevel(log_level.empty() ? "info" : log_level);
  kiln::SetLogComponent("worker");
  kiln::SetLogFormat(log_format);
  std::signal(SIGINT, OnSignal);
  std::signal(SIGTERM, OnSignal);
  try {
    char host[256] = {};
    gethostname(host, sizeof(host) - 1);
    if (id.empty()) id = std::string(host) + "-" + std::to_string(getpid());
    // A device runner is reached now, so that its facts make the device key and the target.
    std::optional<kiln::runtime::remote_cpu::RunnerFacts> runner_facts;
    if (!device_runner.empty()) {
      runner_facts.emplace();
      kiln::worker::UseDeviceRunner({.address = device_runner}, &*runner_facts);
      device = kiln::runtime::remote_cpu::kRemoteCpuDeviceKind;
    }
    // A machine without the device says so now, not at the first batch.
    kiln::worker::ProbedDevice probed = kiln::worker::ProbeDevice(device);
    if (device_key.empty()) device_key = probed.key;
    // An emulator's times are never filed under a real device's key.
    if (runner_facts) device_key = kiln::worker::RecordKeyOfRunner(*runner_facts, device_key);
    if (app.count("--target") == 0) target = probed.target;
    if (build_jobs <= 0)
      build_jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    std::optional<kiln::runtime::FaultSpec> fault_spec;
    if (!fault.empty()) {
      std::optional<kiln::runtime::FaultKind> kind = kiln::runtime::ParseFaultKind(fault);
      KILN_CHECK(kind.has_value(), kiln::ErrorKind::kParse,
                 "--fault " + fault + ": wrong, nan, drift, crash or hang expected");
      fault_spec = kiln::runtime::FaultSpec{*kind, fault_task};
      KILN_LOG_WARN("kiln-worker {}: {}", id, kiln::runtime::DescribeFault(*fault_spec));
    }

    kiln::worker::BatchRunner runner({.device_kind = device,
                                      .worker_id = id,
                                      .cache_dir = cache_dir,
                                      .build_jobs = build_jobs,
                                      .fault = fault_spec});
    kiln::worker::WorkerClientOptions options;
    options.coordinator = coordinator;
    options.info = kiln::worker::MakeRegistration({.worker_id = id,
                                                   .device = device,
                                                   .device_key = device_key,
                                                   .target = target,
                                                   .build_jobs = build_jobs,
                                                   .hostname = host});
    kiln::worker::AddDeviceFacts(probed, options.info);
    if (runner_facts) kiln::worker::AddRunnerFacts(*runner_facts, options.info);
    if (fault_spec) {
      options.info.hardware += " [" + kiln::runtime::DescribeFault(*fault_spec) + "]";
    }
    if (!keys.empty()) {
      kiln::schemas::CurveKeyPair own = kiln::schemas::ReadCurveKeyFile(keys + "/worker.key");
      KILN_CHECK(!own.secret_key.empty(), kiln::ErrorKind::kParse,
                 keys + "/worker.key: no secret key");
      options.curve = {own.public_key, own.secret_key,
                       kiln::schemas::ReadCurveKeyFile(keys + "/coordinator.pub").public_key};
    }
    zmq::context_t context(1);
    kiln::worker::WorkerClient client(context, options, runner);
    KILN_LOG_INFO("kiln-worker {}: device {} ({}), target {}, coordinator {}", id, device_key,
                  options.info.hardware, target, coordinator);
    client.Run(g_stop);
  } catch (const kiln::Error& e) {
    std::cerr << "kiln-worker: " << kiln::ErrorKindName(e.kind()) << ": " << e.what() << "\n";
    return 1;
  } catch (const zmq::error_t& e) {
    std::cerr << "kiln-worker: io: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
