// What the kiln-sandbox process does with one request: build the source (through the
// cache), load the kernel, materialize the inputs, run once and dump the outputs, time.
// It runs inside the sandbox because a candidate kernel may crash or hang: a crash kills
// only that process, and the client reads the signal from its exit status.
#pragma once

#include "runtime/sandbox_protocol.h"

namespace kiln::runtime {

// Carries out `request`. Failures the candidate is to blame for (compiler error, missing
// symbol, non-zero return code) come back as an error result; a malformed request or an
// unusable environment throws kiln::Error.
SandboxResult RunSandboxRequest(const SandboxRequest& request);

}  // namespace kiln::runtime
