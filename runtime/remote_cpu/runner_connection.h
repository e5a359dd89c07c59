// RunnerConnection: the host's end of a session with kiln-device-runner
// (runner_protocol.h). The runner is reached at an address:
//   "HOST:PORT" or "tcp://HOST:PORT"  a runner listening on TCP (a board on the network, a
//                                     phone behind `adb forward tcp:7071 tcp:7071`);
//   "exec:COMMAND ARG..."             a runner started here that speaks on its standard input
//                                     and output (`exec:qemu-aarch64-static -L
//                                     /usr/aarch64-linux-gnu kiln-device-runner --stdio`);
//                                     arguments are split on spaces.
// Opening it says hello and reads the device's facts; a runner that refuses (another triple,
// another protocol version) is kiln::Error(kUnsupported) carrying its message.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "runtime/remote_cpu/runner_protocol.h"

namespace kiln::runtime::remote_cpu {

class RunnerConnection {
 public:
  // Connects to `address` and says hello for code built for `triple` (empty: whatever the
  // runner loads; the caller only reads its facts). Throws kiln::Error(kIO) naming the address
  // when it cannot be reached or does not answer within `timeout_s`, kiln::Error(kParse) for
  // an answer that is not the protocol, and kiln::Error(kUnsupported) when the runner refuses.
  static std::unique_ptr<RunnerConnection> Open(const std::string& address,
                                                const std::string& triple, double timeout_s);
  ~RunnerConnection();
  RunnerConnection(const RunnerConnection&) = delete;
  RunnerConnection& operator=(const RunnerConnection&) = delete;

  const RunnerFacts& facts() const { return facts_; }
  const std::string& address() const { return address_; }

  // Sends `request` and waits up to `timeout_s` for its result. Throws kiln::Error(kIO) when
  // the connection breaks or the time passes (the connection is then unusable), and
  // kiln::Error(kRuntime) with the runner's message when it answers with an error frame.
  RunResult Run(const RunRequest& request, double timeout_s);

 private:
  RunnerConnection() = default;
  std::string address_;
  int in_fd_ = -1;   // read from the runner
  int out_fd_ = -1;  // write to the runner
  pid_t child_ = -1;
  RunnerFacts facts_;
  bool broken_ = false;
};

}  // namespace kiln::runtime::remote_cpu
