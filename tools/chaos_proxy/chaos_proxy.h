// ChaosProxy: a fault-injecting TCP proxy on loopback, between ZeroMQ peers (the service's
// workers and its coordinator). Every accepted connection gets its own connection upstream;
// bytes are cut into ZMTP messages (zmtp_stream.h) and each message meets the fault its
// connection's FaultPlan draws: dropped, delayed, duplicated, reordered, truncated (the
// connection is closed mid-message), corrupted (a byte of its body flipped), or a partition
// (every connection closed and new ones refused for partition_s). The greeting and the
// handshake's commands are never faulted. One thread forwards, with poll() over non-blocking
// sockets; the faults injected are counted by kind and logged (connection, direction, message
// number), so that a run can be checked and repeated from its seed.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tools/chaos_proxy/fault_plan.h"
#include "tools/chaos_proxy/tcp_address.h"

namespace kiln::tools {

struct ChaosProxyOptions {
  std::string listen = "tcp://127.0.0.1:0";  // port 0: any free port
  std::string upstream;                      // where each connection is forwarded
  uint64_t seed = 1;
  FaultOptions faults;               // all zero: a plain proxy
  double reorder_hold_ms = 200;      // a held message goes out alone when no other follows so soon
  size_t fault_log_limit = 1 << 20;  // entries kept in FaultLog()
};

// One fault injected: on the connection accepted `connection`-th (from 0), direction 0
// (client to upstream) or 1 (back), the `message`-th message (from 0) of that direction.
struct FaultEvent {
  uint64_t connection = 0;
  int direction = 0;
  uint64_t message = 0;
  FaultKind kind = FaultKind::kNone;
  bool operator==(const FaultEvent&) const = default;
};

struct ChaosProxyStats {
  std::array<int64_t, kFaultKinds> faults = {};  // injected, by FaultKind (kNone: unused)
  int64_t messages = 0;                          // messages seen, both directions
  int64_t connections = 0;                       // accepted outside partitions
  int64_t refused = 0;                           // accepted during a partition and closed
  int64_t upstream_failures = 0;  // of the connections, those whose upstream refused them
  int64_t Faults() const;         // all kinds together
};

class ChaosProxy {
 public:
  // Binds the listening socket: kiln::Error(kParse) for a malformed address, kiln::Error(kIO)
  // when it cannot listen.
  explicit ChaosProxy(ChaosProxyOptions options);
  ~ChaosProxy();
  ChaosProxy(const ChaosProxy&) = delete;
  ChaosProxy& operator=(const ChaosProxy&) = delete;

  // Starts the forwarding thread; Stop (or the destructor) closes every connection.
  void Start();
  void Stop();

  std::string endpoint() const { return listen_.ToString(); }  // as bound (the real port)
  int port() const { return listen_.port; }
  ChaosProxyStats Stats() const;
  std::vector<FaultEvent> FaultLog() const;

 private:
  struct Connection;
  void Run();
  void Accept(double now);
  void Record(const Connection& c, int direction, uint64_t message, FaultKind kind);

  ChaosProxyOptions options_;
  TcpAddress listen_;
  TcpAddress upstream_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1};
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::vector<std::unique_ptr<Connection>> connections_;  // the forwarding thread's
  uint64_t next_connection_ = 0;
  double partition_until_ = 0;
  mutable std::mutex stats_mutex_;
  ChaosProxyStats stats_;
  std::vector<FaultEvent> log_;
};

}  // namespace kiln::tools
