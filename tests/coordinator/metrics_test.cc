// Metrics: the Prometheus text names every family with HELP and TYPE, every job and worker
// state (zero included, so that dashboards see a series from the start), and the counters;
// the endpoint answers an HTTP GET over a real TCP connection.
#include "coordinator/metrics.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace kiln::coordinator {
namespace {

using ::testing::HasSubstr;

TEST(Metrics, RendersEveryFamily) {
  MetricsSnapshot s;
  s.jobs_by_state = {{"running", 1}, {"done", 3}};
  s.workers_by_state = {{"busy", 2}};
  s.results_by_kind = {{"ok", 40}, {"timeout", 2}};
  s.trials_total = 42;
  s.trials_per_second = 1.5;
  s.queue_depth = 7;
  s.messages_dropped = 1;
  std::string text = RenderMetrics(s);
  EXPECT_THAT(text, HasSubstr("# TYPE kiln_jobs gauge\n"));
  EXPECT_THAT(text, HasSubstr("kiln_jobs{state=\"running\"} 1\n"));
  EXPECT_THAT(text, HasSubstr("kiln_jobs{state=\"failed\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("kiln_workers{state=\"busy\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("kiln_workers{state=\"lost\"} 0\n"));
  EXPECT_THAT(text, HasSubstr("kiln_results_total{kind=\"timeout\"} 2\n"));
  EXPECT_THAT(text, HasSubstr("kiln_trials_total 42\n"));
  EXPECT_THAT(text, HasSubstr("kiln_trials_per_second 1.5\n"));
  EXPECT_THAT(text, HasSubstr("kiln_queue_depth 7\n"));
  EXPECT_THAT(text, HasSubstr("kiln_messages_dropped_total 1\n"));
}

TEST(Metrics, EndpointAnswersAGet) {
  zmq::context_t context(1);
  MetricsEndpoint endpoint(context, "tcp://127.0.0.1:*");
  std::string address = endpoint.socket().get(zmq::sockopt::last_endpoint);
  int port = std::stoi(address.substr(address.rfind(':') + 1));
  std::string response;
  std::atomic<bool> done{false};
  std::thread client([&] {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    std::string request = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n";
    ASSERT_EQ(send(fd, request.data(), request.size(), 0), static_cast<ssize_t>(request.size()));
    char buffer[4096];
    ssize_t n = 0;
    while ((n = recv(fd, buffer, sizeof(buffer), 0)) > 0) response.append(buffer, n);
    close(fd);
    done = true;
  });
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < deadline && !done) {
    zmq::pollitem_t items[] = {{endpoint.socket().handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 1, std::chrono::milliseconds(20));
    if (items[0].revents & ZMQ_POLLIN) endpoint.Serve("kiln_trials_total 5\n");
  }
  client.join();
  EXPECT_THAT(response, HasSubstr("HTTP/1.0 200 OK"));
  EXPECT_THAT(response, HasSubstr("text/plain; version=0.0.4"));
  EXPECT_THAT(response, HasSubstr("\r\n\r\nkiln_trials_total 5\n"));
}

}  // namespace
}  // namespace kiln::coordinator
