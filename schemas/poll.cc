// zmq::poll with an interrupted wait taken as an empty one (schemas/poll.h).
#include "schemas/poll.h"

#include <cerrno>

namespace kiln::schemas {

void PollIgnoringSignals(zmq::pollitem_t* items, size_t count, std::chrono::milliseconds timeout) {
  try {
    zmq::poll(items, count, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() != EINTR) throw;
    for (size_t i = 0; i < count; ++i) items[i].revents = 0;
  }
}

}  // namespace kiln::schemas
