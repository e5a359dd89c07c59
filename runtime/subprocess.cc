// RunProcess: posix_spawn into a new process group, wait on a pidfd with a deadline, kill the
// group on timeout and before reaping.
#include "runtime/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <map>
#include <thread>

#include "support/error.h"

extern char** environ;

namespace kiln::runtime {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Closes a file descriptor when it goes out of scope.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) close(fd);
  }
};

std::vector<std::string> MergedEnvironment(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> by_name;
  std::vector<std::string> order;
  auto add = [&](const std::string& entry) {
    std::string name = entry.substr(0, entry.find('='));
    if (!by_name.count(name)) order.push_back(name);
    by_name[name] = entry;
  };
  for (char** e = environ; e && *e; ++e) add(*e);
  for (const std::string& entry : extra) add(entry);
  std::vector<std::string> env;
  env.reserve(order.size());
  for (const std::string& name : order) env.push_back(by_name[name]);
  return env;
}

std::vector<char*> CStrings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (std::string& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Blocks until `pid` has exited (without reaping it) or `timeout_s` (< 0: forever) passes.
// Returns false on timeout. A pidfd makes this an exact wait; where the kernel has none, a
// short poll of waitid(WNOWAIT) stands in.
bool WaitForExit(pid_t pid, double timeout_s) {
  Fd pidfd{static_cast<int>(syscall(SYS_pidfd_open, pid, 0))};
  Clock::time_point deadline =
      Clock::now() +
      std::chrono::microseconds(static_cast<int64_t>(std::max(timeout_s, 0.0) * 1e6));
  while (true) {
    int wait_ms = -1;
    if (timeout_s >= 0) {
      double left = std::chrono::duration<double>(deadline - Clock::now()).count();
      if (left <= 0) left = 0;
      wait_ms = static_cast<int>(std::ceil(left * 1000));
    }
    if (pidfd.fd >= 0) {
      pollfd p{pidfd.fd, POLLIN, 0};
      int n = poll(&p, 1, wait_ms);
      if (n > 0) return true;
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) return false;
      throw Error(ErrorKind::kIO, std::string("poll on child process: ") + std::strerror(errno));
    }
    siginfo_t info{};
    if (waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 && info.si_pid == pid) {
      return true;
    }
    if (wait_ms == 0) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

std::string ReadAll(int fd, size_t max_bytes) {
  std::string out;
  if (lseek(fd, 0, SEEK_SET) < 0) return out;
  char buf[65536];
  while (out.size() < max_bytes) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  if (out.size() > max_bytes) out.resize(max_bytes);
  return out;
}

}  // namespace

std::string SignalName(int signal) {
  const char* abbrev = sigabbrev_np(signal);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(signal);
}

std::string ProcessResult::Describe() const {
  char limit[32];
  if (timed_out) {
    std::snprintf(limit, sizeof limit, "%.3g", wall_seconds);
    return std::string("timed out after ") + limit + " s";
  }
  if (exited) return "exited with code " + std::to_string(exit_code);
  const char* text = sigdescr_np(signal);
  return "killed by " + SignalName(signal) + (text ? std::string(" (") + text + ")" : "");
}

ProcessResult RunProcess(const ProcessOptions& options) {
  KILN_CHECK(!options.argv.empty(), ErrorKind::kInternal, "RunProcess: empty argv");
  std::vector<std::string> argv_strings = options.argv;
  std::vector<std::string> env_strings = MergedEnvironment(options.extra_env);
  std::vector<char*> argv = CStrings(argv_strings);
  std::vector<char*> envp = CStrings(env_strings);

  Fd output;
  if (options.capture_output) {
    output.fd = memfd_create("kiln-process-output", MFD_CLOEXEC);
    KILN_CHECK(output.fd >= 0, ErrorKind::kIO,
               std::string("memfd_create for process output: ") + std::strerror(errno));
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  if (options.capture_output) {
    posix_spawn_file_actions_adddup2(&actions, output.fd, 1);
    posix_spawn_file_actions_adddup2(&actions, output.fd, 2);
  } else {
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
  }
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setpgroup(&attr, 0);
  // The child starts with default signal dispositions and an empty mask whatever the caller
  // has blocked or ignored (a test runner, a daemon).
  sigset_t all, none;
  sigfillset(&all);
  sigemptyset(&none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr,
                           POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  Clock::time_point start = Clock::now();
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  KILN_CHECK(rc == 0, ErrorKind::kIO,
             "cannot start '" + options.argv[0] + "': " + std::strerror(rc));

  ProcessResult result;
  result.pid = pid;
  bool finished = WaitForExit(pid, options.time_limit_s > 0 ? options.time_limit_s : -1);
  result.timed_out = !finished;
  // The leader is exited but not yet reaped (or still running), so its pid cannot have been
  // reused: killing the group reaches only what this process started.
  kill(-pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.wall_seconds = SecondsSince(start);
  if (!result.timed_out) {
    if (WIFEXITED(status)) {
      result.exited = true;
      result.exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
      result.signal = WTERMSIG(status);
    }
  }
  if (options.capture_output) result.output = ReadAll(output.fd, options.max_output_bytes);
  return result;
}

}  // namespace kiln::runtime
