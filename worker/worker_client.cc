// WorkerClient: registration, heartbeats, batches on a measuring thread, reconnection.
#include "worker/worker_client.h"

#include <chrono>
#include <deque>
#include <future>
#include <optional>
#include <thread>

#include "schemas/convert.h"
#include "schemas/poll.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::worker {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

zmq::socket_t Connect(zmq::context_t& context, const WorkerClientOptions& options) {
  zmq::socket_t socket(context, zmq::socket_type::dealer);
  socket.set(zmq::sockopt::linger, 0);
  if (!options.curve.secret_key.empty()) {
    socket.set(zmq::sockopt::curve_serverkey, options.curve.server_public_key);
    socket.set(zmq::sockopt::curve_publickey, options.curve.public_key);
    socket.set(zmq::sockopt::curve_secretkey, options.curve.secret_key);
  }
  socket.connect(options.coordinator);
  return socket;
}

void Send(zmq::socket_t& socket, const schemas::Message& message) {
  std::string bytes = schemas::Encode(message);
  socket.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

}  // namespace

WorkerClient::WorkerClient(zmq::context_t& context, WorkerClientOptions options,
                           BatchRunner& runner)
    : context_(context), options_(std::move(options)), runner_(runner) {}

void WorkerClient::Run(const std::atomic<bool>& stop) {
  double backoff = options_.reconnect_min_s;
  // A batch being measured survives reconnections: its results go out on whichever socket is
  // open when it finishes (the coordinator drops them if it no longer expects them).
  std::optional<std::future<schemas::ResultsMsg>> running;
  std::deque<schemas::MeasureBatchMsg> waiting;
  while (!stop) {
    zmq::socket_t socket = Connect(context_, options_);
    Send(socket, options_.info);
    bool registered = false;
    double interval_s = 1;
    double last_heard = Now();
    double last_beat = 0;
    double register_sent = Now();
    while (!stop) {
      zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
      schemas::PollIgnoringSignals(items, 1, std::chrono::milliseconds(5));
      if (items[0].revents & ZMQ_POLLIN) {
        zmq::message_t frame;
        if (!socket.recv(frame, zmq::recv_flags::dontwait)) continue;
        last_heard = Now();
        try {
          schemas::Message message = schemas::Decode(frame.data(), frame.size());
          if (auto* reply = std::get_if<schemas::RegisteredMsg>(&message)) {
            if (reply->accepted) {
              registered = true;
              backoff = options_.reconnect_min_s;
              interval_s = std::max(0.01, reply->heartbeat_interval_ms / 1000.0);
              ++stats_.registrations;
              KILN_LOG_INFO("worker {} registered with {}", options_.info.worker_id,
                            options_.coordinator);
            } else {
              // The coordinator does not know this worker (it restarted): register again.
              KILN_LOG_INFO("worker {}: {}; registering again", options_.info.worker_id,
                            reply->reason);
              Send(socket, options_.info);
              register_sent = Now();
              registered = false;
            }
          } else if (auto* batch = std::get_if<schemas::MeasureBatchMsg>(&message)) {
            // One batch runs at a time (timings must not interfere); a batch sent while one
            // runs (the coordinator gave up on the running one) waits its turn.
            waiting.push_back(std::move(*batch));
          }
          // Heartbeat replies only refresh last_heard.
        } catch (const Error& e) {
          ++stats_.dropped;
          KILN_LOG_WARN("worker {}: dropped a message: {}", options_.info.worker_id, e.what());
        }
      }
      if (!running && !waiting.empty()) {
        running = std::async(std::launch::async,
                             [this, b = std::move(waiting.front())] { return runner_.Run(b); });
        waiting.pop_front();
      }
      double now = Now();
      if (running && running->wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        schemas::ResultsMsg results = running->get();
        running.reset();
        ++stats_.batches;
        stats_.candidates += static_cast<int64_t>(results.results.size());
        Send(socket, results);
      }
      if (registered && now - last_beat >= interval_s) {
        uint32_t in_flight = (running ? 1 : 0) + static_cast<uint32_t>(waiting.size());
        Send(socket, schemas::HeartbeatMsg{options_.info.worker_id, in_flight});
        last_beat = now;
      }
      double silent_limit = registered ? interval_s * options_.silent_intervals : backoff + 1;
      if (now - last_heard > silent_limit || (!registered && now - register_sent > backoff + 1)) {
        KILN_LOG_WARN("worker {}: no answer from {} for {:.1f} s; reconnecting",
                      options_.info.worker_id, options_.coordinator, now - last_heard);
        break;
      }
    }
    if (stop) break;
    // Back off before a fresh socket, so that a dead coordinator is not hammered.
    double until = Now() + backoff;
    while (!stop && Now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    backoff = std::min(options_.reconnect_max_s, backoff * 2);
  }
  if (running) running->wait();
}

}  // namespace kiln::worker
