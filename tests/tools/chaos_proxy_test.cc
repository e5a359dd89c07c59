// ChaosProxy on real loopback sockets: a client and a plain TCP listener (standing in for the
// coordinator) exchange ZMTP bytes through it. Without faults the bytes pass unchanged both
// ways; each fault kind is seen at the far end (a message missing, late, twice, swapped, cut
// with the connection closed, one byte flipped; a partition closes every connection and
// refuses new ones until it ends); the same seed gives the same faults; and ZeroMQ sockets
// talk through it, their message boundaries the proxy's.
#include "tools/chaos_proxy/chaos_proxy.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "tests/tools/zmtp_test_util.h"

namespace kiln::tools {
namespace {

using testing::Frame;
using testing::Greeting;
using testing::Ready;

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// A plain TCP listener on loopback in the coordinator's place.
class Listener {
 public:
  Listener() {
    fd_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    socklen_t len = sizeof addr;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
  }
  ~Listener() { close(fd_); }
  std::string address() const { return "tcp://127.0.0.1:" + std::to_string(port_); }
  // The next connection, or -1 when none comes within `seconds`.
  int Accept(double seconds) {
    pollfd p{fd_, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(seconds * 1000)) != 1) return -1;
    return accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
  }

 private:
  int fd_ = -1;
  int port_ = 0;
};

int Connect(int port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  return fd;
}

void SendAll(int fd, const std::string& bytes) {
  size_t sent = 0;
  while (sent < bytes.size()) {
    ssize_t n = send(fd, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
    ASSERT_GT(n, 0);
    sent += static_cast<size_t>(n);
  }
}

// What arrives until the peer closes, `want` bytes have come, or `seconds` pass.
std::string Read(int fd, double seconds, size_t want = SIZE_MAX, bool* closed = nullptr) {
  std::string out;
  double deadline = Now() + seconds;
  if (closed) *closed = false;
  while (out.size() < want && Now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>((deadline - Now()) * 1000) + 1) != 1) continue;
    char buffer[65536];
    ssize_t n = recv(fd, buffer, sizeof buffer, 0);
    if (n <= 0) {
      if (closed) *closed = true;
      break;
    }
    out.append(buffer, static_cast<size_t>(n));
  }
  return out;
}

struct Pair {
  int client = -1;
  int upstream = -1;
  ~Pair() {
    if (client >= 0) close(client);
    if (upstream >= 0) close(upstream);
  }
};

// A connection through the proxy with both greetings and READY commands exchanged.
void Open(ChaosProxy& proxy, Listener& listener, Pair& pair) {
  pair.client = Connect(proxy.port());
  pair.upstream = listener.Accept(5);
  ASSERT_GE(pair.upstream, 0);
  std::string hello = Greeting() + Ready();
  SendAll(pair.client, hello);
  SendAll(pair.upstream, hello);
  ASSERT_EQ(Read(pair.upstream, 5, hello.size()), hello);
  ASSERT_EQ(Read(pair.client, 5, hello.size()), hello);
}

std::unique_ptr<ChaosProxy> StartProxy(const Listener& listener, const std::string& faults,
                                       uint64_t seed = 1, double delay_ms = 100,
                                       double partition_s = 2) {
  ChaosProxyOptions options;
  options.upstream = listener.address();
  options.seed = seed;
  ParseFaultSpec(faults, options.faults);
  options.faults.delay_ms = delay_ms;
  options.faults.partition_s = partition_s;
  auto proxy = std::make_unique<ChaosProxy>(options);
  proxy->Start();
  return proxy;
}

std::string Messages(int first, int count) {
  std::string out;
  for (int i = first; i < first + count; ++i) out += Frame("message " + std::to_string(i));
  return out;
}

TEST(ChaosProxyTest, WithoutFaultsBytesPassUnchangedBothWays) {
  Listener listener;
  auto proxy = StartProxy(listener, "none");
  EXPECT_THAT(proxy->endpoint(), ::testing::StartsWith("tcp://127.0.0.1:"));
  Pair pair;
  Open(*proxy, listener, pair);
  std::string up = Frame("a", true) + Frame(std::string(300000, 'b')) + Messages(0, 100);
  std::string down = Frame(std::string(70000, 'c')) + Messages(100, 50);
  std::thread writer([&] { SendAll(pair.client, up); });
  SendAll(pair.upstream, down);
  EXPECT_EQ(Read(pair.upstream, 10, up.size()), up);
  EXPECT_EQ(Read(pair.client, 10, down.size()), down);
  writer.join();
  // The client closes: the upstream side is closed once everything was written.
  close(pair.client);
  pair.client = -1;
  bool closed = false;
  EXPECT_EQ(Read(pair.upstream, 5, SIZE_MAX, &closed), "");
  EXPECT_TRUE(closed);
  ChaosProxyStats stats = proxy->Stats();
  EXPECT_EQ(stats.Faults(), 0);
  EXPECT_EQ(stats.messages, 152);  // a two-frame message counts once
  EXPECT_EQ(stats.connections, 1);
}

TEST(ChaosProxyTest, AnUpstreamThatIsDownClosesTheClientUntilItIsUp) {
  std::unique_ptr<ChaosProxy> proxy;
  int port = 0;
  {
    Listener gone;  // a port that was free: nothing listens there once it closes
    ChaosProxyOptions options;
    options.upstream = gone.address();
    port = ParseTcpAddress(gone.address(), "upstream").port;
    proxy = std::make_unique<ChaosProxy>(options);
  }
  proxy->Start();
  Pair refused;
  refused.client = Connect(proxy->port());
  bool closed = false;
  Read(refused.client, 5, SIZE_MAX, &closed);
  EXPECT_TRUE(closed);
  EXPECT_GE(proxy->Stats().upstream_failures, 1);
  // The upstream comes up on that port: the next connections are forwarded.
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(listen(fd, 16), 0);
  for (int i = 0; i < 3; ++i) {
    Pair pair;
    pair.client = Connect(proxy->port());
    SendAll(pair.client, Greeting());
    pollfd p{fd, POLLIN, 0};
    ASSERT_EQ(poll(&p, 1, 5000), 1);
    pair.upstream = accept4(fd, nullptr, nullptr, SOCK_CLOEXEC);
    EXPECT_EQ(Read(pair.upstream, 5, 64), Greeting());
  }
  close(fd);
  ChaosProxyStats stats = proxy->Stats();
  EXPECT_EQ(stats.connections - stats.upstream_failures, 3);
}

// Sends `count` messages from the client, closes it, and returns what the upstream got after
// the handshake, up to its close.
std::string Through(ChaosProxy& proxy, Listener& listener, int count) {
  Pair pair;
  Open(proxy, listener, pair);
  SendAll(pair.client, Messages(0, count));
  shutdown(pair.client, SHUT_WR);
  bool closed = false;
  std::string got = Read(pair.upstream, 10, SIZE_MAX, &closed);
  EXPECT_TRUE(closed);
  return got;
}

TEST(ChaosProxyTest, DropLosesMessagesButNotTheHandshake) {
  Listener listener;
  auto proxy = StartProxy(listener, "drop=1");
  EXPECT_EQ(Through(*proxy, listener, 5), "");
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kDrop)], 5);
}

TEST(ChaosProxyTest, DuplicateSendsEachMessageTwice) {
  Listener listener;
  auto proxy = StartProxy(listener, "duplicate=1");
  std::string expected;
  for (int i = 0; i < 3; ++i) expected += Messages(i, 1) + Messages(i, 1);
  EXPECT_EQ(Through(*proxy, listener, 3), expected);
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kDuplicate)], 3);
}

TEST(ChaosProxyTest, ReorderSwapsAMessageWithTheNext) {
  Listener listener;
  auto proxy = StartProxy(listener, "reorder=1");
  // The first of each pair is held and goes out after the second; the fifth, with none after
  // it, goes out when the client closes.
  EXPECT_EQ(Through(*proxy, listener, 5),
            Messages(1, 1) + Messages(0, 1) + Messages(3, 1) + Messages(2, 1) + Messages(4, 1));
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kReorder)], 3);
}

TEST(ChaosProxyTest, ReorderReleasesAHeldMessageAfterTheHoldTime) {
  Listener listener;
  auto proxy = StartProxy(listener, "reorder=1");
  Pair pair;
  Open(*proxy, listener, pair);
  SendAll(pair.client, Messages(0, 1));
  EXPECT_EQ(Read(pair.upstream, 5, Messages(0, 1).size()), Messages(0, 1));
}

TEST(ChaosProxyTest, DelayHoldsAMessageBack) {
  Listener listener;
  auto proxy = StartProxy(listener, "delay=1", 1, 400);
  Pair pair;
  Open(*proxy, listener, pair);
  double sent = Now();
  SendAll(pair.client, Messages(0, 2));
  EXPECT_EQ(Read(pair.upstream, 5, Messages(0, 2).size()), Messages(0, 2));
  EXPECT_GE(Now() - sent, 0.2);  // between half the delay and the delay
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kDelay)], 2);
}

TEST(ChaosProxyTest, TruncateCutsAMessageAndClosesTheConnection) {
  Listener listener;
  auto proxy = StartProxy(listener, "truncate=1");
  Pair pair;
  Open(*proxy, listener, pair);
  std::string message = Frame(std::string(1000, 'm'));
  SendAll(pair.client, message + Messages(0, 3));
  bool closed = false;
  std::string got = Read(pair.upstream, 5, SIZE_MAX, &closed);
  EXPECT_TRUE(closed);
  EXPECT_GE(got.size(), 1u);
  EXPECT_LT(got.size(), message.size());
  EXPECT_EQ(got, message.substr(0, got.size()));
  Read(pair.client, 5, SIZE_MAX, &closed);
  EXPECT_TRUE(closed);
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kTruncate)], 1);
}

TEST(ChaosProxyTest, CorruptFlipsOneByteOfTheBody) {
  Listener listener;
  auto proxy = StartProxy(listener, "corrupt=1");
  std::string sent = Messages(0, 20);
  std::string got = Through(*proxy, listener, 20);
  ASSERT_EQ(got.size(), sent.size());
  int differ = 0;
  for (size_t i = 0; i < sent.size(); ++i) differ += sent[i] != got[i];
  EXPECT_EQ(differ, 20);
  // One byte per message, never in a frame's header: each frame is where it was.
  size_t at = 0;
  for (int i = 0; i < 20; ++i) {
    std::string one = Messages(i, 1);
    EXPECT_EQ(got.substr(at, 2), one.substr(0, 2));
    at += one.size();
  }
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kCorrupt)], 20);
}

TEST(ChaosProxyTest, PartitionClosesEverythingRefusesThenRecovers) {
  Listener listener;
  auto proxy = StartProxy(listener, "partition=1", 1, 100, 2);
  Pair bystander;  // another connection, closed by the partition too
  Open(*proxy, listener, bystander);
  Pair pair;
  Open(*proxy, listener, pair);
  double start = Now();
  SendAll(pair.client, Messages(0, 1));
  bool closed = false;
  EXPECT_EQ(Read(pair.upstream, 5, SIZE_MAX, &closed), "");
  EXPECT_TRUE(closed);
  Read(bystander.client, 5, SIZE_MAX, &closed);
  EXPECT_TRUE(closed);
  // During the partition a connection is accepted and closed at once, never forwarded.
  Pair refused;
  refused.client = Connect(proxy->port());
  Read(refused.client, 5, SIZE_MAX, &closed);
  EXPECT_TRUE(closed);
  EXPECT_LT(Now() - start, 2);
  EXPECT_GE(proxy->Stats().refused, 1);
  // Once it ends, a new connection is forwarded again (its greeting reaches the listener).
  bool recovered = false;
  double deadline = Now() + 10;
  while (!recovered && Now() < deadline) {
    Pair again;
    again.client = Connect(proxy->port());
    SendAll(again.client, Greeting());
    again.upstream = listener.Accept(0.2);
    recovered = again.upstream >= 0 && Read(again.upstream, 2, 64) == Greeting();
  }
  EXPECT_TRUE(recovered);
  EXPECT_GE(Now() - start, 2);
  EXPECT_EQ(proxy->Stats().faults[static_cast<size_t>(FaultKind::kPartition)], 1);
}

TEST(ChaosProxyTest, TheSameSeedGivesTheSameFaults) {
  auto run = [](uint64_t seed) {
    Listener listener;
    auto proxy = StartProxy(listener, "drop=0.2,duplicate=0.2,corrupt=0.2,delay=0.1", seed, 20);
    std::string got = Through(*proxy, listener, 200);
    std::vector<FaultEvent> log = proxy->FaultLog();
    ChaosProxyStats stats = proxy->Stats();
    EXPECT_EQ(static_cast<int64_t>(log.size()), stats.Faults());
    return std::make_pair(got, log);
  };
  auto [bytes, log] = run(5);
  EXPECT_GT(log.size(), 100u);
  auto [bytes_again, log_again] = run(5);
  EXPECT_EQ(log_again, log);
  EXPECT_EQ(bytes_again, bytes);
  auto [other_bytes, other_log] = run(6);
  EXPECT_NE(other_log, log);
}

TEST(ChaosProxyTest, ZeroMqPeersTalkThroughItMessageByMessage) {
  zmq::context_t context(1);
  zmq::socket_t router(context, zmq::socket_type::router);
  router.set(zmq::sockopt::linger, 0);
  router.bind("tcp://127.0.0.1:*");
  std::string upstream = router.get(zmq::sockopt::last_endpoint);
  for (const char* faults : {"none", "duplicate=1"}) {
    ChaosProxyOptions options;
    options.upstream = upstream;
    ParseFaultSpec(faults, options.faults);
    ChaosProxy proxy(options);
    proxy.Start();
    zmq::socket_t dealer(context, zmq::socket_type::dealer);
    dealer.set(zmq::sockopt::linger, 0);
    dealer.connect(proxy.endpoint());
    int copies = std::string(faults) == "none" ? 1 : 2;
    std::vector<std::string> sent;
    for (int i = 0; i < 50; ++i) {
      sent.push_back(std::string(static_cast<size_t>(i * 97), 'x') + std::to_string(i));
      dealer.send(zmq::buffer(sent.back()), zmq::send_flags::none);
    }
    std::vector<std::string> got;
    std::string identity;
    router.set(zmq::sockopt::rcvtimeo, 5000);
    for (int i = 0; i < 50 * copies; ++i) {
      zmq::message_t id, body;
      ASSERT_TRUE(router.recv(id)) << faults << ": message " << i << " did not come";
      ASSERT_TRUE(router.recv(body));
      identity = id.to_string();
      got.push_back(body.to_string());
    }
    for (int i = 0; i < 50; ++i) {
      for (int k = 0; k < copies; ++k) EXPECT_EQ(got[static_cast<size_t>(i * copies + k)], sent[i]);
    }
    // And back to the dealer.
    router.send(zmq::buffer(identity), zmq::send_flags::sndmore);
    router.send(zmq::buffer(std::string("reply")), zmq::send_flags::none);
    dealer.set(zmq::sockopt::rcvtimeo, 5000);
    for (int k = 0; k < copies; ++k) {
      zmq::message_t reply;
      ASSERT_TRUE(dealer.recv(reply));
      EXPECT_EQ(reply.to_string(), "reply");
    }
    EXPECT_EQ(proxy.Stats().faults[static_cast<size_t>(FaultKind::kDuplicate)],
              copies == 2 ? 51 : 0);
  }
}

}  // namespace
}  // namespace kiln::tools
