// Talking to a coordinator from `tune`: one request, one reply, over a DEALER socket with a
// deadline, so that a coordinator that is down is an error that names its address rather
// than a hang. An error reply from the coordinator becomes a kiln::Error of its kind.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "schemas/messages.h"

namespace kiln::cli {

// The default coordinator address: KILN_COORDINATOR, else tcp://127.0.0.1:7070.
std::string DefaultCoordinator();

// Sends `request` and returns the reply. kiln::Error(kIO) "ADDRESS: no answer within N s"
// when none comes; the coordinator's ErrorMsg is rethrown with its kind and message. A
// negative `timeout_s` means KILN_TIMEOUT_S, else 10 s.
schemas::Message Request(const std::string& address, const schemas::Message& request,
                         double timeout_s = -1);

// The job as `tune status --json` prints it: {"job", "state", "trials_done", "trials_total",
// "tasks": [...]} plus model, target and message.
std::string JobJson(const schemas::JobEventMsg& job);
// The task table of a job, one line per task.
std::string JobTable(const schemas::JobEventMsg& job);

// Done, failed or cancelled: a job in such a state never changes again.
bool IsFinalState(const std::string& state);

struct WatchOptions {
  bool json = false;             // one JSON object (JobJson) per event line
  std::optional<bool> tty = {};  // redraw the table in place; default: stdout is a terminal
  std::ostream* out = nullptr;   // default std::cout
  double keepalive_s = 2;        // quiet this long: subscribe again (and check it is alive)
};

// Subscribes to the job's events and prints each as it is pushed (the task table of
// `tune run`, redrawn on a terminal, a progress line otherwise; with `json` one JSON line
// per change) until the job is done, failed or cancelled; the final state is printed last
// and returned. kiln::Error(kIO) when the coordinator stops answering.
schemas::JobEventMsg WatchJob(const std::string& address, uint64_t job_id,
                              const WatchOptions& options);

}  // namespace kiln::cli
