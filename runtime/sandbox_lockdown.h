// LockDownProcess: what a runner process (kiln-sandbox, the GPU runners) gives up once its
// setup is done and before a candidate's code runs. A candidate is generated code that a
// client submitted; the worker runs it on a shared device and trusts it no further than it
// must. After the lockdown the process may compute, allocate memory, start threads and write
// to files it already has open, and nothing else:
//
//   - a seccomp filter, on every thread, forbids each system call that reaches outside the
//     process: opening, creating, renaming or removing files; sockets; new processes (fork,
//     vfork, a clone that is not a thread) and exec; signals to other processes; tracing or
//     reading other processes; mounts, namespaces, privileges, kernel modules, keys, BPF,
//     performance counters and io_uring (whose requests would go around the filter). Such a
//     call ends the process with SIGSYS, after one line on stderr naming the call
//     ("kiln-sandbox: forbidden system call socket (41)"); the client reports it as
//     kSandboxViolation.
//   - no new privileges (setuid binaries cannot raise them), no core files, and limits on
//     CPU time (a runner orphaned by a killed worker still ends), file size and, outside
//     AddressSanitizer builds, address space.
//
// The filter forbids by name rather than allowing by name: a kernel's OpenMP runtime, the C
// library and a GPU driver use system calls that differ between versions, and a call
// missing from an allow list would make every parallel candidate a violation. What it
// forbids is everything that could reach a file, the network or another process.
#pragma once

#include <cstdint>
#include <string>

namespace kiln::runtime {

struct LockdownLimits {
  double cpu_seconds = 0;             // RLIMIT_CPU over all threads; 0: none
  int64_t file_bytes = 0;             // RLIMIT_FSIZE: the largest file it may write; 0: none
  int64_t address_space_bytes = 0;    // RLIMIT_AS beyond what is mapped now; 0: none
  std::string process_name = "kiln";  // names the process in the SIGSYS line
  // Off: the limits only (a runner whose driver's system calls are not yet known).
  bool filter_system_calls = true;
  // File calls fail with EACCES instead of ending the process. For the GPU runners: their
  // kernels run on the device, so after the lockdown only the driver touches files, and a
  // driver's late write to its own shader cache (Mesa writes lavapipe's from a background
  // thread) must fail quietly, not end a correct run as a violation.
  bool refuse_file_calls = false;
};

// Applies the limits and installs the filter on every thread of the process. Throws
// kiln::Error(kIO) when the kernel refuses (a system without seccomp): the runner must not
// go on to run a candidate it was meant to contain.
void LockDownProcess(const LockdownLimits& limits);

// The SIGSYS line's prefix, for clients that parse it: "forbidden system call ".
inline constexpr const char* kForbiddenSyscallText = "forbidden system call ";

}  // namespace kiln::runtime
