// LockDownProcess: resource limits, then a seccomp filter (libseccomp) on every thread.
#include "runtime/sandbox_lockdown.h"

#include <seccomp.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>

#include "support/error.h"

// AddressSanitizer, as GCC (__SANITIZE_ADDRESS__) and Clang (__has_feature) say it.
#if defined(__SANITIZE_ADDRESS__)
#define KILN_ADDRESS_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KILN_ADDRESS_SANITIZER 1
#endif
#endif
#ifndef KILN_ADDRESS_SANITIZER
#define KILN_ADDRESS_SANITIZER 0
#endif

namespace kiln::runtime {
namespace {

// The calls the filter forbids, by name (a name this architecture lacks is skipped).
constexpr const char* kFileCalls[] = {"open",
                                      "openat",
                                      "openat2",
                                      "creat",
                                      "rename",
                                      "renameat",
                                      "renameat2",
                                      "unlink",
                                      "unlinkat",
                                      "mkdir",
                                      "mkdirat",
                                      "rmdir",
                                      "link",
                                      "linkat",
                                      "symlink",
                                      "symlinkat",
                                      "truncate",
                                      "chmod",
                                      "fchmodat",
                                      "chown",
                                      "lchown",
                                      "fchownat",
                                      "utime",
                                      "utimes",
                                      "utimensat",
                                      "futimesat",
                                      "mknod",
                                      "mknodat",
                                      "setxattr",
                                      "lsetxattr",
                                      "removexattr",
                                      "lremovexattr",
                                      "name_to_handle_at",
                                      "open_by_handle_at",
                                      "uselib",
                                      "inotify_init",
                                      "inotify_init1",
                                      "inotify_add_watch",
                                      "fanotify_init",
                                      "fanotify_mark"};
constexpr const char* kNetworkCalls[] = {
    "socket", "socketpair", "connect",  "bind",     "listen",  "accept",   "accept4",
    "sendto", "sendmsg",    "sendmmsg", "recvfrom", "recvmsg", "recvmmsg", "shutdown"};
constexpr const char* kProcessCalls[] = {
    "fork",     "vfork",      "execve",           "execveat",
    "ptrace",   "tkill",      "process_vm_readv", "process_vm_writev",
    "kcmp",     "pidfd_open", "pidfd_getfd",      "pidfd_send_signal",
    "setrlimit"};
constexpr const char* kSystemCalls[] = {"mount",
                                        "umount2",
                                        "pivot_root",
                                        "chroot",
                                        "setns",
                                        "unshare",
                                        "open_tree",
                                        "move_mount",
                                        "fsopen",
                                        "fsconfig",
                                        "fsmount",
                                        "fspick",
                                        "mount_setattr",
                                        "setuid",
                                        "setgid",
                                        "setreuid",
                                        "setregid",
                                        "setresuid",
                                        "setresgid",
                                        "setfsuid",
                                        "setfsgid",
                                        "setgroups",
                                        "capset",
                                        "reboot",
                                        "kexec_load",
                                        "kexec_file_load",
                                        "init_module",
                                        "finit_module",
                                        "delete_module",
                                        "swapon",
                                        "swapoff",
                                        "syslog",
                                        "acct",
                                        "quotactl",
                                        "settimeofday",
                                        "clock_settime",
                                        "clock_adjtime",
                                        "adjtimex",
                                        "sethostname",
                                        "setdomainname",
                                        "iopl",
                                        "ioperm",
                                        "add_key",
                                        "request_key",
                                        "keyctl",
                                        "bpf",
                                        "perf_event_open",
                                        "userfaultfd",
                                        "io_uring_setup",
                                        "io_uring_enter",
                                        "io_uring_register",
                                        "seccomp",
                                        "personality",
                                        "vhangup"};

// What the SIGSYS handler prints: filled before the filter is loaded, read-only after.
struct ForbiddenName {
  int number = -1;
  const char* name = nullptr;
};
std::array<ForbiddenName, 192> forbidden_names;
size_t forbidden_count = 0;
char process_name[64] = "kiln";

void Remember(int number, const char* name) {
  if (forbidden_count < forbidden_names.size()) forbidden_names[forbidden_count++] = {number, name};
}

// Async-signal-safe: builds the line by hand and writes it with one write(2).
void OnForbiddenCall(int, siginfo_t* info, void*) {
  char line[256];
  size_t n = 0;
  auto put = [&](const char* text) {
    while (*text != '\0' && n + 1 < sizeof line) line[n++] = *text++;
  };
  int number = info->si_syscall;
  const char* name = "unknown";
  for (size_t i = 0; i < forbidden_count; ++i) {
    if (forbidden_names[i].number == number) name = forbidden_names[i].name;
  }
  char digits[16];
  int d = 0;
  unsigned value = static_cast<unsigned>(number);
  do {
    digits[d++] = static_cast<char>('0' + value % 10);
    value /= 10;
  } while (value != 0 && d < 15);
  put(process_name);
  put(": ");
  put(kForbiddenSyscallText);
  put(name);
  put(" (");
  while (d > 0 && n + 1 < sizeof line) line[n++] = digits[--d];
  put(")\n");
  ssize_t ignored = write(STDERR_FILENO, line, n);
  (void)ignored;
  // The handler was reset on entry (SA_RESETHAND): the signal, pending until the handler
  // returns, ends the process with SIGSYS, which the client reads.
  raise(SIGSYS);
}

void SetLimit(int resource, rlim_t value, const char* what) {
  rlimit limit{value, value};
  if (resource == RLIMIT_CPU) limit.rlim_max = value + 1;  // SIGXCPU first, SIGKILL a second on
  KILN_CHECK(setrlimit(resource, &limit) == 0, ErrorKind::kIO,
             std::string("cannot limit the runner's ") + what + ": " + std::strerror(errno));
}

#if !KILN_ADDRESS_SANITIZER
// Bytes of address space mapped now (/proc/self/statm's first field, in pages).
int64_t MappedBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0;
  statm >> pages;
  return pages * sysconf(_SC_PAGESIZE);
}
#endif

void ApplyLimits(const LockdownLimits& limits) {
  rlimit no_core{0, 0};
  setrlimit(RLIMIT_CORE, &no_core);
  if (limits.cpu_seconds > 0) {
    SetLimit(RLIMIT_CPU, static_cast<rlim_t>(std::ceil(limits.cpu_seconds)), "CPU time");
  }
  if (limits.file_bytes > 0) {
    SetLimit(RLIMIT_FSIZE, static_cast<rlim_t>(limits.file_bytes), "file size");
  }
#if !KILN_ADDRESS_SANITIZER
  // AddressSanitizer reserves terabytes of shadow memory up front: no limit there.
  if (limits.address_space_bytes > 0) {
    SetLimit(RLIMIT_AS, static_cast<rlim_t>(MappedBytes() + limits.address_space_bytes),
             "address space");
  }
#endif
}

// Argument `index` of a call compared by `op` (a masked comparison: `value` is the mask and
// `masked` the value the masked argument is compared with).
scmp_arg_cmp Arg(unsigned index, scmp_compare op, scmp_datum_t value, scmp_datum_t masked = 0) {
  return scmp_arg_cmp{index, op, value, masked};
}

class Filter {
 public:
  Filter() : ctx_(seccomp_init(SCMP_ACT_ALLOW)) {
    KILN_CHECK(ctx_ != nullptr, ErrorKind::kIO, "cannot make a seccomp filter");
    // Every thread of the process (an OpenMP pool already started, a watchdog) gets it, and
    // no new privileges, which loading a filter without CAP_SYS_ADMIN requires.
    Check(seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_TSYNC, 1), "synchronise it over threads");
    Check(seccomp_attr_set(ctx_, SCMP_FLTATR_CTL_NNP, 1), "set no new privileges");
  }
  Filter(const Filter&) = delete;
  Filter& operator=(const Filter&) = delete;
  ~Filter() { seccomp_release(ctx_); }

  // `name` ends the process, or with `arg` only when the comparison holds.
  template <typename... Args>
  void Forbid(const char* name, Args... args) {
    int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR) return;
    Remember(number, name);
    Check(seccomp_rule_add(ctx_, SCMP_ACT_TRAP, number, sizeof...(args), args...), name);
  }
  // `name` fails with `error` instead of running (the C library then falls back).
  void Refuse(const char* name, int error) {
    int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR) return;
    Check(seccomp_rule_add(ctx_, SCMP_ACT_ERRNO(error), number, 0), name);
  }
  // `name` with `arg` ends the process at once, without the handler.
  void Kill(const char* name, scmp_arg_cmp arg) {
    int number = seccomp_syscall_resolve_name(name);
    if (number == __NR_SCMP_ERROR) return;
    Check(seccomp_rule_add(ctx_, SCMP_ACT_KILL_PROCESS, number, 1, arg), name);
  }
  void Load() { Check(seccomp_load(ctx_), "load it"); }

 private:
  static void Check(int rc, const char* what) {
    KILN_CHECK(rc == 0, ErrorKind::kIO,
               std::string("cannot install the runner's seccomp filter (") + what +
                   "): " + std::strerror(-rc));
  }
  scmp_filter_ctx ctx_;
};

}  // namespace

void LockDownProcess(const LockdownLimits& limits) {
  std::snprintf(process_name, sizeof process_name, "%s", limits.process_name.c_str());
  ApplyLimits(limits);
  if (!limits.filter_system_calls) return;

  struct sigaction action {};
  action.sa_sigaction = OnForbiddenCall;
  action.sa_flags = SA_SIGINFO | SA_RESETHAND;
  sigemptyset(&action.sa_mask);
  KILN_CHECK(sigaction(SIGSYS, &action, nullptr) == 0, ErrorKind::kIO,
             std::string("cannot handle SIGSYS: ") + std::strerror(errno));

  Filter filter;
  for (const char* name : kFileCalls) {
    if (limits.refuse_file_calls) {
      filter.Refuse(name, EACCES);
    } else {
      filter.Forbid(name);
    }
  }
  for (const char* name : kNetworkCalls) filter.Forbid(name);
  for (const char* name : kProcessCalls) filter.Forbid(name);
  for (const char* name : kSystemCalls) filter.Forbid(name);
  // Threads are clones that share the process (CLONE_THREAD); any other clone is a new
  // process. clone3 passes its flags in memory the filter cannot read: it fails with ENOSYS,
  // and the C library starts threads with clone instead.
  filter.Forbid("clone", Arg(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, 0));
  filter.Refuse("clone3", ENOSYS);
  // Signals only to this process (abort() and raise() signal it).
  const auto self = static_cast<scmp_datum_t>(getpid());
  filter.Forbid("kill", Arg(0, SCMP_CMP_NE, self));
  filter.Forbid("tgkill", Arg(0, SCMP_CMP_NE, self));
  filter.Forbid("rt_sigqueueinfo", Arg(0, SCMP_CMP_NE, self));
  filter.Forbid("rt_tgsigqueueinfo", Arg(0, SCMP_CMP_NE, self));
  // Limits may be read (prlimit64 without a new value), never raised.
  filter.Forbid("prlimit64", Arg(2, SCMP_CMP_NE, 0));
  // A candidate that took over SIGSYS could go on past a forbidden call's refusal.
  filter.Kill("rt_sigaction", Arg(0, SCMP_CMP_EQ, SIGSYS));
  filter.Load();
}

}  // namespace kiln::runtime
