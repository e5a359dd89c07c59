// Talking to a coordinator from `tune`: one request, one reply, over a DEALER socket with a
// deadline, so that a coordinator that is down is an error that names its address rather
// than a hang. An error reply from the coordinator becomes a kiln::Error of its kind.
#pragma once

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

}  // namespace kiln::cli

namespace kiln::cli {

// Polls the job every `interval_s` until it is done, failed or cancelled, printing its table
// (or, with `json`, its JSON line) each time it changes; returns the last state.
schemas::JobEventMsg WatchJob(const std::string& address, uint64_t job_id, bool json,
                              double interval_s = 0.5);

}  // namespace kiln::cli
