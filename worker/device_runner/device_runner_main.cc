// kiln-device-runner: the runner-only worker of a phone or board. It has no compiler: a host
// (kiln-worker --device-runner) builds each candidate for this device's triple and sends the
// shared object; the runner loads it in a child process, runs and times it, and answers
// (runtime/remote_cpu/runner_protocol.h). It depends on the C++ standard library and POSIX
// only, so that it cross-compiles for aarch64 Linux and Android alone.
//   kiln-device-runner --listen HOST:PORT   serve hosts over TCP (each connection in its own
//                                           process; their kernels run one at a time)
//   kiln-device-runner --stdio              serve one host over standard input and output
//   kiln-device-runner --describe           print the device's facts and exit
// Options: --emulated (timings are an emulator's, whatever the detection says), --work-dir
// DIR (where libraries are written; default a private folder under $TMPDIR, /data/local/tmp
// on Android, or /tmp), --once (exit after the first TCP session), --verbose.
#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>

#include "support/error.h"
#include "worker/device_runner/device_facts.h"
#include "worker/device_runner/runner_session.h"

namespace {

using kiln::worker::device_runner::DescribeThisDevice;
using kiln::worker::device_runner::ServeSession;
using kiln::worker::device_runner::SessionOptions;

char g_work_dir[4096] = {};
char g_run_lock[4200] = {};
pid_t g_main_pid = 0;

// The work folder holds only the run lock between runs (each library is removed after its
// run): removing both is all a signal needs to do, in the main process only.
void RemoveWorkDir() {
  if (g_main_pid != getpid()) return;
  if (g_run_lock[0] != '\0') unlink(g_run_lock);
  if (g_work_dir[0] != '\0') rmdir(g_work_dir);
}
void OnSignal(int sig) {
  RemoveWorkDir();
  _exit(128 + sig);
}

int Usage(const char* message) {
  std::fprintf(stderr,
               "kiln-device-runner: %s\n"
               "usage: kiln-device-runner (--listen HOST:PORT | --stdio | --describe) "
               "[--emulated] [--work-dir DIR] [--once] [--verbose]\n",
               message);
  return 2;
}

std::string MakeWorkDir(const std::string& parent_hint) {
  std::string parent = parent_hint;
  if (parent.empty()) {
    const char* tmp = std::getenv("TMPDIR");
    parent = tmp && *tmp ? tmp : "";
  }
  if (parent.empty()) parent = access("/tmp", W_OK) == 0 ? "/tmp" : "/data/local/tmp";
  std::string pattern = parent + "/kiln-device-runner-XXXXXX";
  KILN_CHECK(mkdtemp(pattern.data()) != nullptr, kiln::ErrorKind::kIO,
             "cannot create a work folder from " + pattern + ": " + std::strerror(errno) +
                 " (give a writable --work-dir)");
  return pattern;
}

int Listen(const std::string& address, std::string* bound) {
  size_t colon = address.rfind(':');
  KILN_CHECK(colon != std::string::npos && colon + 1 < address.size(), kiln::ErrorKind::kParse,
             "--listen " + address + ": HOST:PORT expected");
  std::string host = address.substr(0, colon);
  std::string port = address.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.empty() ? nullptr : host.c_str(), port.c_str(), &hints, &found);
  KILN_CHECK(rc == 0, kiln::ErrorKind::kIO,
             "--listen " + address + ": " + std::string(gai_strerror(rc)));
  int fd = -1;
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, a->ai_addr, a->ai_addrlen) != 0 || listen(fd, 4) != 0) {
      last_error = std::strerror(errno);
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  KILN_CHECK(fd >= 0, kiln::ErrorKind::kIO, "--listen " + address + ": " + last_error);
  sockaddr_storage addr{};
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  char text[INET6_ADDRSTRLEN] = {};
  int bound_port = 0;
  if (addr.ss_family == AF_INET) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    inet_ntop(AF_INET, &in->sin_addr, text, sizeof text);
    bound_port = ntohs(in->sin_port);
  } else {
    auto* in6 = reinterpret_cast<sockaddr_in6*>(&addr);
    inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof text);
    bound_port = ntohs(in6->sin6_port);
  }
  *bound = std::string(text) + ":" + std::to_string(bound_port);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  std::string listen_address, work_dir_hint;
  bool stdio = false, describe = false, emulated = false, once = false, verbose = false;
  const std::map<std::string, bool*> flags = {{"--stdio", &stdio},
                                              {"--describe", &describe},
                                              {"--emulated", &emulated},
                                              {"--once", &once},
                                              {"--verbose", &verbose}};
  const std::map<std::string, std::string*> valued = {{"--listen", &listen_address},
                                                      {"--work-dir", &work_dir_hint}};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (auto flag = flags.find(arg); flag != flags.end()) {
      *flag->second = true;
    } else if (auto option = valued.find(arg); option != valued.end()) {
      if (i + 1 >= argc) return Usage((arg + " needs a value").c_str());
      *option->second = argv[++i];
    } else if (arg == "--help" || arg == "-h") {
      Usage("runs and times kernels that a host built for this device");
      return 0;
    } else {
      return Usage(("unknown argument " + arg).c_str());
    }
  }
  if (static_cast<int>(stdio) + static_cast<int>(describe) + (listen_address.empty() ? 0 : 1) !=
      1) {
    return Usage("give exactly one of --listen HOST:PORT, --stdio, --describe");
  }
  kiln::runtime::remote_cpu::RunnerFacts facts = DescribeThisDevice(emulated);
  if (describe) {
    std::printf(
        "triple: %s\nos: %s\nkernel: %s\nmodel: %s\ncpu: %s\nfeatures: %s\ncores: %d\n"
        "page_size: %lld\nemulated: %s\n",
        facts.triple.c_str(), facts.os.c_str(), facts.kernel.c_str(), facts.model.c_str(),
        facts.cpu.c_str(), facts.features.c_str(), facts.cores,
        static_cast<long long>(facts.page_size),
        facts.emulated ? ("yes: " + facts.emulation).c_str() : "no");
    return 0;
  }
  signal(SIGPIPE, SIG_IGN);
  try {
    std::string work_dir = MakeWorkDir(work_dir_hint);
    std::snprintf(g_work_dir, sizeof g_work_dir, "%s", work_dir.c_str());
    std::snprintf(g_run_lock, sizeof g_run_lock, "%s",
                  kiln::worker::device_runner::RunLockPath(work_dir).c_str());
    g_main_pid = getpid();
    signal(SIGTERM, OnSignal);
    signal(SIGINT, OnSignal);
    SessionOptions options{work_dir, {}, verbose};
    if (stdio) {
      ServeSession(0, 1, facts, options);
      RemoveWorkDir();
      return 0;
    }
    std::string bound;
    int listener = Listen(listen_address, &bound);
    std::fprintf(stderr, "kiln-device-runner: listening on %s (%s, %s, %d cores%s%s)\n",
                 bound.c_str(), facts.triple.c_str(), facts.cpu.c_str(), facts.cores,
                 facts.emulated ? "; emulated: " : "", facts.emulation.c_str());
    while (true) {
      int fd = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
      if (fd < 0) {
        if (errno == EINTR || errno == ECONNABORTED) continue;
        throw kiln::Error(kiln::ErrorKind::kIO, std::string("accept: ") + std::strerror(errno));
      }
      // A host that vanishes without closing (a phone off the network) ends its session.
      int keepalive = 1;
      setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &keepalive, sizeof keepalive);
      // Finished sessions are reaped as the next one comes.
      while (waitpid(-1, nullptr, WNOHANG) > 0) {
      }
      pid_t session = fork();
      if (session < 0) {
        std::fprintf(stderr, "kiln-device-runner: fork: %s\n", std::strerror(errno));
        close(fd);
        continue;
      }
      if (session == 0) {
        // A session in its own process: a host that waits on one connection never keeps
        // another from being served.
        signal(SIGTERM, SIG_DFL);
        signal(SIGINT, SIG_DFL);
        close(listener);
        kiln::worker::device_runner::SessionSummary s = ServeSession(fd, fd, facts, options);
        if (verbose) {
          std::fprintf(stderr, "kiln-device-runner: session ended: %d runs, %d errors\n", s.runs,
                       s.errors);
        }
        _exit(0);
      }
      close(fd);
      if (once) {
        while (waitpid(session, nullptr, 0) < 0 && errno == EINTR) {
        }
        break;
      }
    }
    close(listener);
    RemoveWorkDir();
  } catch (const kiln::Error& e) {
    std::fprintf(stderr, "kiln-device-runner: %s: %s\n",
                 std::string(kiln::ErrorKindName(e.kind())).c_str(), e.what());
    RemoveWorkDir();
    return 1;
  }
  return 0;
}
