// ServeSession: the handshake, then run requests until bye or the end of the stream.
#include "worker/device_runner/runner_session.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

#include "support/error.h"
#include "worker/device_runner/candidate_run.h"

namespace kiln::worker::device_runner {
namespace {

using remote_cpu::FrameType;

const char* const kWhere = "the host's stream";

// Best effort: the host may already be gone.
void SendError(int out_fd, const std::string& message, SessionSummary& summary) {
  ++summary.errors;
  std::fprintf(stderr, "kiln-device-runner: error: %s\n", message.c_str());
  try {
    remote_cpu::WriteFrame(out_fd, FrameType::kError, remote_cpu::EncodeError(message), kWhere);
  } catch (const Error&) {
  }
}

// An exclusive lock on the work folder's lock file while it lives.
class RunLock {
 public:
  explicit RunLock(const std::string& work_dir) {
    std::string path = RunLockPath(work_dir);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    KILN_CHECK(fd_ >= 0, ErrorKind::kIO, "cannot open the run lock " + path);
    while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {
    }
  }
  ~RunLock() {
    ::flock(fd_, LOCK_UN);
    ::close(fd_);
  }
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

std::string RunLockPath(const std::string& work_dir) { return work_dir + "/run.lock"; }

SessionSummary ServeSession(int in_fd, int out_fd, const remote_cpu::RunnerFacts& facts,
                            const SessionOptions& options) {
  SessionSummary summary;
  std::vector<int> close_in_child = options.close_in_child;
  close_in_child.push_back(in_fd);
  if (out_fd != in_fd) close_in_child.push_back(out_fd);
  try {
    std::optional<remote_cpu::Frame> hello = remote_cpu::ReadFrame(in_fd, 0, kWhere);
    if (!hello) return summary;
    if (hello->type != FrameType::kHello) {
      SendError(out_fd,
                "expected a hello frame first, got a " + remote_cpu::FrameTypeName(hello->type) +
                    " frame",
                summary);
      return summary;
    }
    remote_cpu::Hello h = remote_cpu::DecodeHello(hello->payload, "the hello frame");
    // An empty triple asks only for the facts (a host choosing its toolchain).
    if (!h.triple.empty() && !remote_cpu::TriplesMatch(h.triple, facts.triple)) {
      SendError(out_fd,
                "wrong triple: this runner loads " + facts.triple +
                    " code, but the host builds for '" + h.triple + "' (cross-compile for " +
                    facts.triple + ")",
                summary);
      return summary;
    }
    remote_cpu::WriteFrame(out_fd, FrameType::kFacts, remote_cpu::EncodeFacts(facts), kWhere);

    while (true) {
      std::optional<remote_cpu::Frame> frame = remote_cpu::ReadFrame(in_fd, 0, kWhere);
      if (!frame) return summary;
      if (frame->type == FrameType::kBye) {
        summary.said_bye = true;
        return summary;
      }
      if (frame->type != FrameType::kRun) {
        SendError(out_fd,
                  "expected a run or bye frame, got a " + remote_cpu::FrameTypeName(frame->type) +
                      " frame",
                  summary);
        return summary;
      }
      remote_cpu::RunRequest request;
      try {
        request = remote_cpu::DecodeRunRequest(frame->payload, "run request");
      } catch (const Error& e) {
        // The frame was whole: the stream is still in step.
        SendError(out_fd, e.what(), summary);
        continue;
      }
      remote_cpu::RunResult result;
      {
        // One kernel at a time on the device, whichever session sent it: a kernel timed
        // beside another measures both.
        RunLock lock(options.work_dir);
        result = RunIsolated(request, options.work_dir, close_in_child);
      }
      ++summary.runs;
      if (options.verbose) {
        std::fprintf(stderr, "kiln-device-runner: run %llu (%s): %s, median %.6g s%s%s\n",
                     static_cast<unsigned long long>(request.id), request.symbol.c_str(),
                     remote_cpu::RunStatusName(result.status).c_str(), result.median_seconds,
                     result.message.empty() ? "" : ": ", result.message.c_str());
      }
      remote_cpu::WriteFrame(out_fd, FrameType::kResult, remote_cpu::EncodeRunResult(result),
                             kWhere);
    }
  } catch (const Error& e) {
    // A broken frame, an unwritable folder, a host gone mid-answer: said (if it can be) and
    // the session ends; the runner serves the next one.
    SendError(out_fd, e.what(), summary);
  }
  return summary;
}

}  // namespace kiln::worker::device_runner
