// The embedded coordinator and worker over inproc.
#include "cli/commands/embedded_service.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "runtime/measurer.h"
#include "support/log_format.h"
#include "worker/device_probe.h"
#include "worker/registration.h"

namespace kiln::cli {

std::string EmbeddedDatabasePath(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("KILN_DB"); env != nullptr && *env != '\0') return env;
  return database::DefaultDatabasePath();
}

EmbeddedService::EmbeddedService(EmbeddedOptions options)
    : options_(std::move(options)),
      context_(1),
      db_(options_.db_path),
      dispatcher_(coordinator::DispatcherOptions{}) {
  jobs_ = std::make_unique<coordinator::JobService>(db_, dispatcher_, options_.jobs);
  // One name per process is enough: inproc addresses live in their context.
  coordinator::ServerOptions server_options;
  server_options.listen = "inproc://kiln-embedded";
  server_ =
      std::make_unique<coordinator::Server>(context_, server_options, dispatcher_, jobs_.get());
  address_ = server_->endpoint();
  int build_jobs = options_.build_jobs > 0
                       ? options_.build_jobs
                       : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // The device that runs the target's code: this machine's CPU, or its GPU of that kind.
  std::string device = runtime::DeviceKindOfTarget(options_.target);
  worker::ProbedDevice probed = worker::ProbeDevice(device);
  runner_ = std::make_unique<worker::BatchRunner>(
      worker::BatchRunnerOptions{.device_kind = device,
                                 .worker_id = "embedded",
                                 .cache_dir = options_.cache_dir,
                                 .build_jobs = build_jobs});
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  worker::WorkerClientOptions worker_options;
  worker_options.coordinator = address_;
  worker_options.info = worker::MakeRegistration({.worker_id = "embedded",
                                                  .device = device,
                                                  .device_key = device == "cpu" ? "" : probed.key,
                                                  .target = options_.target,
                                                  .build_jobs = build_jobs,
                                                  .hostname = host});
  worker::AddDeviceFacts(probed, worker_options.info);
  worker_ = std::make_unique<worker::WorkerClient>(context_, worker_options, *runner_);
  server_thread_ = std::thread([this] {
    SetThreadLogComponent("coordinator");
    server_->Run(stop_);
  });
  worker_thread_ = std::thread([this] {
    SetThreadLogComponent("worker");
    worker_->Run(stop_);
  });
}

EmbeddedService::~EmbeddedService() {
  jobs_->Stop();
  stop_ = true;
  if (worker_thread_.joinable()) worker_thread_.join();
  if (server_thread_.joinable()) server_thread_.join();
  // Sockets close before the context they belong to.
  worker_.reset();
  server_.reset();
}

}  // namespace kiln::cli
