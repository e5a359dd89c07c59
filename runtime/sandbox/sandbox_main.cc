// kiln-sandbox: builds or runs one candidate kernel in its own process, so that a crash or a
// hang takes down only this process. Usage: kiln-sandbox REQUEST.json RESULT.json
// (runtime/sandbox_protocol.h). Before the candidate's code runs, the process locks itself
// down (runtime/sandbox_lockdown.h): from then on it opens no file, so RESULT.json is opened
// (empty) at the start and filled once the request was carried out; the client reads it only
// after a normal exit. A crash or a forbidden system call leaves it unfilled, and the client
// reads the signal instead. A request it cannot carry out exits with
// kSandboxFaultExitStatus: the machinery's fault, not the candidate's. A first run that the
// early cutoff abandons ends the process from the watchdog's thread once its result is
// written.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>

#include "runtime/file_util.h"
#include "runtime/runner_asan_options.h"
#include "runtime/sandbox_lockdown.h"
#include "runtime/sandbox_protocol.h"
#include "runtime/sandbox_runner.h"

namespace {

using namespace kiln::runtime;

// The largest file the locked-down process writes: a dumped tensor argument, or the result.
constexpr int64_t kResultFileBytes = int64_t{16} << 20;

LockdownLimits LimitsFor(const SandboxRequest& request) {
  LockdownLimits limits;
  limits.process_name = "kiln-sandbox";
  limits.cpu_seconds = request.cpu_limit_s;
  limits.file_bytes = kResultFileBytes;
  for (const ArgSpec& arg : request.args) {
    if (arg.kind == ArgSpec::Kind::kInt || arg.kind == ArgSpec::Kind::kFloat) continue;
    int64_t bytes = arg.dtype.bytes() * arg.dtype.lanes();
    for (int64_t extent : arg.shape) bytes *= std::max<int64_t>(extent, 1);
    limits.file_bytes = std::max(limits.file_bytes, bytes);
  }
  // A candidate may map up to half of the machine's memory beyond what the runner mapped
  // for its arguments: a runaway allocation fails in the runner, not on the worker's host.
  limits.address_space_bytes = std::max<int64_t>(
      int64_t{1} << 30, int64_t{sysconf(_SC_PHYS_PAGES)} * sysconf(_SC_PAGESIZE) / 2);
  return limits;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: kiln-sandbox REQUEST.json RESULT.json\n");
    return kiln::runtime::kSandboxFaultExitStatus;
  }
  // A crashing candidate should die at once, without writing a core file.
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  // The client keeps what this process writes to stderr for its messages (where the C
  // library reports an abort); a kernel printing to stdout must not fill that.
  int null_fd = open("/dev/null", O_WRONLY);
  if (null_fd >= 0) {
    dup2(null_fd, STDOUT_FILENO);
    close(null_fd);
  }
  try {
    SandboxRequest request = RequestFromJson(ReadWholeFile(argv[1]), argv[1]);
    PreopenedFile result_file(argv[2]);
    auto write_result = [&](const SandboxResult& result) {
      std::string text = ResultToJson(result);
      result_file.Write(text.data(), text.size());
    };
    // The kernel is still running on the main thread: write the result and end the process
    // with it, as a crash would, without unwinding or running exit handlers.
    auto on_abandon = [&](const SandboxResult& abandoned) {
      try {
        write_result(abandoned);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "kiln-sandbox: %s\n", e.what());
        _exit(kSandboxFaultExitStatus);
      }
      _exit(0);
    };
    SandboxResult result =
        RunSandboxRequest(request, on_abandon, [&] { LockDownProcess(LimitsFor(request)); });
    write_result(result);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln-sandbox: %s\n", e.what());
    return kSandboxFaultExitStatus;
  }
  return 0;
}
