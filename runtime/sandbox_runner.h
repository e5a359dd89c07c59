// What the kiln-sandbox process does with one request: build the source (through the
// cache), load the kernel, materialize the inputs, run once and dump the outputs, time.
// It runs inside the sandbox because a candidate kernel may crash or hang: a crash kills
// only that process, and the client reads the signal from its exit status.
#pragma once

#include <functional>

#include "runtime/sandbox_protocol.h"

namespace kiln::runtime {

// Given the result of a run abandoned by the early cutoff, reports it and ends the process
// (the kernel is still running on another thread); see RunSandboxRequest.
using AbandonHandler = std::function<void(const SandboxResult& abandoned)>;

// Called once the kernel is loaded, its arguments made and its output files open, before any
// of the candidate's code runs: the runner process locks itself down there
// (sandbox_lockdown.h). Before it is called, the OpenMP thread pool is started and the
// timing's files are opened, so that nothing after it needs a new file or process.
using LockdownHook = std::function<void()>;

// Carries out `request`. Failures the candidate is to blame for (compiler error, missing
// symbol, non-zero return code) come back as an error result; a malformed request or an
// unusable environment throws kiln::Error. With `on_abandon` and an early cutoff in the
// request's timing, a first run still going at kCutoffAbandonFactor times the cutoff is
// abandoned: `on_abandon` gets the result (cutoff kAbandoned, the time so far as the
// measurement, no outputs) from another thread while the kernel runs on.
SandboxResult RunSandboxRequest(const SandboxRequest& request,
                                const AbandonHandler& on_abandon = {},
                                const LockdownHook& lock_down = {});

}  // namespace kiln::runtime
