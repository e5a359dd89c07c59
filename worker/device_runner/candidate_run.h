// Running one candidate on the device: the shared object the host built is written to the
// runner's private folder and run in a forked child process, so that a kernel that crashes,
// hangs or corrupts memory takes down only that child: its signal, its time limit or its
// non-zero return code is the candidate's result and the runner goes on. In the child the
// library is loaded with dlopen, the kernel runs once on the request's buffers (that run is
// timed, and its buffers are returned when asked for), then it is timed by the one timing
// definition (runtime/timing.h, compiled into the runner from the same source) with the
// checked run standing for the first warm-up run. A first run still going at
// kCutoffAbandonFactor times the request's cutoff is stopped, as the sandbox stops it: a
// kTimeout result whose cutoff is kAbandoned and whose time is a lower bound.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/remote_cpu/runner_protocol.h"

namespace kiln::worker::device_runner {

namespace remote_cpu = ::kiln::runtime::remote_cpu;

// Why `library` is not a shared object this runner can load (not ELF, not 64-bit little
// endian, not a shared object, another machine: "the library is an ELF for machine 62
// (x86-64); this runner loads aarch64 code (machine 183)"), or empty when it may be.
std::string ElfProblem(std::string_view library);

// Runs `request` in a forked child with the library written under `work_dir`. The child
// closes `close_in_child` (the session's streams) and writes to standard error only. Never
// throws for the candidate's faults; kiln::Error(kIO) when the folder cannot be written or
// no child can be started.
remote_cpu::RunResult RunIsolated(const remote_cpu::RunRequest& request,
                                  const std::string& work_dir,
                                  const std::vector<int>& close_in_child);

// The child's part: load `library_path`, run, dump, time, in this process. `mark` (when
// given) is called with 'R' just before the checked run and 'D' just after it.
remote_cpu::RunResult RunInThisProcess(const remote_cpu::RunRequest& request,
                                       const std::string& library_path,
                                       const std::function<void(char)>& mark = {});

}  // namespace kiln::worker::device_runner
