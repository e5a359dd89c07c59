// WorkerClient: the kiln-worker loop over one ZeroMQ DEALER socket. It registers with the
// coordinator, sends heartbeats (also while a batch builds and runs: batches run on their own
// thread), hands each measure batch to the BatchRunner and sends back its results. When the
// coordinator stops answering (no reply to heartbeats, or it says the worker is unknown after
// its restart) the worker opens a fresh socket and registers again, backing off from
// `reconnect_min_s` to `reconnect_max_s`. A malformed message is logged and dropped.
#pragma once

#include <atomic>
#include <string>
#include <zmq.hpp>

#include "schemas/messages.h"
#include "worker/batch_runner.h"

namespace kiln::worker {

struct CurveClientKeys {
  std::string public_key;         // Z85, this worker's
  std::string secret_key;         // Z85, this worker's
  std::string server_public_key;  // Z85, the coordinator's
};

struct WorkerClientOptions {
  std::string coordinator;  // "tcp://127.0.0.1:7070"
  schemas::RegisterMsg info;
  double reconnect_min_s = 0.1;
  double reconnect_max_s = 5;
  // Silence from the coordinator (in heartbeat intervals) after which it is presumed gone.
  int silent_intervals = 5;
  CurveClientKeys curve;  // empty: no encryption (loopback only)
};

struct WorkerClientStats {
  std::atomic<int64_t> registrations{0};
  std::atomic<int64_t> batches{0};
  std::atomic<int64_t> candidates{0};
  std::atomic<int64_t> dropped{0};
};

class WorkerClient {
 public:
  WorkerClient(zmq::context_t& context, WorkerClientOptions options, BatchRunner& runner);
  // Runs until `stop` is set (checked every few milliseconds).
  void Run(const std::atomic<bool>& stop);
  const WorkerClientStats& stats() const { return stats_; }

 private:
  zmq::context_t& context_;
  WorkerClientOptions options_;
  BatchRunner& runner_;
  WorkerClientStats stats_;
};

}  // namespace kiln::worker
