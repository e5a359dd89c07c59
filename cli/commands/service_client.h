// Talking to a coordinator from `tune`: one request, one reply, over a DEALER socket with a
// deadline, so that a coordinator that is down is an error that names its address rather
// than a hang. An error reply from the coordinator becomes a kiln::Error of its kind.
#pragma once

#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

#include "cli/commands/task_table.h"
#include "schemas/messages.h"
#include "support/error.h"

namespace kiln::cli {

// The default coordinator address: KILN_COORDINATOR, else tcp://127.0.0.1:7070.
std::string DefaultCoordinator();

// Sends `request` and returns the reply. kiln::Error(kIO) "ADDRESS: no answer within N s"
// when none comes; the coordinator's ErrorMsg is rethrown with its kind and message. A
// negative `timeout_s` means KILN_TIMEOUT_S, else 10 s.
schemas::Message Request(const std::string& address, const schemas::Message& request,
                         double timeout_s = -1);

// Request() whose answer must be a `Reply`: kiln::Error(kIO) "ADDRESS: answered a WHAT with
// MESSAGE" otherwise.
template <typename Reply>
Reply RequestReply(const std::string& address, const schemas::Message& request,
                   const std::string& what, double timeout_s = -1) {
  schemas::Message reply = Request(address, request, timeout_s);
  if (auto* typed = std::get_if<Reply>(&reply)) return std::move(*typed);
  throw Error(ErrorKind::kIO,
              address + ": answered " + what + " with " + schemas::MessageName(reply));
}

// The job as `tune status --json` prints it: {"job", "state", "trials_done", "trials_total",
// "tasks": [...]} plus model, target and message.
std::string JobJson(const schemas::JobEventMsg& job);
// Every job, as `tune status --json` prints them: {"jobs": [JobJson, ...]}.
std::string JobListJson(const schemas::JobListMsg& list);
// Every worker, as `tune workers --json` prints them: {"workers": [{"id", "device", "target",
// "state", "in_flight", "last_seen_s", "hardware"}, ...]}.
std::string WorkerListJson(const schemas::WorkerListMsg& list);
// The task table of a job, one line per task.
std::string JobTable(const schemas::JobEventMsg& job);

// Done, failed or cancelled: a job in such a state never changes again.
bool IsFinalState(const std::string& state);

// A subscription to one job's events, as `tune watch` follows them and kiln.Job.events()
// yields them. Events are pushed by the coordinator; after `keepalive_s` without one the job is
// subscribed to again, which also checks the coordinator is alive and survives its restart.
class JobWatch {
 public:
  JobWatch(const std::string& address, uint64_t job_id, double keepalive_s = 2);
  ~JobWatch();
  JobWatch(const JobWatch&) = delete;
  JobWatch& operator=(const JobWatch&) = delete;

  // The job's next event, waiting at most `wait_s`; none when none came in that time.
  // kiln::Error(kIO) when a subscription has had no answer within KILN_TIMEOUT_S (10 s), and
  // the coordinator's error (an unknown job) with its kind.
  std::optional<schemas::JobEventMsg> Next(double wait_s);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// Prints a job's events as `tune watch` does: the task table of `tune run` (redrawn in place
// when `tty`, a progress line per event otherwise) and at the final state the whole table and
// "job N STATE[: message]"; with `json` one JobJson line per change, the final state always.
class JobEventPrinter {
 public:
  JobEventPrinter(bool json, bool tty, std::ostream& out);
  void operator()(const schemas::JobEventMsg& event);

 private:
  bool json_;
  std::ostream& out_;
  ProgressPrinter printer_;
  std::string last_json_;
};

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
