// ZapAuthenticator: the coordinator's allow-list. ZeroMQ asks a ZAP handler (a REP socket at
// inproc://zeromq.zap.01 in the same context) about every CURVE handshake; this one accepts
// the public keys it was given and refuses, and logs, every other. It runs on its own thread
// for the lifetime of the object.
#pragma once

#include <atomic>
#include <set>
#include <string>
#include <thread>
#include <zmq.hpp>

namespace kiln::coordinator {

class ZapAuthenticator {
 public:
  // `allowed`: Z85 public keys. Binds the ZAP endpoint before returning, so that sockets made
  // afterwards in `context` are checked.
  ZapAuthenticator(zmq::context_t& context, std::set<std::string> allowed);
  ~ZapAuthenticator();
  int64_t refused() const { return refused_; }

 private:
  void Loop();
  zmq::socket_t socket_;
  std::set<std::string> allowed_;
  std::atomic<bool> stop_{false};
  std::atomic<int64_t> refused_{0};
  std::thread thread_;
};

}  // namespace kiln::coordinator
