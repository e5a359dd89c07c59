// Waiting on ZeroMQ sockets in the daemons and the CLI: zmq::poll throws when a signal
// interrupts the wait (EINTR), which is how SIGTERM and SIGINT reach a process that is
// waiting; every loop here checks its stop flag after each wait, so an interrupted wait is
// simply one that saw nothing.
#pragma once

#include <chrono>
#include <cstddef>
#include <zmq.hpp>

namespace kiln::schemas {

// zmq::poll over `items`; when a signal interrupts it, every revents is cleared and it
// returns normally. Other errors throw zmq::error_t as zmq::poll does.
void PollIgnoringSignals(zmq::pollitem_t* items, size_t count, std::chrono::milliseconds timeout);

}  // namespace kiln::schemas
