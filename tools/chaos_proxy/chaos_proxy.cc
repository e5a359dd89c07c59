// ChaosProxy: the forwarding loop, and the faults applied to each message.
#include "tools/chaos_proxy/chaos_proxy.h"

#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <deque>
#include <optional>

#include "support/error.h"
#include "tools/chaos_proxy/zmtp_stream.h"

namespace kiln::tools {
namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Bytes waiting in one direction beyond which the proxy stops reading its source.
constexpr size_t kMaxBacklog = size_t{4} << 20;
constexpr size_t kReadBytes = size_t{64} << 10;

void SetNoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

int64_t ChaosProxyStats::Faults() const {
  int64_t total = 0;
  for (size_t k = 1; k < faults.size(); ++k) total += faults[k];
  return total;
}

// One client connection and its connection upstream. Direction d reads fd[d] and writes
// fd[1 - d]: 0 is client to upstream, 1 is upstream to client.
struct ChaosProxy::Connection {
  struct Chunk {
    std::string bytes;
    double release = 0;  // not written before this time; chunks behind it wait too
    bool close_after = false;
  };
  struct Direction {
    Direction(const FaultOptions& faults, uint64_t seed) : plan(faults, seed) {}
    ZmtpStream stream;
    FaultPlan plan;
    uint64_t messages = 0;
    std::deque<Chunk> queue;
    size_t queued_bytes = 0;
    std::string out;  // being written
    size_t out_pos = 0;
    bool close_after_out = false;
    std::optional<std::string> held;  // a reordered message, waiting for the next one
    double held_since = 0;
    bool eof = false;  // the source closed: close the connection once all is written

    size_t Pending() const { return out.size() - out_pos; }
    size_t Backlog() const { return queued_bytes + Pending() + stream.buffered(); }
    bool Drained() const { return queue.empty() && Pending() == 0 && !held; }
    void Push(std::string bytes, double release, bool close_after = false) {
      queued_bytes += bytes.size();
      queue.push_back({std::move(bytes), release, close_after});
    }
  };

  Connection(uint64_t index, int client, int upstream, const ChaosProxyOptions& options)
      : index(index),
        fd{client, upstream},
        dir{Direction(options.faults, PlanSeed(options.seed, index, 0)),
            Direction(options.faults, PlanSeed(options.seed, index, 1))} {}
  ~Connection() {
    for (int f : fd) {
      if (f >= 0) close(f);
    }
  }

  uint64_t index;
  int fd[2];
  bool connecting = true;  // the connection upstream is not established yet
  bool closed = false;
  bool cut = false;  // truncated: nothing more is forwarded
  Direction dir[2];
};

ChaosProxy::ChaosProxy(ChaosProxyOptions options) : options_(std::move(options)) {
  listen_ = ParseTcpAddress(options_.listen, "--listen");
  upstream_ = ParseTcpAddress(options_.upstream, "--upstream");
  KILN_CHECK(upstream_.port > 0, ErrorKind::kParse,
             "--upstream " + options_.upstream + ": the port must not be 0");
  listen_fd_ = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(listen_fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr = listen_.ToSockaddr();
  if (listen_fd_ < 0 || bind(listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      listen(listen_fd_, 128) != 0) {
    std::string why = std::strerror(errno);
    if (listen_fd_ >= 0) close(listen_fd_);
    throw Error(ErrorKind::kIO, "chaos proxy: cannot listen on " + options_.listen + ": " + why);
  }
  socklen_t len = sizeof addr;
  getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len);
  listen_.port = ntohs(addr.sin_port);
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0) {
    close(listen_fd_);
    throw Error(ErrorKind::kIO, std::string("chaos proxy: pipe: ") + std::strerror(errno));
  }
}

ChaosProxy::~ChaosProxy() {
  Stop();
  connections_.clear();
  close(listen_fd_);
  close(wake_[0]);
  close(wake_[1]);
}

void ChaosProxy::Start() {
  if (thread_.joinable()) return;
  stop_ = false;
  thread_ = std::thread([this] { Run(); });
}

void ChaosProxy::Stop() {
  stop_ = true;
  if (thread_.joinable()) {
    [[maybe_unused]] ssize_t n = write(wake_[1], "x", 1);
    thread_.join();
  }
}

ChaosProxyStats ChaosProxy::Stats() const {
  std::lock_guard lock(stats_mutex_);
  return stats_;
}

std::vector<FaultEvent> ChaosProxy::FaultLog() const {
  std::lock_guard lock(stats_mutex_);
  return log_;
}

void ChaosProxy::Record(const Connection& c, int direction, uint64_t message, FaultKind kind) {
  std::lock_guard lock(stats_mutex_);
  ++stats_.faults[static_cast<size_t>(kind)];
  if (log_.size() < options_.fault_log_limit) log_.push_back({c.index, direction, message, kind});
}

void ChaosProxy::Accept(double now) {
  while (true) {
    int client = accept4(listen_fd_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) return;
    if (now < partition_until_) {
      {
        // Counted before the close, which the refused client may observe at once.
        std::lock_guard lock(stats_mutex_);
        ++stats_.refused;
      }
      close(client);
      continue;
    }
    int upstream = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    sockaddr_in addr = upstream_.ToSockaddr();
    int rc = upstream < 0 ? -1 : connect(upstream, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    if (upstream < 0 || (rc != 0 && errno != EINPROGRESS)) {
      {
        std::lock_guard lock(stats_mutex_);
        ++stats_.connections;
        ++stats_.upstream_failures;
      }
      close(client);
      if (upstream >= 0) close(upstream);
      continue;
    }
    SetNoDelay(client);
    SetNoDelay(upstream);
    auto c = std::make_unique<Connection>(next_connection_++, client, upstream, options_);
    c->connecting = rc != 0;
    connections_.push_back(std::move(c));
    std::lock_guard lock(stats_mutex_);
    ++stats_.connections;
  }
}

void ChaosProxy::Run() {
  const double hold_s = options_.reorder_hold_ms / 1000;
  bool partition_now = false;

  // The fault of one message, applied; what goes out is queued on `d`.
  auto handle_message = [&](Connection& c, int d, ZmtpUnit& unit, double now) {
    Connection::Direction& dir = c.dir[d];
    uint64_t number = dir.messages++;
    {
      std::lock_guard lock(stats_mutex_);
      ++stats_.messages;
    }
    FaultKind kind = dir.plan.Next();
    if (kind == FaultKind::kReorder && dir.held) kind = FaultKind::kNone;  // it releases the held
    size_t body_bytes = 0;
    for (const auto& [offset, size] : unit.bodies) body_bytes += size;
    if (kind == FaultKind::kCorrupt && body_bytes == 0) kind = FaultKind::kNone;
    if (kind == FaultKind::kTruncate && unit.bytes.size() < 2) kind = FaultKind::kNone;
    if (kind != FaultKind::kNone) Record(c, d, number, kind);
    switch (kind) {
      case FaultKind::kNone:
        dir.Push(std::move(unit.bytes), now);
        break;
      case FaultKind::kDrop:
        return;  // a held message waits for the next one
      case FaultKind::kDelay: {
        double ms = options_.faults.delay_ms * (0.5 + 0.5 * dir.plan.Uniform());
        dir.Push(std::move(unit.bytes), now + ms / 1000);
        break;
      }
      case FaultKind::kDuplicate:
        dir.Push(unit.bytes, now);
        dir.Push(std::move(unit.bytes), now);
        break;
      case FaultKind::kReorder:
        dir.held = std::move(unit.bytes);
        dir.held_since = now;
        return;
      case FaultKind::kTruncate: {
        size_t keep = 1 + static_cast<size_t>(dir.plan.Uniform() *
                                              static_cast<double>(unit.bytes.size() - 1));
        unit.bytes.resize(keep);
        dir.Push(std::move(unit.bytes), now, true);
        dir.held.reset();
        c.cut = true;
        return;
      }
      case FaultKind::kCorrupt: {
        size_t at = static_cast<size_t>(dir.plan.Uniform() * static_cast<double>(body_bytes));
        for (const auto& [offset, size] : unit.bodies) {
          if (at < size) {
            unit.bytes[offset + at] ^= static_cast<char>(1 + dir.plan.Bits() % 255);
            break;
          }
          at -= size;
        }
        dir.Push(std::move(unit.bytes), now);
        break;
      }
      case FaultKind::kPartition:
        partition_until_ = now + options_.faults.partition_s;
        partition_now = true;
        return;
    }
    if (dir.held) {
      dir.Push(std::move(*dir.held), now);
      dir.held.reset();
    }
  };

  auto read_from = [&](Connection& c, int d, double now) {
    char buffer[kReadBytes];
    ssize_t n = recv(c.fd[d], buffer, sizeof buffer, 0);
    Connection::Direction& dir = c.dir[d];
    if (n < 0) {
      if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) c.closed = true;
      return;
    }
    if (n == 0) {
      dir.eof = true;
      if (dir.held) {
        dir.Push(std::move(*dir.held), now);
        dir.held.reset();
      }
      return;
    }
    if (c.cut) return;
    dir.stream.Feed(buffer, static_cast<size_t>(n));
    while (!partition_now && !c.cut) {
      std::optional<ZmtpUnit> unit = dir.stream.Next();
      if (!unit) break;
      if (unit->kind == ZmtpUnit::Kind::kRaw) {
        dir.Push(std::move(unit->bytes), now);
      } else {
        handle_message(c, d, *unit, now);
      }
    }
  };

  // Due chunks of direction d into its write buffer; the next time something falls due.
  auto pump = [&](Connection& c, int d, double now, double& next) {
    Connection::Direction& dir = c.dir[d];
    if (dir.held && now - dir.held_since >= hold_s) {
      dir.Push(std::move(*dir.held), now);
      dir.held.reset();
    }
    if (dir.held) next = std::min(next, dir.held_since + hold_s);
    if (dir.Pending() == 0) {
      dir.out.clear();
      dir.out_pos = 0;
    }
    while (!dir.close_after_out && !dir.queue.empty() && dir.queue.front().release <= now &&
           dir.Pending() < kMaxBacklog) {
      Connection::Chunk& chunk = dir.queue.front();
      dir.out += chunk.bytes;
      dir.queued_bytes -= chunk.bytes.size();
      dir.close_after_out = chunk.close_after;
      dir.queue.pop_front();
    }
    if (!dir.queue.empty() && !dir.close_after_out) {
      next = std::min(next, dir.queue.front().release);
    }
  };

  auto write_to = [&](Connection& c, int d) {
    Connection::Direction& dir = c.dir[d];
    if (dir.Pending() > 0) {
      ssize_t n = send(c.fd[1 - d], dir.out.data() + dir.out_pos, dir.Pending(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) c.closed = true;
        return;
      }
      dir.out_pos += static_cast<size_t>(n);
    }
    if (dir.Pending() == 0 && dir.close_after_out) c.closed = true;  // truncated: cut here
  };

  std::vector<pollfd> fds;
  while (!stop_) {
    double now = Now();
    double next = now + 0.1;
    for (auto& c : connections_) {
      for (int d = 0; d < 2; ++d) {
        pump(*c, d, now, next);
        // A side that closed closes the connection once what it sent is written.
        if (c->dir[d].eof && c->dir[d].Drained()) c->closed = true;
      }
    }
    std::erase_if(connections_, [](const auto& c) { return c->closed; });
    fds.clear();
    fds.push_back({wake_[0], POLLIN, 0});
    fds.push_back({listen_fd_, POLLIN, 0});
    for (auto& c : connections_) {
      for (int side = 0; side < 2; ++side) {
        short events = 0;
        if (side == 1 && c->connecting) {
          events = POLLOUT;
        } else {
          const Connection::Direction& in = c->dir[side];
          const Connection::Direction& out = c->dir[1 - side];
          if (!in.eof && !c->cut && in.Backlog() < kMaxBacklog && !c->connecting) events |= POLLIN;
          if (out.Pending() > 0 || out.close_after_out) events |= POLLOUT;
        }
        // A socket polled for nothing is left out: a closed peer would wake poll at once.
        fds.push_back({events != 0 ? c->fd[side] : -1, events, 0});
      }
    }
    int timeout_ms = static_cast<int>(std::ceil(std::max(0.0, next - now) * 1000));
    if (poll(fds.data(), fds.size(), std::min(timeout_ms, 100)) < 0 && errno != EINTR) break;
    if (fds[0].revents & POLLIN) break;
    now = Now();
    // The connections polled; those accepted now are polled from the next round.
    size_t polled = connections_.size();
    if (fds[1].revents & POLLIN) Accept(now);
    for (size_t i = 0; i < polled && !partition_now; ++i) {
      Connection& c = *connections_[i];
      for (int side = 0; side < 2 && !c.closed && !partition_now; ++side) {
        short revents = fds[2 + 2 * i + static_cast<size_t>(side)].revents;
        if (revents == 0) continue;
        if (side == 1 && c.connecting) {
          int error = 0;
          socklen_t len = sizeof error;
          getsockopt(c.fd[1], SOL_SOCKET, SO_ERROR, &error, &len);
          if (error != 0 || (revents & (POLLERR | POLLHUP))) {
            c.closed = true;
            std::lock_guard lock(stats_mutex_);
            ++stats_.upstream_failures;
          } else {
            c.connecting = false;
          }
          continue;
        }
        if (revents & (POLLIN | POLLHUP | POLLERR)) read_from(c, side, now);
        if (!c.closed && (revents & POLLOUT)) write_to(c, 1 - side);
      }
    }
    if (partition_now) {
      // Every connection goes at once; new ones are refused until the partition ends.
      connections_.clear();
      partition_now = false;
    }
  }
  connections_.clear();
}

}  // namespace kiln::tools
