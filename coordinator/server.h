// Server: the kiln-coordinator loop over one ZeroMQ ROUTER socket. It decodes each frame at
// the edge (a malformed or wrong-version frame is logged, counted and dropped, never fatal),
// passes worker messages to the Dispatcher and client requests to a ClientHandler, answers
// heartbeats, and after every poll sends the batches the dispatcher assigns. A client that
// asks to watch a job is subscribed to it: every event published for that job is pushed to
// it until the job ends. Beyond the socket and the subscriptions it holds no state: the
// dispatcher and the handler make every decision.
#pragma once

#include <atomic>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <zmq.hpp>

#include "coordinator/dispatcher.h"
#include "coordinator/metrics.h"
#include "schemas/convert.h"

namespace kiln::coordinator {

// The client of a coordinator without keys: every client is this one, so that a limit per
// client is a limit per coordinator.
inline constexpr const char* kAnonymousClient = "anonymous";

// Who sent a client request: with CurveZMQ, the Z85 public key the ZAP handler accepted (the
// frame's "User-Id"); without keys, kAnonymousClient.
struct ClientContext {
  std::string client = kAnonymousClient;
};

// Answers client requests (submit, status, cancel, job and worker lists).
class ClientHandler {
 public:
  virtual ~ClientHandler() = default;
  virtual schemas::Message Handle(const schemas::Message& request,
                                  const ClientContext& context) = 0;
};

struct CurveServerKeys {
  std::string public_key;  // Z85
  std::string secret_key;  // Z85
};

struct ServerOptions {
  std::string listen = "tcp://127.0.0.1:7070";
  schemas::DecodeLimits limits = {};
  int poll_ms = 5;
  CurveServerKeys curve = {};  // empty: plain (loopback only, checked by the daemon)
  std::string metrics = {};    // "tcp://127.0.0.1:9100": serve Prometheus metrics; empty: none
};

struct ServerStats {
  std::atomic<int64_t> received{0};
  std::atomic<int64_t> dropped{0};  // malformed, wrong version, or unexpected
  std::atomic<int64_t> batches_sent{0};
};

class Server {
 public:
  // Binds at construction: kiln::Error(kIO) naming the address when it cannot.
  Server(zmq::context_t& context, ServerOptions options, Dispatcher& dispatcher,
         ClientHandler* clients);
  // The address actually bound (resolves a "tcp://127.0.0.1:*" wildcard port).
  std::string endpoint() const;
  // Runs until `stop` is set.
  void Run(const std::atomic<bool>& stop);
  const ServerStats& stats() const { return stats_; }
  // Adds what only the caller knows (jobs, stored results) to each metrics scrape.
  void SetMetricsSource(std::function<void(MetricsSnapshot&)> fill) {
    fill_metrics_ = std::move(fill);
  }
  MetricsSnapshot Metrics();
  // Pushes `event` to the clients watching its job, from the server's thread (callable from
  // any thread). An event of a finished job ends their subscriptions.
  void Publish(schemas::JobEventMsg event);
  // Clients subscribed at most; the oldest subscription goes first beyond it.
  static constexpr size_t kMaxWatchers = 1024;

 private:
  void SendEvents();
  void HandleFrame(const std::string& identity, const zmq::message_t& frame, double now);
  void Reply(const std::string& identity, const schemas::Message& message);

  ServerOptions options_;
  Dispatcher& dispatcher_;
  ClientHandler* clients_;
  zmq::socket_t socket_;
  std::unique_ptr<MetricsEndpoint> metrics_;
  std::function<void(MetricsSnapshot&)> fill_metrics_;
  ServerStats stats_;
  std::mutex events_mutex_;
  std::deque<schemas::JobEventMsg> events_;
  std::map<uint64_t, std::set<std::string>> watchers_;  // job -> client identities
  std::deque<std::pair<uint64_t, std::string>> watch_order_;
};

// Seconds on the steady clock, the time base the server gives the dispatcher.
double MonotonicSeconds();

}  // namespace kiln::coordinator
