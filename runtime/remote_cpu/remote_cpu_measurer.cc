// RemoteCpuMeasurer: generate, cross-compile, send, compare.
#include "runtime/remote_cpu/remote_cpu_measurer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "codegen/target.h"
#include "runtime/cpu_wait.h"
#include "runtime/file_util.h"
#include "runtime/kernel_args.h"
#include "runtime/kernel_source.h"
#include "runtime/parallel_prepare.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::runtime::remote_cpu {
namespace {

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

std::string TargetKind(const std::string& target) { return target.substr(0, target.find(' ')); }

MeasureErrorKind ErrorKindOf(RunStatus status) {
  switch (status) {
    case RunStatus::kOk:
      return MeasureErrorKind::kOk;
    case RunStatus::kTimeout:
      return MeasureErrorKind::kTimeout;
    case RunStatus::kLoadError:
    case RunStatus::kKernelError:
    case RunStatus::kCrashed:
      return MeasureErrorKind::kRuntimeError;
  }
  return MeasureErrorKind::kRuntimeError;
}

}  // namespace

std::string EmulatedNote(const RunnerFacts& facts) {
  return "emulated (" + facts.emulation +
         "): correctness only, the times are the emulator's and no device's";
}

RemoteCpuMeasurer::RemoteCpuMeasurer(MeasureOptions options, RemoteRunnerOptions runner)
    : options_(std::move(options)),
      runner_(std::move(runner)),
      references_(ReferenceOptionsFor(options_)) {
  KILN_CHECK(!runner_.address.empty(), ErrorKind::kUnsupported,
             "the remote-cpu measurer needs a device runner: kiln-worker --device-runner "
             "HOST:PORT, or " +
                 std::string(kDeviceRunnerEnv) + "=HOST:PORT");
  std::string kind = TargetKind(options_.target);
  KILN_CHECK(kind == "llvm" || kind == "c", ErrorKind::kUnsupported,
             "the remote-cpu measurer builds C for a CPU; target '" + options_.target +
                 "' is not one (llvm or c, with -mtriple=TRIPLE)");
  // The job's target says what to build for ("llvm -mtriple=aarch64-linux-android33": that API
  // level); else the runner's options; else the runner's own triple.
  std::string triple = TripleOfTarget(options_.target);
  if (triple.empty()) triple = runner_.triple;
  connection_ = RunnerConnection::Open(runner_.address, triple, runner_.connect_timeout_s);
  facts_ = connection_->facts();
  runner_.triple = triple.empty() ? facts_.triple : triple;
  toolchain_ = FindCrossToolchain(runner_.triple);
  KILN_LOG_INFO("remote-cpu: runner {} ({}, {}, {} cores{}), building with {}", runner_.address,
                facts_.triple, facts_.cpu, facts_.cores, facts_.emulated ? ", emulated" : "",
                toolchain_.compiler);
}

RemoteCpuMeasurer::Prepared RemoteCpuMeasurer::Prepare(const MeasureCandidate& candidate) {
  KILN_CHECK(candidate.workload.defined() && candidate.scheduled.defined(), ErrorKind::kInternal,
             "a measure candidate needs both the workload and the scheduled function");
  Prepared p;
  auto start = std::chrono::steady_clock::now();
  try {
    std::unique_ptr<codegen::CodegenTarget> target =
        codegen::CreateTarget(TargetKind(options_.target));
    GeneratedKernel kernel =
        GenerateKernel(candidate.scheduled, *target, KernelSymbol(candidate.scheduled));
    p.details.lowered = kernel.lowered;
    p.details.source = std::move(kernel.source);
  } catch (const Error& e) {
    p.result = FailedResult(MeasureErrorKind::kBuildError,
                            std::string("code generation failed: ") + e.what());
    return p;
  }
  p.details.generate_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  BuildOptions build;
  build.compiler = toolchain_.compiler;
  build.flags = toolchain_.flags;
  for (const std::string& flag : KernelFlags(facts_, toolchain_, p.details.source.uses_openmp)) {
    build.flags.push_back(flag);
  }
  build.time_limit_s = options_.build_time_limit_s;
  build.cache_dir = options_.cache_dir.empty() ? DefaultCacheDir() : options_.cache_dir;
  BuildResult built = BuildCSource(p.details.source.code, build);
  p.result.build_seconds = built.compile_seconds;
  p.result.build_cache_hit = built.cache_hit;
  p.details.build_key = built.key;
  if (!built.ok) {
    p.result.error_kind = MeasureErrorKind::kBuildError;
    p.result.message = built.error;
    return p;
  }
  p.details.library_path = built.library_path;
  p.built = true;
  return p;
}

RunResult RemoteCpuMeasurer::RunOnDevice(const RunRequest& request) {
  double timeout = request.time_limit_s + runner_.transfer_allowance_s;
  for (int attempt = 0;; ++attempt) {
    try {
      if (connection_ == nullptr) {
        connection_ =
            RunnerConnection::Open(runner_.address, runner_.triple, runner_.connect_timeout_s);
        facts_ = connection_->facts();
      }
      return connection_->Run(request, timeout);
    } catch (const Error& e) {
      // A broken connection is tried once more on a fresh one (the runner serves the next
      // session); an error frame is the runner's refusal of this request.
      if (e.kind() == ErrorKind::kRuntime || attempt >= 1) throw;
      KILN_LOG_WARN("remote-cpu: {}; connecting again", e.what());
      connection_.reset();
    }
  }
}

MeasureResult RemoteCpuMeasurer::Run(const MeasureCandidate& candidate, Prepared& p) {
  MeasureResult result = p.result;
  if (!p.built) return result;
  p.details.reference = candidate.reference ? candidate.reference
                                            : references_.Get(candidate.workload, candidate.dims,
                                                              options_.input_seed);
  const Reference& reference = *p.details.reference;
  std::string mismatch = ParameterMismatch(candidate.scheduled, reference, candidate.dims);
  if (!mismatch.empty()) {
    MeasureResult failed = FailedResult(MeasureErrorKind::kWrongResult, mismatch);
    failed.build_seconds = result.build_seconds;
    failed.build_cache_hit = result.build_cache_hit;
    return failed;
  }
  std::pair<uint64_t, uint64_t> verified_key{reference.key, p.details.build_key};
  bool verified;
  double cutoff = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    verified = !candidate.reference && verified_.count(verified_key) > 0;
    auto best = best_seconds_.find(reference.key);
    if (options_.cutoff_factor > 0 && best != best_seconds_.end()) {
      cutoff = std::max(options_.cutoff_factor * best->second, options_.cutoff_min_seconds);
    }
  }

  // The reference inputs, packed as the kernel takes them (checked against its signature),
  // then laid out for the wire: each tensor parameter one buffer.
  std::vector<ArgSpec> specs;
  for (const ReferenceParam& param : reference.params) specs.push_back(param.input);
  std::vector<ir::ArgValue> args = MaterializeArgs(specs);
  const codegen::KernelSignature& signature = p.details.source.signature;
  std::vector<codegen::PackedValue> packed = PackArguments(signature, args);
  RunRequest request;
  request.id = next_run_id_++;
  request.symbol = signature.symbol;
  request.library = ReadWholeFile(p.details.library_path);
  std::map<int, uint32_t> buffer_of_param;
  for (size_t i = 0; i < args.size(); ++i) {
    if (auto* tensor = std::get_if<ir::HostTensor>(&args[i])) {
      buffer_of_param[static_cast<int>(i)] = static_cast<uint32_t>(request.buffers.size());
      request.buffers.emplace_back(static_cast<const char*>(tensor->data()), tensor->nbytes());
    }
  }
  for (size_t s = 0; s < signature.slots.size(); ++s) {
    const codegen::ArgSlot& slot = signature.slots[s];
    WireSlot w;
    switch (slot.kind) {
      case codegen::SlotKind::kBufferData:
        w.kind = WireSlot::Kind::kBuffer;
        w.buffer = buffer_of_param.at(slot.param_index);
        break;
      case codegen::SlotKind::kScalarInt:
      case codegen::SlotKind::kShapeVar:
        w.kind = WireSlot::Kind::kInt;
        w.int_value = packed[s].i;
        break;
      case codegen::SlotKind::kScalarFloat:
        w.kind = WireSlot::Kind::kFloat;
        w.float_value = packed[s].f;
        break;
    }
    request.slots.push_back(w);
  }
  request.dump_outputs = !verified;
  request.timing = options_.timing;
  if (cutoff > 0) request.timing.cutoff_seconds = cutoff;
  request.time_limit_s = options_.run_time_limit_s;
  request.num_threads = std::max(0, options_.num_threads);

  RunResult ran = RunOnDevice(request);
  if (ran.status == RunStatus::kLoadError) {
    // The device could not load what this host built (a missing OpenMP runtime, another C
    // library): the machinery, not the candidate.
    throw Error(ErrorKind::kUnsupported,
                "the device runner at " + runner_.address + " could not load kernel " +
                    request.symbol + " built with " + toolchain_.compiler + ": " + ran.message);
  }
  MeasureResult measured;
  measured.build_seconds = result.build_seconds;
  measured.build_cache_hit = result.build_cache_hit;
  measured.error_kind = ErrorKindOf(ran.status);
  measured.message = ran.message;
  if (ran.cutoff == Cutoff::kAbandoned) {
    // Stopped in its first run: never checked, and its time is a lower bound.
    char note[320];
    std::snprintf(note, sizeof note,
                  "abandoned by the early cutoff: its first run was still going after %.4g s "
                  "(%g x the cutoff of %.4g s, %g x the best of this workload so far); outputs "
                  "not checked, the time is a lower bound",
                  ran.median_seconds, kCutoffAbandonFactor, cutoff, options_.cutoff_factor);
    measured.error_kind = MeasureErrorKind::kTimeout;
    measured.message = note;
    measured.median_seconds = ran.median_seconds;
    return measured;
  }
  if (!measured.ok()) return measured;
  measured.repeat_seconds = ran.repeat_seconds;
  measured.median_seconds = ran.median_seconds;
  measured.number = ran.number;
  measured.contention = ran.contention;

  std::vector<std::string> notes;
  if (facts_.emulated) notes.push_back(EmulatedNote(facts_));
  if (ran.cutoff != Cutoff::kNone) {
    char note[256];
    std::snprintf(note, sizeof note,
                  "early cutoff (%s): its first run was past the cutoff of %.4g s (%g x the best "
                  "of this workload so far)",
                  std::string(CutoffName(ran.cutoff)).c_str(), cutoff, options_.cutoff_factor);
    notes.push_back(note);
  }
  // A correct kernel timed while the device was busy (its threads waited for a core:
  // runtime/cpu_wait.h) is timed again, up to max_retimes times, and the least contended
  // timing kept, as the CPU measurer does.
  auto retime_if_contended = [&](MeasureResult& m) {
    if (m.contention < kContendedShare || options_.max_retimes <= 0) return;
    std::string contentions = Number(m.contention);
    int timings = 1;
    request.dump_outputs = false;
    while (timings <= options_.max_retimes && m.contention >= kContendedShare) {
      request.id = next_run_id_++;
      RunResult again = RunOnDevice(request);
      ++timings;
      if (again.status != RunStatus::kOk) break;
      contentions += ", " + Number(again.contention);
      if (again.contention < kContendedShare || again.median_seconds < m.median_seconds) {
        m.repeat_seconds = again.repeat_seconds;
        m.median_seconds = again.median_seconds;
        m.number = again.number;
        m.contention = again.contention;
        ran.cutoff = again.cutoff;
      }
    }
    notes.push_back("timed " + std::to_string(timings) +
                    " times: the device was busy (contention " + contentions + "); kept the " +
                    (m.contention < kContendedShare ? "quiet timing" : "fastest"));
  };
  auto finish = [&](MeasureResult m) {
    retime_if_contended(m);
    for (const std::string& note : notes) m.message += (m.message.empty() ? "" : "; ") + note;
    if (ran.cutoff == Cutoff::kNone && m.median_seconds > 0) {
      std::lock_guard<std::mutex> lock(mutex_);
      auto [it, fresh] = best_seconds_.emplace(reference.key, m.median_seconds);
      if (!fresh) it->second = std::min(it->second, m.median_seconds);
    }
    return m;
  };
  if (verified) {
    measured.correctness_checked = true;
    measured.reference = reference.source + "; this build matched it before";
    return finish(std::move(measured));
  }

  KILN_CHECK(ran.outputs.size() == request.buffers.size(), ErrorKind::kParse,
             "the device runner at " + runner_.address + " returned " +
                 std::to_string(ran.outputs.size()) + " buffers for " +
                 std::to_string(request.buffers.size()));
  std::vector<ir::HostTensor> expected, actual;
  std::vector<std::string> names;
  std::string compared;
  for (size_t i = 0; i < reference.params.size(); ++i) {
    const ReferenceParam& param = reference.params[i];
    auto it = buffer_of_param.find(static_cast<int>(i));
    if (it == buffer_of_param.end()) continue;
    const std::string& bytes = ran.outputs[it->second];
    ir::HostTensor out(param.expected.dtype(), param.expected.shape());
    KILN_CHECK(bytes.size() == out.nbytes(), ErrorKind::kParse,
               "the device runner at " + runner_.address + " returned " +
                   std::to_string(bytes.size()) + " bytes for " + param.name + ", " +
                   out.Describe() + " expected");
    std::memcpy(out.data(), bytes.data(), bytes.size());
    auto buffer = candidate.workload->BufferOf(candidate.workload->params[i]);
    names.push_back(buffer ? (*buffer)->name : param.name);
    expected.push_back(param.expected);
    actual.push_back(out);
    p.details.outputs[static_cast<int>(i)] = out;
    if (param.written) {
      compared += (compared.empty() ? "" : ", ") + names.back() + ShapeText(param.input.shape);
    }
  }
  CheckOutputs(expected, actual, measured, std::nullopt, names);
  measured.reference = reference.source + "; compared every element of " + compared +
                       " and checked the inputs are unchanged";
  if (!measured.ok()) {
    measured.repeat_seconds.clear();
    measured.median_seconds = 0;
    return measured;
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    verified_.insert(verified_key);
  }
  return finish(std::move(measured));
}

MeasureResult RemoteCpuMeasurer::Measure(const MeasureCandidate& candidate,
                                         MeasureDetails* details) {
  Prepared p = Prepare(candidate);
  MeasureResult result = Run(candidate, p);
  if (details) *details = std::move(p.details);
  return result;
}

std::vector<MeasureResult> RemoteCpuMeasurer::MeasureBatch(
    const std::vector<MeasureCandidate>& candidates) {
  return PrepareThenRun<Prepared, MeasureResult>(
      candidates, options_.build_jobs, [&](const MeasureCandidate& c) { return Prepare(c); },
      [&](const MeasureCandidate& c, Prepared& p) { return Run(c, p); });
}

void RegisterRemoteCpuMeasurer(const RemoteRunnerOptions& runner) {
  RegisterMeasurer(kRemoteCpuDeviceKind, [runner](const MeasureOptions& options) {
    return std::make_unique<RemoteCpuMeasurer>(options, runner);
  });
}

std::unique_ptr<Measurer> CreateRemoteCpuMeasurerFromEnvironment(const MeasureOptions& options) {
  const char* address = std::getenv(kDeviceRunnerEnv);
  KILN_CHECK(address != nullptr && *address != '\0', ErrorKind::kUnsupported,
             "no device runner for the remote-cpu measurer: give kiln-worker --device-runner "
             "HOST:PORT, or set " +
                 std::string(kDeviceRunnerEnv));
  RemoteRunnerOptions runner;
  runner.address = address;
  return std::make_unique<RemoteCpuMeasurer>(options, runner);
}

}  // namespace kiln::runtime::remote_cpu
