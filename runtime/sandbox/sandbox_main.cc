// kiln-sandbox: builds or runs one candidate kernel in its own process, so that a crash or a
// hang takes down only this process. Usage: kiln-sandbox REQUEST.json RESULT.json
// (runtime/sandbox_protocol.h). The result file is written only when the request was carried
// out, whole or not at all; a crash leaves none, and the client reads the signal instead. A
// request it cannot carry out exits with kSandboxFaultExitStatus: the machinery's fault, not
// the candidate's. A first run that the early cutoff abandons ends the process from the
// watchdog's thread once its result is written.
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <exception>
#include <string>

#include "runtime/file_util.h"
#include "runtime/sandbox_protocol.h"
#include "runtime/sandbox_runner.h"

// In a sanitizer build (make sanitize), AddressSanitizer would catch the candidate kernel's
// crash signals and exit with status 1; the client must see the signal itself, as in a plain
// build. The runtime reads this hook only when the process is sanitized.
extern "C" const char* __asan_default_options() {
  return "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0";
}

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
  using namespace kiln::runtime;
  try {
    SandboxRequest request = RequestFromJson(ReadWholeFile(argv[1]), argv[1]);
    const std::string result_path = argv[2];
    // The kernel is still running on the main thread: write the result and end the process
    // with it, as a crash would, without unwinding or running exit handlers.
    auto on_abandon = [&](const SandboxResult& abandoned) {
      try {
        WriteFileAtomically(result_path, ResultToJson(abandoned));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "kiln-sandbox: %s\n", e.what());
        _exit(kSandboxFaultExitStatus);
      }
      _exit(0);
    };
    SandboxResult result = RunSandboxRequest(request, on_abandon);
    WriteFileAtomically(result_path, ResultToJson(result));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kiln-sandbox: %s\n", e.what());
    return kSandboxFaultExitStatus;
  }
  return 0;
}
