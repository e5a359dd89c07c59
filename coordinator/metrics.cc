// Prometheus text rendering and a minimal HTTP/1.0 responder on a ZeroMQ STREAM socket.
#include "coordinator/metrics.h"

#include <sstream>

#include "support/error.h"

namespace kiln::coordinator {
namespace {

void Family(std::ostringstream& out, const std::string& name, const std::string& type,
            const std::string& help) {
  out << "# HELP " << name << " " << help << "\n# TYPE " << name << " " << type << "\n";
}

}  // namespace

std::string RenderMetrics(const MetricsSnapshot& s) {
  std::ostringstream out;
  Family(out, "kiln_jobs", "gauge", "Jobs by state.");
  for (const char* state : {"queued", "running", "done", "failed", "cancelled"}) {
    auto it = s.jobs_by_state.find(state);
    out << "kiln_jobs{state=\"" << state << "\"} " << (it == s.jobs_by_state.end() ? 0 : it->second)
        << "\n";
  }
  Family(out, "kiln_trials_total", "counter", "Candidates measured and stored.");
  out << "kiln_trials_total " << s.trials_total << "\n";
  Family(out, "kiln_trials_per_second", "gauge", "Candidates stored per second, recently.");
  out << "kiln_trials_per_second " << s.trials_per_second << "\n";
  Family(out, "kiln_workers", "gauge", "Workers by state.");
  for (const char* state : {"idle", "busy", "lost"}) {
    auto it = s.workers_by_state.find(state);
    out << "kiln_workers{state=\"" << state << "\"} "
        << (it == s.workers_by_state.end() ? 0 : it->second) << "\n";
  }
  Family(out, "kiln_queue_depth", "gauge", "Candidates waiting for a worker.");
  out << "kiln_queue_depth " << s.queue_depth << "\n";
  Family(out, "kiln_in_flight", "gauge", "Candidates sent to workers and not answered.");
  out << "kiln_in_flight " << s.in_flight << "\n";
  Family(out, "kiln_results_total", "counter", "Stored results by outcome.");
  for (const auto& [kind, count] : s.results_by_kind) {
    out << "kiln_results_total{kind=\"" << kind << "\"} " << count << "\n";
  }
  Family(out, "kiln_messages_dropped_total", "counter",
         "Malformed, wrong-version or unexpected messages dropped.");
  out << "kiln_messages_dropped_total " << s.messages_dropped << "\n";
  Family(out, "kiln_candidates_reassigned_total", "counter",
         "Candidates taken from a lost or late worker and queued again.");
  out << "kiln_candidates_reassigned_total " << s.candidates_reassigned << "\n";
  return out.str();
}

MetricsEndpoint::MetricsEndpoint(zmq::context_t& context, const std::string& address)
    : socket_(context, zmq::socket_type::stream) {
  socket_.set(zmq::sockopt::linger, 0);
  try {
    socket_.bind(address);
  } catch (const zmq::error_t& e) {
    throw Error(ErrorKind::kIO, "--metrics " + address + ": cannot listen: " + e.what());
  }
}

void MetricsEndpoint::Serve(const std::string& body) {
  while (true) {
    zmq::message_t id;
    zmq::message_t data;
    if (!socket_.recv(id, zmq::recv_flags::dontwait)) return;
    if (!socket_.recv(data, zmq::recv_flags::dontwait)) return;
    std::string key = id.to_string();
    if (data.size() == 0) {  // a connection opened or closed
      partial_.erase(key);
      continue;
    }
    std::string& request = partial_[key];
    request += data.to_string();
    if (request.size() > 8192) request.resize(8192);  // nobody needs more to ask for metrics
    if (request.find("\r\n\r\n") == std::string::npos &&
        request.find("\n\n") == std::string::npos) {
      continue;
    }
    bool get = request.rfind("GET ", 0) == 0;
    std::string payload = get ? body : "only GET is served here\n";
    std::string response =
        std::string(get ? "HTTP/1.0 200 OK\r\n" : "HTTP/1.0 405 Method Not Allowed\r\n") +
        "Content-Type: text/plain; version=0.0.4\r\nContent-Length: " +
        std::to_string(payload.size()) + "\r\nConnection: close\r\n\r\n" + payload;
    socket_.send(zmq::buffer(key), zmq::send_flags::sndmore);
    socket_.send(zmq::buffer(response), zmq::send_flags::none);
    // An empty frame closes the connection.
    socket_.send(zmq::buffer(key), zmq::send_flags::sndmore);
    socket_.send(zmq::message_t(), zmq::send_flags::none);
    partial_.erase(key);
  }
}

}  // namespace kiln::coordinator
