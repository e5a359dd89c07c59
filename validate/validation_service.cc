// The validation's coordinator endpoint: a server thread over a dispatcher of one-call batches.
#include "validate/validation_service.h"

#include <chrono>

#include "support/error.h"
#include "support/log_format.h"

namespace kiln::validate {
namespace {

coordinator::DispatcherOptions DispatcherFor(const ValidationServiceOptions& o) {
  coordinator::DispatcherOptions d;
  d.settings.target = o.target;
  // Each call timed as the in-process device times it (validate/target_device.cc).
  d.settings.timing.number = 1;
  d.settings.timing.repeat = 3;
  d.settings.timing.min_repeat_ms = 1;
  d.settings.run_time_limit_s = o.run_time_limit_s;
  d.device = o.device_key;
  d.max_batch = 1;  // a call's tensors make a message of their own
  return d;
}

}  // namespace

ValidationService::ValidationService(ValidationServiceOptions options)
    : options_(std::move(options)), context_(1), dispatcher_(DispatcherFor(options_)) {
  coordinator::ServerOptions server;
  server.listen = options_.listen;
  server_ = std::make_unique<coordinator::Server>(context_, server, dispatcher_, nullptr);
  server_thread_ = std::thread([this] {
    SetThreadLogComponent("coordinator");
    server_->Run(stop_);
  });
}

ValidationService::~ValidationService() {
  stop_ = true;
  if (server_thread_.joinable()) server_thread_.join();
  server_.reset();
}

std::string ValidationService::endpoint() const { return server_->endpoint(); }

std::string ValidationService::WaitForWorker(double seconds) {
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() <
         seconds) {
    std::vector<schemas::RegisterMsg> workers =
        dispatcher_.MatchingWorkers(options_.target, options_.device_key);
    if (!workers.empty()) {
      return workers.front().worker_id + " (" + workers.front().device_key + ", " +
             workers.front().hardware + ")";
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  throw Error(ErrorKind::kUnsupported,
              "no worker of target " + options_.target + " joined " + endpoint() + " within " +
                  std::to_string(static_cast<int>(seconds)) +
                  " s (start one: kiln-worker --coordinator " + endpoint() + " --device ...)");
}

}  // namespace kiln::validate
