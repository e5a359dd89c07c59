// Server: ROUTER socket loop, edge decoding, routing of messages to dispatcher and handler.
#include "coordinator/server.h"

#include <chrono>
#include <zmq_addon.hpp>

#include "schemas/poll.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::coordinator {

namespace {

// The client a frame came from: the ZAP handler's User-Id (the CURVE public key) when the
// socket authenticates, else the anonymous client.
ClientContext ClientOf(const zmq::message_t& frame) {
  const char* user = zmq_msg_gets(frame.handle(), "User-Id");
  ClientContext context;
  if (user != nullptr && *user != '\0') context.client = user;
  return context;
}

}  // namespace

double MonotonicSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

Server::Server(zmq::context_t& context, ServerOptions options, Dispatcher& dispatcher,
               ClientHandler* clients)
    : options_(std::move(options)),
      dispatcher_(dispatcher),
      clients_(clients),
      socket_(context, zmq::socket_type::router) {
  socket_.set(zmq::sockopt::linger, 0);
  // Frames over the limit are refused by ZeroMQ before they are buffered whole.
  socket_.set(zmq::sockopt::maxmsgsize, static_cast<int64_t>(options_.limits.max_bytes));
  if (!options_.curve.secret_key.empty()) {
    socket_.set(zmq::sockopt::curve_server, true);
    socket_.set(zmq::sockopt::curve_secretkey, options_.curve.secret_key);
    socket_.set(zmq::sockopt::zap_domain, "kiln");
  }
  try {
    socket_.bind(options_.listen);
  } catch (const zmq::error_t& e) {
    throw Error(ErrorKind::kIO,
                "coordinator: cannot listen on " + options_.listen + ": " + e.what());
  }
  if (!options_.metrics.empty()) {
    metrics_ = std::make_unique<MetricsEndpoint>(context, options_.metrics);
  }
}

MetricsSnapshot Server::Metrics() {
  MetricsSnapshot m;
  for (const auto& w : dispatcher_.Workers(MonotonicSeconds())) ++m.workers_by_state[w.state];
  m.queue_depth = static_cast<int64_t>(dispatcher_.Queued());
  m.in_flight = static_cast<int64_t>(dispatcher_.InFlight());
  m.messages_dropped = stats_.dropped;
  m.candidates_reassigned = dispatcher_.reassigned();
  if (fill_metrics_) fill_metrics_(m);
  return m;
}

void Server::Publish(schemas::JobEventMsg event) {
  std::lock_guard lock(events_mutex_);
  // A stalled loop must not grow the queue without bound: old progress is superseded.
  if (events_.size() >= 4096) events_.pop_front();
  events_.push_back(std::move(event));
}

void Server::SendEvents() {
  std::deque<schemas::JobEventMsg> events;
  {
    std::lock_guard lock(events_mutex_);
    events.swap(events_);
  }
  for (const schemas::JobEventMsg& event : events) {
    auto it = watchers_.find(event.job_id);
    if (it == watchers_.end()) continue;
    for (const std::string& identity : it->second) Reply(identity, event);
    if (event.state == "done" || event.state == "failed" || event.state == "cancelled") {
      watchers_.erase(it);
      std::erase_if(watch_order_, [&](const auto& w) { return w.first == event.job_id; });
    }
  }
}

std::string Server::endpoint() const { return socket_.get(zmq::sockopt::last_endpoint); }

void Server::Reply(const std::string& identity, const schemas::Message& message) {
  std::string bytes = schemas::Encode(message);
  std::array<zmq::const_buffer, 2> parts = {zmq::buffer(identity), zmq::buffer(bytes)};
  // A peer that went away makes the send fail or vanish; neither concerns the loop.
  try {
    zmq::send_multipart(socket_, parts, zmq::send_flags::dontwait);
  } catch (const zmq::error_t& e) {
    KILN_LOG_DEBUG("coordinator: reply to a gone peer dropped: {}", e.what());
  }
}

void Server::HandleFrame(const std::string& identity, const zmq::message_t& frame, double now) {
  schemas::Message message;
  try {
    message = schemas::Decode(frame.data(), frame.size(), options_.limits);
  } catch (const Error& e) {
    ++stats_.dropped;
    KILN_LOG_WARN("coordinator: dropped a frame of {} bytes: {}", frame.size(), e.what());
    if (e.kind() == ErrorKind::kUnsupported)
      Reply(identity, schemas::ErrorMsg{"unsupported", e.what()});
    return;
  }
  if (auto* m = std::get_if<schemas::RegisterMsg>(&message)) {
    Reply(identity, dispatcher_.OnRegister(identity, *m, now));
  } else if (auto* m = std::get_if<schemas::HeartbeatMsg>(&message)) {
    if (dispatcher_.OnHeartbeat(identity, *m, now)) {
      Reply(identity, schemas::HeartbeatMsg{"coordinator", 0});
    } else {
      Reply(identity, schemas::RegisteredMsg{false, "unknown worker: register again", 0});
    }
  } else if (auto* m = std::get_if<schemas::ResultsMsg>(&message)) {
    if (!dispatcher_.OnResults(identity, *m, now)) {
      Reply(identity, schemas::RegisteredMsg{false, "unknown worker: register again", 0});
    }
  } else if (std::holds_alternative<schemas::SubmitMsg>(message) ||
             std::holds_alternative<schemas::QueryMsg>(message) ||
             std::holds_alternative<schemas::CancelMsg>(message)) {
    if (clients_ == nullptr) {
      Reply(identity, schemas::ErrorMsg{"unsupported", "this coordinator takes no jobs"});
      return;
    }
    try {
      schemas::Message reply = clients_->Handle(message, ClientOf(frame));
      const auto* query = std::get_if<schemas::QueryMsg>(&message);
      const auto* event = std::get_if<schemas::JobEventMsg>(&reply);
      if (query != nullptr && query->kind == schemas::QueryMsg::Kind::kWatch && event != nullptr &&
          event->state != "done" && event->state != "failed" && event->state != "cancelled") {
        if (watchers_[query->job_id].insert(identity).second) {
          watch_order_.emplace_back(query->job_id, identity);
          if (watch_order_.size() > kMaxWatchers) {
            auto [job, who] = watch_order_.front();
            watch_order_.pop_front();
            watchers_[job].erase(who);
          }
        }
      }
      Reply(identity, reply);
    } catch (const Error& e) {
      Reply(identity, schemas::ErrorMsg{std::string(ErrorKindName(e.kind())), e.what()});
    }
  } else {
    ++stats_.dropped;
    KILN_LOG_WARN("coordinator: dropped an unexpected {} message", schemas::MessageName(message));
  }
}

void Server::Run(const std::atomic<bool>& stop) {
  while (!stop) {
    zmq::pollitem_t items[] = {
        {socket_.handle(), 0, ZMQ_POLLIN, 0},
        {metrics_ ? metrics_->socket().handle() : nullptr, 0, ZMQ_POLLIN, 0}};
    schemas::PollIgnoringSignals(items, metrics_ ? 2 : 1,
                                 std::chrono::milliseconds(options_.poll_ms));
    if (metrics_ && (items[1].revents & ZMQ_POLLIN)) {
      try {
        metrics_->Serve(RenderMetrics(Metrics()));
      } catch (const std::exception& e) {
        KILN_LOG_WARN("coordinator: metrics request failed: {}", e.what());
      }
    }
    if (items[0].revents & ZMQ_POLLIN) {
      // Drain what is there, then dispatch once.
      for (int k = 0; k < 256; ++k) {
        std::vector<zmq::message_t> parts;
        auto received =
            zmq::recv_multipart(socket_, std::back_inserter(parts), zmq::recv_flags::dontwait);
        if (!received) break;
        ++stats_.received;
        if (parts.size() != 2) {
          ++stats_.dropped;
          KILN_LOG_WARN(
              "coordinator: dropped a message of {} frames (expected 1 after the "
              "routing id)",
              parts.empty() ? 0 : parts.size() - 1);
          continue;
        }
        HandleFrame(parts[0].to_string(), parts[1], MonotonicSeconds());
      }
    }
    SendEvents();
    for (auto& [identity, batch] : dispatcher_.TakeBatches(MonotonicSeconds())) {
      Reply(identity, batch);
      ++stats_.batches_sent;
    }
  }
}

}  // namespace kiln::coordinator
