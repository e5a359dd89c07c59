// Validation over Kiln's own service: a coordinator endpoint (coordinator::Server and
// Dispatcher, no job service) that workers of the device join as they join any coordinator
// (`kiln-worker --coordinator ADDR --device vulkan`); each kernel call of a replay or an
// offload goes to one of them as a measure batch of one candidate carrying its values, and its
// outputs come back with the result. TargetOptions::remote takes dispatcher().
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <zmq.hpp>

#include "coordinator/dispatcher.h"
#include "coordinator/server.h"

namespace kiln::validate {

struct ValidationServiceOptions {
  std::string listen = "tcp://127.0.0.1:7071";  // the address workers connect to
  std::string target = "llvm";                  // what the workers build for
  std::string device_key = {};                  // a worker's device key to require; empty: any
  double run_time_limit_s = 30;                 // a call's run on the worker
};

class ValidationService {
 public:
  // Binds at once: kiln::Error(kIO) naming the address when it cannot.
  explicit ValidationService(ValidationServiceOptions options);
  ~ValidationService();
  ValidationService(const ValidationService&) = delete;
  ValidationService& operator=(const ValidationService&) = delete;

  // The address bound (a "tcp://127.0.0.1:*" wildcard resolved).
  std::string endpoint() const;
  // Waits until a worker that can run the target has registered: its id and hardware, or
  // kiln::Error(kUnsupported) after `seconds` naming the address and the target.
  std::string WaitForWorker(double seconds);
  coordinator::Dispatcher& dispatcher() { return dispatcher_; }

 private:
  ValidationServiceOptions options_;
  zmq::context_t context_;
  coordinator::Dispatcher dispatcher_;
  std::unique_ptr<coordinator::Server> server_;
  std::atomic<bool> stop_{false};
  std::thread server_thread_;
};

}  // namespace kiln::validate
