// RunnerConnection: TCP connect or spawn with pipes, hello, and run requests with a deadline.
#include "runtime/remote_cpu/runner_connection.h"

#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <sstream>
#include <vector>

#include "support/error.h"

extern char** environ;

namespace kiln::runtime::remote_cpu {
namespace {

std::string ErrnoText() { return std::strerror(errno); }

// A TCP connection to HOST:PORT within `timeout_s`.
int ConnectTcp(const std::string& address, double timeout_s) {
  std::string hostport = address.rfind("tcp://", 0) == 0 ? address.substr(6) : address;
  size_t colon = hostport.rfind(':');
  KILN_CHECK(colon != std::string::npos && colon > 0 && colon + 1 < hostport.size(),
             ErrorKind::kParse,
             "device runner address '" + address +
                 "': HOST:PORT, tcp://HOST:PORT or exec:COMMAND expected");
  std::string host = hostport.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  std::string port = hostport.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found);
  KILN_CHECK(rc == 0, ErrorKind::kIO,
             "device runner " + address + ": " + std::string(gai_strerror(rc)));
  std::string last_error = "no address";
  int fd = -1;
  for (addrinfo* a = found; a != nullptr && fd < 0; a = a->ai_next) {
    fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, a->ai_protocol);
    if (fd < 0) continue;
    if (connect(fd, a->ai_addr, a->ai_addrlen) != 0) {
      if (errno == EINPROGRESS) {
        pollfd p{fd, POLLOUT, 0};
        int ready = poll(&p, 1, static_cast<int>(timeout_s * 1000));
        int err = 0;
        socklen_t len = sizeof err;
        if (ready == 1) getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
        if (ready == 1 && err == 0) break;
        last_error = ready == 0 ? "no answer within " + std::to_string(timeout_s) + " s"
                                : std::string(std::strerror(err ? err : errno));
      } else {
        last_error = ErrnoText();
      }
      close(fd);
      fd = -1;
    }
  }
  freeaddrinfo(found);
  KILN_CHECK(fd >= 0, ErrorKind::kIO,
             "cannot connect to the device runner at " + address + ": " + last_error);
  int flags = fcntl(fd, F_GETFL);
  fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return fd;
}

}  // namespace

std::unique_ptr<RunnerConnection> RunnerConnection::Open(const std::string& address,
                                                         const std::string& triple,
                                                         double timeout_s) {
  std::unique_ptr<RunnerConnection> c(new RunnerConnection);
  c->address_ = address;
  if (address.rfind("exec:", 0) == 0) {
    std::vector<std::string> argv;
    std::istringstream words(address.substr(5));
    for (std::string w; words >> w;) argv.push_back(w);
    KILN_CHECK(!argv.empty(), ErrorKind::kParse,
               "device runner address '" + address + "': exec: needs a command");
    int to_child[2], from_child[2];
    KILN_CHECK(pipe2(to_child, O_CLOEXEC) == 0 && pipe2(from_child, O_CLOEXEC) == 0, ErrorKind::kIO,
               "pipe: " + ErrnoText());
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, to_child[0], 0);
    posix_spawn_file_actions_adddup2(&actions, from_child[1], 1);
    std::vector<char*> args;
    for (std::string& a : argv) args.push_back(a.data());
    args.push_back(nullptr);
    pid_t pid = -1;
    int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    close(to_child[0]);
    close(from_child[1]);
    if (rc != 0) {
      close(to_child[1]);
      close(from_child[0]);
      throw Error(ErrorKind::kIO, "cannot start the device runner '" + address.substr(5) +
                                      "': " + std::strerror(rc));
    }
    c->child_ = pid;
    c->out_fd_ = to_child[1];
    c->in_fd_ = from_child[0];
  } else {
    int fd = ConnectTcp(address, timeout_s);
    c->in_fd_ = c->out_fd_ = fd;
  }
  const std::string where = "device runner " + address;
  WriteFrame(c->out_fd_, FrameType::kHello, EncodeHello({kRunnerProtocolVersion, triple}), where);
  std::optional<Frame> answer = ReadFrame(c->in_fd_, timeout_s, where);
  KILN_CHECK(answer.has_value(), ErrorKind::kIO,
             where + ": the runner closed the connection without answering hello");
  if (answer->type == FrameType::kError) {
    throw Error(ErrorKind::kUnsupported,
                where + " refused: " + DecodeError(answer->payload, where + " error"));
  }
  KILN_CHECK(answer->type == FrameType::kFacts, ErrorKind::kParse,
             where + ": expected facts in answer to hello, got a " + FrameTypeName(answer->type) +
                 " frame");
  c->facts_ = DecodeFacts(answer->payload, where + " facts");
  KILN_CHECK(triple.empty() || TriplesMatch(triple, c->facts_.triple), ErrorKind::kUnsupported,
             where + " runs " + c->facts_.triple + " code, not " + triple);
  return c;
}

RunnerConnection::~RunnerConnection() {
  if (out_fd_ >= 0 && !broken_) {
    // Best effort: a runner that is gone needs no goodbye.
    try {
      WriteFrame(out_fd_, FrameType::kBye, "", "device runner " + address_);
    } catch (const Error&) {
    }
  }
  if (in_fd_ >= 0) close(in_fd_);
  if (out_fd_ >= 0 && out_fd_ != in_fd_) close(out_fd_);
  if (child_ > 0) {
    // A stdio runner ends at the end of its input; one that does not within a few seconds is
    // stopped.
    for (int i = 0; i < 300; ++i) {
      if (waitpid(child_, nullptr, WNOHANG) == child_) return;
      usleep(10'000);
    }
    kill(child_, SIGKILL);
    waitpid(child_, nullptr, 0);
  }
}

RunResult RunnerConnection::Run(const RunRequest& request, double timeout_s) {
  const std::string where = "device runner " + address_;
  KILN_CHECK(!broken_, ErrorKind::kIO, where + ": the connection broke earlier");
  try {
    WriteFrame(out_fd_, FrameType::kRun, EncodeRunRequest(request), where);
    std::optional<Frame> answer = ReadFrame(in_fd_, timeout_s, where);
    KILN_CHECK(
        answer.has_value(), ErrorKind::kIO,
        where + ": the runner closed the connection during run " + std::to_string(request.id));
    if (answer->type == FrameType::kError) {
      throw Error(ErrorKind::kRuntime, where + " could not run " + request.symbol + ": " +
                                           DecodeError(answer->payload, where + " error"));
    }
    KILN_CHECK(answer->type == FrameType::kResult, ErrorKind::kParse,
               where + ": expected a result, got a " + FrameTypeName(answer->type) + " frame");
    RunResult result = DecodeRunResult(answer->payload, where + " result");
    KILN_CHECK(result.id == request.id, ErrorKind::kParse,
               where + ": the result is of run " + std::to_string(result.id) + ", not " +
                   std::to_string(request.id));
    return result;
  } catch (const Error& e) {
    // An error frame leaves the stream in step; anything else may not.
    if (e.kind() != ErrorKind::kRuntime) broken_ = true;
    throw;
  }
}

}  // namespace kiln::runtime::remote_cpu
