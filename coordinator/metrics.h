// Metrics: the coordinator's state in the Prometheus text format (version 0.0.4), served over
// plain HTTP by a ZeroMQ STREAM socket (`--metrics tcp://127.0.0.1:9100`): jobs by state,
// trials measured and their rate, workers by state, queue depth, candidates in flight, results
// by error kind, dropped messages, reassigned candidates. Render is pure; MetricsEndpoint
// answers any GET with the latest rendering and closes the connection.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <zmq.hpp>

namespace kiln::coordinator {

struct MetricsSnapshot {
  std::map<std::string, int64_t> jobs_by_state;
  std::map<std::string, int64_t> workers_by_state;
  std::map<std::string, int64_t> results_by_kind;  // "ok", "build_error", ...
  int64_t trials_total = 0;
  double trials_per_second = 0;
  int64_t queue_depth = 0;
  int64_t in_flight = 0;
  int64_t messages_dropped = 0;
  int64_t candidates_reassigned = 0;
};

std::string RenderMetrics(const MetricsSnapshot& snapshot);

class MetricsEndpoint {
 public:
  // Binds a STREAM socket; kiln::Error(kIO) naming the address when it cannot.
  MetricsEndpoint(zmq::context_t& context, const std::string& address);
  zmq::socket_t& socket() { return socket_; }
  // Reads what arrived and answers each complete request with `body`.
  void Serve(const std::string& body);

 private:
  zmq::socket_t socket_;
  std::map<std::string, std::string> partial_;  // by connection id: request bytes so far
};

}  // namespace kiln::coordinator
