// SandboxClient: private temp dir, request file, spawn with a deadline, outcome mapping,
// validated read-back of the result and the dumped tensors.
#include "runtime/sandbox_client.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "runtime/file_util.h"
#include "runtime/subprocess.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

constexpr char kSandboxName[] = "kiln-sandbox";
// What the sandbox printed is kept for the message, the end first: that is where a runtime
// library reports why it aborted.
constexpr size_t kMaxOutputInMessage = 2000;

// A private directory (mode 0700), removed with everything in it at scope exit.
class TempDir {
 public:
  explicit TempDir(bool keep) : keep_(keep) {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-sandbox-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO,
               "cannot create a temporary directory from " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    if (keep_) {
      KILN_LOG_INFO("kept sandbox directory {}", path_.string());
    } else {
      fs::remove_all(path_, ec);
    }
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
  bool keep_;
};

std::string OutputTail(const std::string& output) {
  size_t end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  std::string text = output.substr(0, end + 1);
  if (text.size() > kMaxOutputInMessage) {
    text = "..." + text.substr(text.size() - kMaxOutputInMessage);
  }
  return text;
}

std::string WithOutput(std::string message, const std::string& output) {
  std::string tail = OutputTail(output);
  return tail.empty() ? message : message + "; its output:\n" + tail;
}

bool IsExecutable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

}  // namespace

std::string FindSandboxExecutable(const std::string& compiled_in) {
  std::string looked;
  if (const char* env = std::getenv("KILN_SANDBOX"); env && *env) {
    KILN_CHECK(IsExecutable(env), ErrorKind::kIO,
               std::string("KILN_SANDBOX names ") + env + ", which is not an executable file");
    return env;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = self.parent_path() / kSandboxName;
    if (IsExecutable(beside)) return beside.string();
    looked += ", " + beside.string();
  }
  if (!compiled_in.empty()) {
    if (IsExecutable(compiled_in)) return compiled_in;
    looked += ", " + compiled_in;
  }
#ifdef KILN_SANDBOX_BUILD_PATH
  if (IsExecutable(KILN_SANDBOX_BUILD_PATH)) return KILN_SANDBOX_BUILD_PATH;
  looked += std::string(", ") + KILN_SANDBOX_BUILD_PATH;
#endif
  throw Error(ErrorKind::kIO, std::string("cannot find the ") + kSandboxName +
                                  " runner: set KILN_SANDBOX (looked in: $KILN_SANDBOX" + looked +
                                  ")");
}

SandboxClient::SandboxClient(SandboxOptions options) : options_(std::move(options)) {
  if (options_.sandbox_path.empty()) options_.sandbox_path = FindSandboxExecutable();
  KILN_CHECK(options_.time_limit_s > 0, ErrorKind::kParse,
             "sandbox time limit must be positive, got " + std::to_string(options_.time_limit_s));
}

SandboxOutcome SandboxClient::Run(SandboxRequest request) const {
  TempDir dir(options_.keep_temp_dir);
  fs::path out_dir = dir.path() / "out";
  fs::create_directory(out_dir);
  request.output_dir = out_dir.string();
  for (size_t i = 0; i < request.args.size(); ++i) {
    ArgSpec& arg = request.args[i];
    if (arg.kind != ArgSpec::Kind::kTensor) continue;
    arg.path = (dir.path() / ("input" + std::to_string(i) + ".bin")).string();
    WriteTensorFile(arg.tensor, arg.path);
    arg.kind = ArgSpec::Kind::kTensorFile;
    arg.tensor = ir::HostTensor();
  }
  // The compiler runs in its own process group, which killing the sandbox's would miss: the
  // build's own limit ends it first.
  double build_limit = 0.9 * options_.time_limit_s;
  if (request.build.time_limit_s <= 0 || request.build.time_limit_s > build_limit) {
    request.build.time_limit_s = build_limit;
  }
  // At most every core busy for the whole wall-clock limit, and a second more: a runner whose
  // client was killed (and cannot kill it) still ends.
  double cpu_limit = options_.time_limit_s * std::max(1u, std::thread::hardware_concurrency()) + 1;
  if (request.cpu_limit_s <= 0 || request.cpu_limit_s > cpu_limit) request.cpu_limit_s = cpu_limit;
  std::string request_path = (dir.path() / "request.json").string();
  std::string result_path = (dir.path() / "result.json").string();
  WriteFileAtomically(request_path, RequestToJson(request));

  ProcessOptions spawn;
  spawn.argv = {options_.sandbox_path, request_path, result_path};
  spawn.extra_env = options_.extra_env;
  spawn.time_limit_s = options_.time_limit_s;
  spawn.capture_output = true;
  spawn.max_output_bytes = 256 << 10;
  ProcessResult run;
  try {
    run = RunProcess(spawn);
  } catch (const Error& e) {
    throw SandboxFault(e.kind(), std::string("could not start the sandbox: ") + e.what());
  }

  SandboxOutcome outcome;
  outcome.wall_seconds = run.wall_seconds;
  outcome.sandbox_pid = run.pid;
  MeasureResult& m = outcome.measure;
  std::string what =
      std::string(SandboxPhaseName(request.phase)) + " of kernel " + request.signature.symbol;
  if (run.timed_out) {
    m.error_kind = MeasureErrorKind::kTimeout;
    char limit[32];
    std::snprintf(limit, sizeof limit, "%g", options_.time_limit_s);
    m.message = "sandbox " + what + " " + run.Describe() + " (limit " + limit + " s); killed";
    return outcome;
  }
  if (!run.exited && run.signal == SIGSYS) {
    m.error_kind = MeasureErrorKind::kSandboxViolation;
    m.message = WithOutput(
        "sandbox " + what + " was stopped: the candidate made a system call the sandbox forbids",
        run.output);
    return outcome;
  }
  if (!run.exited) {
    m.error_kind = MeasureErrorKind::kRuntimeError;
    m.message = WithOutput("sandbox " + what + " crashed: " + run.Describe(), run.output);
    return outcome;
  }
  if (run.exit_code == kSandboxFaultExitStatus) {
    throw SandboxFault(
        ErrorKind::kIO,
        WithOutput("sandbox " + what + " could not carry out the request (exit " + "status " +
                       std::to_string(kSandboxFaultExitStatus) +
                       "): a fault of the measuring machinery, not of the " + "candidate",
                   run.output));
  }
  if (run.exit_code != 0) {
    m.error_kind = MeasureErrorKind::kRuntimeError;
    m.message = WithOutput("sandbox " + what + " " + run.Describe(), run.output);
    return outcome;
  }
  try {
    ReadResult(request, result_path, out_dir, what, outcome);
  } catch (const SandboxFault&) {
    throw;
  } catch (const Error& e) {
    throw SandboxFault(e.kind(), e.what());
  }
  return outcome;
}

void SandboxClient::ReadResult(const SandboxRequest& request, const std::string& result_path,
                               const fs::path& out_dir, const std::string& what,
                               SandboxOutcome& outcome) {
  MeasureResult& m = outcome.measure;
  std::error_code ec;
  KILN_CHECK(fs::exists(result_path, ec), ErrorKind::kIO,
             "sandbox " + what + " exited normally but wrote no result file " + result_path);
  SandboxResult result = ResultFromJson(ReadWholeFile(result_path), result_path);
  m.error_kind = result.error_kind;
  m.message = result.message;
  m.build_seconds = result.build_seconds;
  m.build_cache_hit = result.build_cache_hit;
  m.repeat_seconds = result.repeat_seconds;
  m.median_seconds = result.median_seconds;
  m.number = result.number;
  m.contention = result.contention;
  outcome.kernel_seconds = result.kernel_seconds;
  outcome.cutoff = result.cutoff;
  outcome.library_path = result.library_path;
  for (const TensorFileRef& out : result.outputs) {
    // Only files the sandbox was told to write are read back.
    fs::path path = fs::weakly_canonical(out.path, ec);
    KILN_CHECK(!ec && path.parent_path() == fs::weakly_canonical(out_dir), ErrorKind::kParse,
               result_path + ": output file " + out.path + " is outside " + out_dir.string());
    KILN_CHECK(out.param_index < static_cast<int>(request.args.size()), ErrorKind::kParse,
               result_path + ": output for parameter " + std::to_string(out.param_index) +
                   ", which the request does not have");
    outcome.outputs[out.param_index] = ReadTensorFile(path.string(), out.dtype, out.shape);
  }
}

}  // namespace kiln::runtime
