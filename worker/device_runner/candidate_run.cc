// RunIsolated: write the library, fork, collect the child's result frame within the time
// limit; RunInThisProcess: dlopen, the checked run, the timing.
#include "worker/device_runner/candidate_run.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "runtime/timing.h"
#include "support/error.h"
#include "worker/device_runner/device_facts.h"

namespace kiln::worker::device_runner {
namespace {

using remote_cpu::RunRequest;
using remote_cpu::RunResult;
using remote_cpu::RunStatus;
using remote_cpu::WireSlot;

// One slot of the packed argument array: `kiln_value_t` of the generated C
// (codegen/kernel_abi.h), declared here again because the runner links nothing of Kiln's.
union PackedSlot {
  void* ptr;
  int64_t i;
  double f;
};
static_assert(sizeof(PackedSlot) == 8);
using KernelFunction = int32_t (*)(const PackedSlot* args, int32_t num_args);

// Buffers are aligned past any alignment the C emitter assumes of a parameter.
constexpr size_t kBufferAlignment = 256;

double Since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};

// The child's marks around its checked run; neither can begin a frame ("KDR1").
constexpr char kFirstRunStarts = 'R';
constexpr char kFirstRunEnds = 'D';

struct KernelReturned {
  int32_t code;
};

const char* MachineName(unsigned machine) {
  switch (machine) {
    case 3:
      return "x86";
    case 40:
      return "arm";
    case 62:
      return "x86-64";
    case 183:
      return "aarch64";
    case 243:
      return "risc-v";
    default:
      return "another machine";
  }
}

RunResult Failed(const RunRequest& q, RunStatus status, std::string message) {
  RunResult r;
  r.id = q.id;
  r.status = status;
  r.message = std::move(message);
  return r;
}

std::string SignalText(int sig) {
  const char* name = strsignal(sig);
  return "signal " + std::to_string(sig) + " (" + (name ? name : "unknown") + ")";
}

}  // namespace

std::string ElfProblem(std::string_view library) {
  if (library.size() < 64 || library.substr(0, 4) !=
                                 "\x7f"
                                 "ELF") {
    return "the library is not an ELF shared object (" + std::to_string(library.size()) +
           " bytes, no ELF header)";
  }
  if (library[4] != 2 || library[5] != 1) {
    return "the library is not a 64-bit little-endian ELF object";
  }
  auto u16 = [&](size_t at) {
    return static_cast<unsigned>(static_cast<uint8_t>(library[at])) |
           (static_cast<unsigned>(static_cast<uint8_t>(library[at + 1])) << 8);
  };
  unsigned type = u16(16);
  unsigned machine = u16(18);
  if (machine != RunnerElfMachine()) {
    return "the library is an ELF for machine " + std::to_string(machine) + " (" +
           MachineName(machine) + "); this runner (" + std::string(RunnerTriple()) + ") loads " +
           MachineName(RunnerElfMachine()) + " code (machine " +
           std::to_string(RunnerElfMachine()) + ")";
  }
  if (type != 3) {
    return "the library is an ELF of type " + std::to_string(type) +
           ", not a shared object (type 3, ET_DYN)";
  }
  return {};
}

RunResult RunInThisProcess(const RunRequest& q, const std::string& library_path,
                           const std::function<void(char)>& mark) {
  RunResult r;
  r.id = q.id;
  if (q.num_threads > 0) setenv("OMP_NUM_THREADS", std::to_string(q.num_threads).c_str(), 1);
  auto load_start = std::chrono::steady_clock::now();
  void* handle = dlopen(library_path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    return Failed(q, RunStatus::kLoadError,
                  "cannot load the kernel library: " + std::string(why ? why : "dlopen failed"));
  }
  void* symbol = dlsym(handle, q.symbol.c_str());
  if (symbol == nullptr) {
    return Failed(q, RunStatus::kLoadError, "the kernel library has no symbol " + q.symbol);
  }
  auto kernel = reinterpret_cast<KernelFunction>(symbol);
  r.load_seconds = Since(load_start);

  std::vector<std::unique_ptr<char, FreeDeleter>> storage;
  for (const std::string& bytes : q.buffers) {
    size_t size = (std::max<size_t>(bytes.size(), 1) + kBufferAlignment - 1) / kBufferAlignment *
                  kBufferAlignment;
    char* p = static_cast<char*>(std::aligned_alloc(kBufferAlignment, size));
    KILN_CHECK(p != nullptr, ErrorKind::kRuntime,
               "cannot allocate a buffer of " + std::to_string(size) + " bytes");
    std::memcpy(p, bytes.data(), bytes.size());
    storage.emplace_back(p);
  }
  std::vector<PackedSlot> slots(q.slots.size());
  for (size_t i = 0; i < q.slots.size(); ++i) {
    const WireSlot& s = q.slots[i];
    if (s.kind == WireSlot::Kind::kBuffer) {
      slots[i].ptr = storage[s.buffer].get();
    } else if (s.kind == WireSlot::Kind::kInt) {
      slots[i].i = s.int_value;
    } else {
      slots[i].f = s.float_value;
    }
  }
  const auto num_slots = static_cast<int32_t>(slots.size());

  if (mark) mark(kFirstRunStarts);
  auto first_start = std::chrono::steady_clock::now();
  int32_t code = kernel(slots.data(), num_slots);
  r.first_run_seconds = Since(first_start);
  if (mark) mark(kFirstRunEnds);
  r.kernel_seconds = r.first_run_seconds;
  if (code != 0) {
    return Failed(q, RunStatus::kKernelError,
                  "kernel " + q.symbol + " returned code " + std::to_string(code));
  }
  if (q.dump_outputs) {
    for (size_t b = 0; b < q.buffers.size(); ++b) {
      r.outputs.emplace_back(storage[b].get(), q.buffers[b].size());
    }
  }
  if (!q.time) {
    r.median_seconds = r.first_run_seconds;
    r.repeat_seconds = {r.first_run_seconds};
    r.number = 1;
    return r;
  }
  try {
    runtime::TimingResult t = runtime::TimeKernel(runtime::HostBatchTimer([&] {
                                                    int32_t c = kernel(slots.data(), num_slots);
                                                    if (c != 0) throw KernelReturned{c};
                                                  }),
                                                  q.timing, {}, r.first_run_seconds);
    r.repeat_seconds = t.seconds_per_run;
    r.median_seconds = t.median_seconds;
    r.number = t.number;
    r.cutoff = t.cutoff;
    r.contention = t.contention;
    r.kernel_seconds += t.total_seconds;
  } catch (const KernelReturned& e) {
    return Failed(
        q, RunStatus::kKernelError,
        "kernel " + q.symbol + " returned code " + std::to_string(e.code) + " while it was timed");
  }
  return r;
}

RunResult RunIsolated(const RunRequest& q, const std::string& work_dir,
                      const std::vector<int>& close_in_child) {
  if (std::string problem = ElfProblem(q.library); !problem.empty()) {
    return Failed(q, RunStatus::kLoadError, problem);
  }
  static std::atomic<uint64_t> counter{0};
  std::string path =
      work_dir + "/kernel-" + std::to_string(q.id) + "-" + std::to_string(counter++) + ".so";
  {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0700);
    KILN_CHECK(fd >= 0, ErrorKind::kIO, "cannot write " + path + ": " + std::strerror(errno));
    size_t done = 0;
    while (done < q.library.size()) {
      ssize_t n = ::write(fd, q.library.data() + done, q.library.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        std::string why = std::strerror(errno);
        ::close(fd);
        ::unlink(path.c_str());
        throw Error(ErrorKind::kIO, "cannot write " + path + ": " + why);
      }
      done += static_cast<size_t>(n);
    }
    ::close(fd);
  }
  struct Unlink {
    std::string path;
    ~Unlink() { ::unlink(path.c_str()); }
  } unlink_library{path};

  int fds[2];
  KILN_CHECK(::pipe(fds) == 0, ErrorKind::kIO, std::string("pipe: ") + std::strerror(errno));
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw Error(ErrorKind::kIO, std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    // The child: nothing it prints may reach the session's stream.
    ::close(fds[0]);
    for (int fd : close_in_child) ::close(fd);
    ::dup2(2, 1);
    signal(SIGPIPE, SIG_DFL);
    RunResult result;
    try {
      // One byte before and one after the checked run, ahead of the result frame, so that
      // the runner can stop a first run past the early cutoff.
      result = RunInThisProcess(q, path, [&](char mark) {
        while (::write(fds[1], &mark, 1) < 0 && errno == EINTR) {
        }
      });
    } catch (const std::exception& e) {
      result = Failed(q, RunStatus::kKernelError, e.what());
    }
    try {
      remote_cpu::WriteFrame(fds[1], remote_cpu::FrameType::kResult,
                             remote_cpu::EncodeRunResult(result), "the result pipe");
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  ::close(fds[1]);

  // Everything the child writes, until it closes the pipe, the time limit passes, or its first
  // run goes on past kCutoffAbandonFactor times the cutoff.
  std::string bytes;
  size_t frame_start = std::string::npos;
  size_t scanned = 0;
  bool timed_out = false, abandoned = false;
  bool in_first_run = false;
  auto first_run_start = std::chrono::steady_clock::now();
  double abandon_after_s =
      q.timing.cutoff_seconds > 0 ? runtime::kCutoffAbandonFactor * q.timing.cutoff_seconds : 0;
  char chunk[1 << 16];
  while (true) {
    double left = q.time_limit_s - Since(start);
    if (left <= 0) {
      timed_out = true;
      break;
    }
    if (in_first_run && abandon_after_s > 0) {
      double first_left = abandon_after_s - Since(first_run_start);
      if (first_left <= 0) {
        abandoned = true;
        break;
      }
      left = std::min(left, first_left);
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = ::poll(&p, 1, static_cast<int>(std::min(left * 1000 + 1, 1e9)));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) continue;
    ssize_t n = ::read(fds[0], chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(chunk, static_cast<size_t>(n));
    for (; frame_start == std::string::npos && scanned < bytes.size(); ++scanned) {
      if (bytes[scanned] == kFirstRunStarts) {
        in_first_run = true;
        first_run_start = std::chrono::steady_clock::now();
      } else if (bytes[scanned] == kFirstRunEnds) {
        in_first_run = false;
      } else {
        frame_start = scanned;
      }
    }
  }
  double first_run_seconds = in_first_run ? Since(first_run_start) : 0;
  if (timed_out || abandoned) ::kill(pid, SIGKILL);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ::close(fds[0]);

  if (abandoned) {
    RunResult r = Failed(q, RunStatus::kTimeout,
                         "abandoned by the early cutoff: its first run was still going after " +
                             std::to_string(first_run_seconds) + " s");
    r.cutoff = runtime::Cutoff::kAbandoned;
    r.first_run_seconds = r.median_seconds = r.kernel_seconds = first_run_seconds;
    return r;
  }
  if (timed_out) {
    return Failed(
        q, RunStatus::kTimeout,
        "the run passed its time limit of " + std::to_string(q.time_limit_s) + " s and was killed");
  }
  if (WIFSIGNALED(status)) {
    return Failed(q, RunStatus::kCrashed,
                  "the kernel's process died of " + SignalText(WTERMSIG(status)));
  }
  int exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  try {
    KILN_CHECK(exit_code == 0, ErrorKind::kRuntime,
               "the kernel's process exited with status " + std::to_string(exit_code));
    std::string_view frame =
        frame_start == std::string::npos ? "" : std::string_view(bytes).substr(frame_start);
    KILN_CHECK(frame.size() >= remote_cpu::kFrameHeaderBytes &&
                   frame.substr(0, 4) == remote_cpu::kFrameMagic,
               ErrorKind::kRuntime, "the kernel's process wrote no result");
    std::string_view payload = frame.substr(remote_cpu::kFrameHeaderBytes);
    return remote_cpu::DecodeRunResult(payload, "the kernel's process's result");
  } catch (const Error& e) {
    return Failed(q, RunStatus::kCrashed, e.what());
  }
}

}  // namespace kiln::worker::device_runner
