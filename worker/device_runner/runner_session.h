// One host's session with kiln-device-runner (runtime/remote_cpu/runner_protocol.h): the
// hello and its answer (the device's facts, or an error naming the triple or version that
// does not match), then one result per run request, each candidate run in its own child
// (candidate_run.h). A request that cannot be decoded is answered by an error frame and the
// session goes on; a stream that is out of step (a truncated frame, a wrong magic) is answered
// by an error frame and closed. The session never throws for what the host sent. Sessions
// may run side by side (kiln-device-runner serves each TCP connection in its own process), but
// their kernels run one at a time: a lock file in the work folder (RunLockPath) is held around
// each run.
#pragma once

#include <string>
#include <vector>

#include "runtime/remote_cpu/runner_protocol.h"

namespace kiln::worker::device_runner {

namespace remote_cpu = ::kiln::runtime::remote_cpu;

struct SessionOptions {
  std::string work_dir;             // where candidates' libraries are written
  std::vector<int> close_in_child;  // descriptors a candidate's child closes (the listener)
  bool verbose = false;             // one line on standard error per run
};

struct SessionSummary {
  int runs = 0;
  int errors = 0;  // error frames sent
  bool said_bye = false;
};

// The lock file that serializes runs of the sessions sharing `work_dir`.
std::string RunLockPath(const std::string& work_dir);

// Serves frames read from `in_fd`, answering on `out_fd`, until the host says bye, the stream
// ends, or the stream is out of step.
SessionSummary ServeSession(int in_fd, int out_fd, const remote_cpu::RunnerFacts& facts,
                            const SessionOptions& options);

}  // namespace kiln::worker::device_runner
