// GpuMeasurer: discovery, code generation with the device's limits, the runner process,
// comparison with the reference.
#include "runtime/gpu/gpu_measurer.h"

#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <atomic>
#include <cctype>
#include <chrono>
#include <filesystem>
#include <thread>

#include "runtime/file_util.h"
#include "runtime/gpu/gpu_protocol.h"
#include "runtime/kernel_source.h"
#include "runtime/sandbox_client.h"
#include "runtime/subprocess.h"
#include "support/error.h"

namespace kiln::runtime::gpu {
namespace {

namespace fs = std::filesystem;

constexpr size_t kMaxOutputInMessage = 2000;

class TempDir {
 public:
  TempDir() {
    const char* base = std::getenv("TMPDIR");
    std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-gpu-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO,
               "cannot create a temporary directory from " + pattern);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string Tail(const std::string& output) {
  size_t end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  std::string text = output.substr(0, end + 1);
  if (text.size() > kMaxOutputInMessage) {
    text = "..." + text.substr(text.size() - kMaxOutputInMessage);
  }
  return text;
}

bool IsExecutable(const fs::path& path) {
  std::error_code ec;
  return fs::is_regular_file(path, ec) && access(path.c_str(), X_OK) == 0;
}

std::string EnvName(const std::string& kind) {
  std::string name = "KILN_";
  for (char c : kind) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name + "_RUNNER";
}

}  // namespace

std::string FindRunnerExecutable(const GpuDeviceSpec& spec) {
  std::string env_name = EnvName(spec.device_kind);
  if (const char* env = std::getenv(env_name.c_str()); env && *env) {
    KILN_CHECK(IsExecutable(env), ErrorKind::kIO,
               env_name + " names " + env + ", which is not an executable file");
    return env;
  }
  std::string looked = "$" + env_name;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    fs::path beside = self.parent_path() / spec.runner_name;
    if (IsExecutable(beside)) return beside.string();
    looked += ", " + beside.string();
  }
  if (!spec.runner_build_path.empty()) {
    if (IsExecutable(spec.runner_build_path)) return spec.runner_build_path;
    looked += ", " + spec.runner_build_path;
  }
  throw Error(ErrorKind::kIO, "cannot find the " + spec.runner_name + " runner: set " + env_name +
                                  " (looked in: " + looked + ")");
}

DeviceDescription DiscoverDevice(const GpuDeviceSpec& spec, double time_limit_s) {
  std::string runner = FindRunnerExecutable(spec);
  TempDir dir;
  std::string result_path = (dir.path() / "device.json").string();
  ProcessOptions p;
  p.argv = {runner, "describe", result_path};
  p.time_limit_s = time_limit_s;
  p.capture_output = true;
  ProcessResult run = RunProcess(p);
  KILN_CHECK(!(run.exited && run.exit_code == kNoDeviceExitStatus), ErrorKind::kUnsupported,
             "no " + spec.device_kind + " device on this machine: " + Tail(run.output));
  KILN_CHECK(run.ok(), ErrorKind::kUnsupported,
             "the " + spec.device_kind + " device could not be described: " + spec.runner_name +
                 " " + run.Describe() + (run.output.empty() ? "" : ": " + Tail(run.output)));
  return DeviceFromJson(ReadWholeFile(result_path), result_path);
}

GpuMeasurer::GpuMeasurer(MeasureOptions options, GpuDeviceSpec spec)
    : options_(std::move(options)),
      spec_(std::move(spec)),
      runner_path_(FindRunnerExecutable(spec_)),
      device_(DiscoverDevice(spec_)),
      references_(ReferenceOptionsFor(options_)) {}

MeasureResult GpuMeasurer::Measure(const MeasureCandidate& candidate, MeasureDetails* details) {
  return MeasureImpl(candidate, details, /*warm=*/false);
}

std::vector<MeasureResult> GpuMeasurer::MeasureBatch(
    const std::vector<MeasureCandidate>& candidates) {
  int jobs = std::min<int>(options_.build_jobs, static_cast<int>(candidates.size()));
  if (jobs > 1) {
    std::atomic<size_t> next{0};
    auto warm = [&] {
      for (size_t i = next++; i < candidates.size(); i = next++) {
        try {
          MeasureImpl(candidates[i], nullptr, /*warm=*/true);
        } catch (const std::exception&) {
          // The timed measurement below reports whatever went wrong.
        }
      }
    };
    std::vector<std::thread> threads;
    for (int j = 0; j < jobs; ++j) threads.emplace_back(warm);
    for (std::thread& t : threads) t.join();
  }
  std::vector<MeasureResult> results;
  for (const MeasureCandidate& c : candidates) results.push_back(Measure(c));
  return results;
}

MeasureResult GpuMeasurer::MeasureImpl(const MeasureCandidate& candidate, MeasureDetails* details,
                                       bool warm) {
  KILN_CHECK(candidate.workload.defined() && candidate.scheduled.defined(), ErrorKind::kInternal,
             "a measure candidate needs both the workload and the scheduled function");
  MeasureDetails local;
  MeasureDetails& d = details ? *details : local;
  d.reference = candidate.reference
                    ? candidate.reference
                    : references_.Get(candidate.workload, candidate.dims, options_.input_seed);
  const Reference& reference = *d.reference;
  std::string mismatch = ParameterMismatch(candidate.scheduled, reference, candidate.dims);
  if (!mismatch.empty()) return FailedResult(MeasureErrorKind::kWrongResult, mismatch);

  auto start = std::chrono::steady_clock::now();
  try {
    std::unique_ptr<codegen::CodegenTarget> target = spec_.make_target(device_.limits);
    GeneratedKernel kernel =
        GenerateKernel(candidate.scheduled, *target, KernelSymbol(candidate.scheduled));
    d.lowered = kernel.lowered;
    d.source = std::move(kernel.source);
  } catch (const Error& e) {
    return FailedResult(MeasureErrorKind::kBuildError,
                        std::string("code generation failed: ") + e.what());
  }
  d.generate_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  KILN_CHECK(d.source.launch.has_value(), ErrorKind::kInternal,
             "target of device kind " + spec_.device_kind + " emitted no launch plan");
  const codegen::gpu::LaunchPlan& plan = *d.source.launch;

  // Values of the shape variables and integer scalars, for the launch extents.
  std::map<std::string, int64_t> values;
  GpuRunRequest request;
  std::vector<int> buffer_of_param(reference.params.size(), -1);
  for (size_t i = 0; i < reference.params.size(); ++i) {
    const ArgSpec& in = reference.params[i].input;
    if (in.kind == ArgSpec::Kind::kTensorFile) {
      buffer_of_param[i] = static_cast<int>(request.buffers.size());
      request.buffers.push_back({in.dtype, in.shape, in.path, static_cast<int>(i)});
    } else if (in.kind == ArgSpec::Kind::kInt) {
      values[candidate.scheduled->params[i].name()] = in.int_value;
    }
  }
  for (const codegen::ArgSlot& slot : d.source.signature.slots) {
    const ArgSpec& in = reference.params.at(slot.param_index).input;
    GpuArgSpec arg;
    arg.dtype = slot.dtype;
    switch (slot.kind) {
      case codegen::SlotKind::kBufferData:
        arg.kind = GpuArgSpec::Kind::kBuffer;
        arg.buffer = buffer_of_param.at(slot.param_index);
        break;
      case codegen::SlotKind::kScalarInt:
        arg.kind = GpuArgSpec::Kind::kInt;
        arg.int_value = in.int_value;
        break;
      case codegen::SlotKind::kScalarFloat:
        arg.kind = GpuArgSpec::Kind::kFloat;
        arg.float_value = in.float_value;
        break;
      case codegen::SlotKind::kShapeVar:
        arg.kind = GpuArgSpec::Kind::kInt;
        arg.int_value = in.shape.at(slot.dim);
        values[slot.name] = arg.int_value;
        break;
    }
    request.args.push_back(arg);
  }
  try {
    for (const codegen::gpu::WorkspaceBuffer& w : plan.workspace) {
      GpuArgSpec arg;
      arg.kind = GpuArgSpec::Kind::kBuffer;
      arg.buffer = static_cast<int>(request.buffers.size());
      request.buffers.push_back(
          {w.dtype, {codegen::gpu::EvaluateExtent(w.elements, values)}, "", -1});
      request.args.push_back(arg);
    }
    for (const codegen::gpu::KernelLaunch& k : plan.kernels) {
      request.kernels.push_back(codegen::gpu::Concretize(k, values));
    }
  } catch (const Error& e) {
    return FailedResult(MeasureErrorKind::kBuildError, std::string("launch extents: ") + e.what());
  }

  TempDir dir;
  fs::path out_dir = dir.path() / "out";
  fs::create_directory(out_dir);
  request.source_path = (dir.path() / "kernel.src").string();
  WriteFileAtomically(request.source_path, d.source.code);
  request.timing = options_.timing;
  request.time = !warm;
  request.dump_outputs = !warm;
  request.output_dir = out_dir.string();
  // Every core busy for the whole limit, and a second more (SandboxRequest::cpu_limit_s).
  request.cpu_limit_s = (options_.build_time_limit_s + options_.run_time_limit_s) *
                            std::max(1u, std::thread::hardware_concurrency()) +
                        1;
  std::string request_path = (dir.path() / "request.json").string();
  std::string result_path = (dir.path() / "result.json").string();
  WriteFileAtomically(request_path, GpuRequestToJson(request));

  ProcessOptions p;
  p.argv = {runner_path_, request_path, result_path};
  p.time_limit_s = options_.build_time_limit_s + options_.run_time_limit_s;
  p.capture_output = true;
  p.max_output_bytes = 256 << 10;
  ProcessResult run;
  try {
    run = RunProcess(p);
  } catch (const Error& e) {
    throw SandboxFault(e.kind(), std::string("could not start the runner: ") + e.what());
  }
  std::string what = spec_.runner_name + " for kernel " + d.source.signature.symbol;
  if (run.timed_out) {
    return FailedResult(MeasureErrorKind::kTimeout, what + " " + run.Describe() + "; killed");
  }
  if (!run.exited && run.signal == SIGSYS) {
    return FailedResult(
        MeasureErrorKind::kSandboxViolation,
        what + " was stopped: a system call the runner forbids: " + Tail(run.output));
  }
  if (!run.exited) {
    return FailedResult(MeasureErrorKind::kRuntimeError,
                        what + " crashed: " + run.Describe() + ": " + Tail(run.output));
  }
  if (run.exit_code == kSandboxFaultExitStatus || run.exit_code == kNoDeviceExitStatus) {
    throw SandboxFault(ErrorKind::kIO, what + " could not carry out the request (" +
                                           run.Describe() + "): " + Tail(run.output));
  }
  if (run.exit_code != 0) {
    return FailedResult(MeasureErrorKind::kRuntimeError,
                        what + " " + run.Describe() + ": " + Tail(run.output));
  }
  if (warm) return {};
  SandboxResult r;
  try {
    r = ResultFromJson(ReadWholeFile(result_path), result_path);
  } catch (const Error& e) {
    throw SandboxFault(e.kind(), e.what());
  }
  MeasureResult measured;
  measured.error_kind = r.error_kind;
  measured.message = r.message;
  measured.build_seconds = r.build_seconds;
  measured.repeat_seconds = r.repeat_seconds;
  measured.median_seconds = r.median_seconds;
  measured.number = r.number;
  measured.contention = r.contention;
  if (!measured.ok()) {
    measured.repeat_seconds.clear();
    measured.median_seconds = 0;
    return measured;
  }

  std::map<int, ir::HostTensor> outputs;
  for (const TensorFileRef& out : r.outputs) {
    std::error_code ec;
    fs::path path = fs::weakly_canonical(out.path, ec);
    if (ec || path.parent_path() != fs::weakly_canonical(out_dir) || out.param_index < 0 ||
        out.param_index >= static_cast<int>(reference.params.size())) {
      throw SandboxFault(ErrorKind::kParse, result_path + ": output file " + out.path +
                                                " is not one it was asked for");
    }
    outputs[out.param_index] = ReadTensorFile(path.string(), out.dtype, out.shape);
  }
  std::vector<ir::HostTensor> expected, actual;
  std::vector<std::string> names;
  std::string compared;
  for (size_t i = 0; i < reference.params.size(); ++i) {
    const ReferenceParam& param = reference.params[i];
    if (param.input.kind != ArgSpec::Kind::kTensorFile) continue;
    auto it = outputs.find(static_cast<int>(i));
    if (it == outputs.end()) {
      throw SandboxFault(ErrorKind::kParse,
                         result_path + ": no value for parameter " + std::to_string(i));
    }
    auto buffer = candidate.workload->BufferOf(candidate.workload->params[i]);
    names.push_back(buffer ? (*buffer)->name : param.name);
    expected.push_back(param.expected);
    actual.push_back(it->second);
    if (param.written) {
      compared += (compared.empty() ? "" : ", ") + names.back() + ShapeText(param.input.shape);
    }
  }
  CheckOutputs(expected, actual, measured, std::nullopt, names);
  d.outputs = std::move(outputs);
  measured.reference = reference.source + "; compared every element of " + compared +
                       " and checked the inputs are unchanged (" + device_.key + ")";
  if (!measured.ok()) {
    measured.repeat_seconds.clear();
    measured.median_seconds = 0;
  }
  return measured;
}

}  // namespace kiln::runtime::gpu
