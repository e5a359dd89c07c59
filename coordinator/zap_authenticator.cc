// ZAP 1.0 handler over an allow-list of CURVE public keys (RFC 27).
#include "coordinator/zap_authenticator.h"

#include <zmq_addon.hpp>

#include "schemas/poll.h"
#include "support/logging.h"

namespace kiln::coordinator {

ZapAuthenticator::ZapAuthenticator(zmq::context_t& context, std::set<std::string> allowed)
    : socket_(context, zmq::socket_type::rep), allowed_(std::move(allowed)) {
  socket_.set(zmq::sockopt::linger, 0);
  socket_.bind("inproc://zeromq.zap.01");
  thread_ = std::thread([this] { Loop(); });
}

ZapAuthenticator::~ZapAuthenticator() {
  stop_ = true;
  thread_.join();
}

void ZapAuthenticator::Loop() {
  while (!stop_) {
    zmq::pollitem_t items[] = {{socket_.handle(), 0, ZMQ_POLLIN, 0}};
    schemas::PollIgnoringSignals(items, 1, std::chrono::milliseconds(20));
    if (!(items[0].revents & ZMQ_POLLIN)) continue;
    std::vector<zmq::message_t> request;
    if (!zmq::recv_multipart(socket_, std::back_inserter(request), zmq::recv_flags::dontwait)) {
      continue;
    }
    // version, request id, domain, address, identity, mechanism, credentials...
    std::string version = request.size() > 0 ? request[0].to_string() : "";
    std::string request_id = request.size() > 1 ? request[1].to_string() : "";
    std::string address = request.size() > 3 ? request[3].to_string() : "?";
    std::string mechanism = request.size() > 5 ? request[5].to_string() : "";
    bool ok = false;
    std::string key;
    if (version == "1.0" && mechanism == "CURVE" && request.size() > 6 && request[6].size() == 32) {
      char z85[41] = {};
      zmq_z85_encode(z85, static_cast<const uint8_t*>(request[6].data()), 32);
      key = z85;
      ok = allowed_.count(key) > 0;
    }
    if (!ok) {
      ++refused_;
      KILN_LOG_WARN("coordinator: refused a {} connection from {} (key {}): not on the allow-list",
                    mechanism.empty() ? "malformed" : mechanism, address,
                    key.empty() ? "none" : key);
    }
    std::array<zmq::const_buffer, 6> reply = {
        zmq::str_buffer("1.0"),
        zmq::buffer(request_id),
        ok ? zmq::str_buffer("200") : zmq::str_buffer("400"),
        ok ? zmq::str_buffer("OK") : zmq::str_buffer("key not allowed"),
        zmq::buffer(key),
        zmq::str_buffer("")};
    zmq::send_multipart(socket_, reply);
  }
}

}  // namespace kiln::coordinator
