// A signal that interrupts a wait on a socket (how SIGTERM reaches a daemon that is waiting)
// ends the wait quietly: zmq::poll alone throws EINTR, which once ended the coordinator with an
// "Interrupted system call" error instead of a clean stop.
#include "schemas/poll.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/time.h>

#include <atomic>

namespace kiln::schemas {
namespace {

std::atomic<int> g_alarms{0};
void OnAlarm(int) { ++g_alarms; }

TEST(PollTest, ASignalDuringTheWaitIsAnEmptyWait) {
  struct sigaction action = {};
  action.sa_handler = OnAlarm;  // no SA_RESTART: poll returns EINTR
  struct sigaction previous = {};
  ASSERT_EQ(sigaction(SIGALRM, &action, &previous), 0);
  zmq::context_t context;
  zmq::socket_t socket(context, zmq::socket_type::pull);
  socket.bind("inproc://poll-test");
  zmq::pollitem_t items[] = {{socket.handle(), 0, ZMQ_POLLIN, 0}};
  itimerval timer = {};
  timer.it_value.tv_usec = 20 * 1000;  // fires once, 20 ms into a 2 s wait
  ASSERT_EQ(setitimer(ITIMER_REAL, &timer, nullptr), 0);
  EXPECT_NO_THROW(PollIgnoringSignals(items, 1, std::chrono::milliseconds(2000)));
  EXPECT_EQ(items[0].revents, 0);
  EXPECT_EQ(g_alarms.load(), 1);
  sigaction(SIGALRM, &previous, nullptr);
}

TEST(PollTest, AMessageIsSeen) {
  zmq::context_t context;
  zmq::socket_t pull(context, zmq::socket_type::pull);
  pull.bind("inproc://poll-test-message");
  zmq::socket_t push(context, zmq::socket_type::push);
  push.connect("inproc://poll-test-message");
  push.send(zmq::str_buffer("x"), zmq::send_flags::none);
  zmq::pollitem_t items[] = {{pull.handle(), 0, ZMQ_POLLIN, 0}};
  PollIgnoringSignals(items, 1, std::chrono::milliseconds(2000));
  EXPECT_TRUE(items[0].revents & ZMQ_POLLIN);
}

}  // namespace
}  // namespace kiln::schemas
