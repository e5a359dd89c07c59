// SandboxClient: measures a candidate kernel in a kiln-sandbox child process. It writes the
// request into a private temporary directory, starts the runner with posix_spawn in its own
// process group, enforces a wall-clock limit (killing the group past it), and turns what
// happened into a MeasureResult: kBuildError, kRuntimeError (a crash names its signal),
// kTimeout or kOk; the caller checks the dumped outputs and may set kWrongResult.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "runtime/measure_result.h"
#include "runtime/sandbox_protocol.h"
#include "support/error.h"

namespace kiln::runtime {

// A fault of the measuring machinery rather than of the candidate: the runner exited with
// kSandboxFaultExitStatus (it could not read the request, the arguments did not match the
// signature, a tensor file could not be written), or its result file is missing or
// malformed. Callers must not record it as the candidate's result (a database would keep a
// good schedule as broken); they retry or report the machinery.
class SandboxFault : public Error {
 public:
  SandboxFault(ErrorKind kind, const std::string& message) : Error(kind, message) {}
};

struct SandboxOptions {
  // Empty: FindSandboxExecutable().
  std::string sandbox_path = {};
  // Wall-clock limit of one sandbox run (build included).
  double time_limit_s = 10;
  // Keep the temporary directory (request, result, tensors) for inspection.
  bool keep_temp_dir = false;
  // Added to the sandbox's environment ("OMP_NUM_THREADS=1", ...).
  std::vector<std::string> extra_env = {};
};

struct SandboxOutcome {
  MeasureResult measure;
  std::string library_path;  // the built or given shared object
  // Tensor arguments after one run, by parameter index, when outputs were dumped.
  std::map<int, ir::HostTensor> outputs;
  double wall_seconds = 0;        // of the sandbox process
  double kernel_seconds = 0;      // of that, the kernel's runs (SandboxResult::kernel_seconds)
  Cutoff cutoff = Cutoff::kNone;  // how the early cutoff shortened the timing
  int sandbox_pid = 0;            // gone, with its process group, by the time Run returns
};

// KILN_SANDBOX, else kiln-sandbox beside the running executable, else `compiled_in` when
// given and present, else the runner of the build tree this library was built in. Throws
// kiln::Error(kIO) listing where it looked.
std::string FindSandboxExecutable(const std::string& compiled_in = "");

class SandboxClient {
 public:
  explicit SandboxClient(SandboxOptions options = {});

  // Runs `request` in a fresh sandbox. The client fills output_dir, turns in-memory tensor
  // arguments into files, and keeps the build within the wall-clock limit. Throws
  // SandboxFault (kIO or kParse) when the sandbox cannot be started, exits with
  // kSandboxFaultExitStatus, or its result file is missing, truncated or malformed: a fault
  // of the machinery, not of the candidate.
  SandboxOutcome Run(SandboxRequest request) const;

  const SandboxOptions& options() const { return options_; }

 private:
  // Fills `outcome` from the result file of a run that exited normally.
  static void ReadResult(const SandboxRequest& request, const std::string& result_path,
                         const std::filesystem::path& out_dir, const std::string& what,
                         SandboxOutcome& outcome);
  SandboxOptions options_;
};

}  // namespace kiln::runtime
