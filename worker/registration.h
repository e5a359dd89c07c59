// What a worker registers with: its id, device key, target, build concurrency, a hardware
// summary, and the facts the coordinator fits a job's design space to (the widest vector
// register and the cores a kernel may use). kiln-worker and the embedded worker of `tune run`
// both register through here, so that a job searches for the device that will run it.
#pragma once

#include <string>

#include "schemas/messages.h"

namespace kiln::worker {

struct RegistrationOptions {
  std::string worker_id = {};
  std::string device = "cpu";   // the device kind measured on ("cpu", "fake", ...)
  std::string device_key = {};  // empty: detected for "cpu", the kind's name otherwise
  std::string target = "llvm";
  int build_jobs = 1;
  std::string hostname = {};
};

// For "cpu": the key and hardware from /proc/cpuinfo, the vector width from its flags
// (runtime/host_cpu.h) and this machine's hardware threads. Other kinds register no facts
// (0: the coordinator keeps its defaults) unless they fill them in themselves.
schemas::RegisterMsg MakeRegistration(const RegistrationOptions& options);

}  // namespace kiln::worker
