// Running a helper process (the C compiler, the sandbox runner) with a wall-clock limit.
// The child is started with posix_spawn (never fork: the caller may be multithreaded) as the
// leader of a new process group, so that a timeout, or the end of the run, kills everything
// it started (the compiler driver's cc1 and as, say) and nothing is left behind.
#pragma once

#include <string>
#include <vector>

namespace kiln::runtime {

struct ProcessOptions {
  // argv[0] is a path, or a name looked up on PATH.
  std::vector<std::string> argv = {};
  // Added to (or overriding) the caller's environment, each "NAME=VALUE".
  std::vector<std::string> extra_env = {};
  // Seconds before the process group is killed; 0 means no limit.
  double time_limit_s = 0;
  // Capture stdout and stderr together (at most max_output_bytes are kept); otherwise both
  // go to /dev/null.
  bool capture_output = false;
  size_t max_output_bytes = 1 << 20;
};

struct ProcessResult {
  bool timed_out = false;
  bool exited = false;  // exited normally, with exit_code
  int exit_code = -1;
  int signal = 0;  // the signal that ended it, when it did not exit normally
  double wall_seconds = 0;
  std::string output;  // when captured
  int pid = 0;         // also the id of its (now killed) process group

  bool ok() const { return exited && exit_code == 0 && !timed_out; }
  // "exited with code 1", "killed by SIGSEGV (Segmentation fault)", "timed out after 2 s".
  std::string Describe() const;
};

// Runs the process to its end or its time limit. Throws kiln::Error(kIO) when it cannot be
// started (no such file, not executable), naming argv[0].
ProcessResult RunProcess(const ProcessOptions& options);

// "SIGSEGV" for SIGSEGV; "signal N" for one without a name.
std::string SignalName(int signal);

}  // namespace kiln::runtime
