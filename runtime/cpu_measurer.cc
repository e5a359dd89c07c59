// CpuMeasurer: parameter check, code generation, build, sandboxed run, comparison.
#include "runtime/cpu_measurer.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "runtime/cpu_wait.h"
#include "runtime/kernel_source.h"
#include "runtime/parallel_prepare.h"
#include "runtime/timing_gate.h"
#include "support/error.h"

namespace kiln::runtime {
namespace {

ReferenceOptions ReferenceOptionsFor(const MeasureOptions& options,
                                     const BuildOptions& build_options) {
  ReferenceOptions r;
  r.cache_dir = options.cache_dir;
  r.interpreter_budget = options.interpreter_budget;
  r.interpreter_limit = options.interpreter_limit;
  r.build = build_options;
  r.sandbox_path = options.sandbox_path;
  if (options.num_threads > 0) {
    r.extra_env.push_back("OMP_NUM_THREADS=" + std::to_string(options.num_threads));
  }
  return r;
}

SandboxOptions SandboxOptionsFor(const MeasureOptions& options) {
  SandboxOptions s;
  s.sandbox_path = options.sandbox_path;
  s.time_limit_s = options.run_time_limit_s;
  if (options.num_threads > 0) {
    s.extra_env.push_back("OMP_NUM_THREADS=" + std::to_string(options.num_threads));
  }
  return s;
}

std::string Number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}

}  // namespace

CpuMeasurer::CpuMeasurer(MeasureOptions options)
    : options_(std::move(options)),
      build_options_{options_.compiler, options_.c_flags, options_.build_time_limit_s,
                     options_.cache_dir.empty() ? DefaultCacheDir() : options_.cache_dir},
      references_(ReferenceOptionsFor(options_, build_options_)),
      sandbox_(SandboxOptionsFor(options_)) {
  KILN_CHECK(DeviceKindOfTarget(options_.target) == "cpu", ErrorKind::kUnsupported,
             "the CPU measurer cannot run code of target '" + options_.target + "'");
  KILN_CHECK(options_.cutoff_factor >= 0 && std::isfinite(options_.cutoff_factor) &&
                 options_.cutoff_min_seconds >= 0 && std::isfinite(options_.cutoff_min_seconds),
             ErrorKind::kParse,
             "measure options: cutoff_factor and cutoff_min_seconds must be non-negative; got " +
                 std::to_string(options_.cutoff_factor) + " and " +
                 std::to_string(options_.cutoff_min_seconds));
}

CpuMeasurer::Prepared CpuMeasurer::Prepare(const MeasureCandidate& candidate) {
  KILN_CHECK(candidate.workload.defined() && candidate.scheduled.defined(), ErrorKind::kInternal,
             "a measure candidate needs both the workload and the scheduled function");
  Prepared p;
  auto start = std::chrono::steady_clock::now();
  try {
    std::unique_ptr<codegen::CodegenTarget> target =
        codegen::CreateTarget(options_.target.substr(0, options_.target.find(' ')));
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

  BuildResult built = BuildCSource(p.details.source.code, build_options_);
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

double CpuMeasurer::CutoffSeconds(uint64_t reference_key) {
  if (options_.cutoff_factor <= 0) return 0;
  std::lock_guard<std::mutex> lock(verified_mutex_);
  auto it = best_seconds_.find(reference_key);
  if (it == best_seconds_.end()) return 0;
  return std::max(options_.cutoff_factor * it->second, options_.cutoff_min_seconds);
}

std::shared_ptr<const Reference> CpuMeasurer::ReferenceOf(const MeasureCandidate& candidate) {
  if (candidate.reference) return candidate.reference;
  return references_.Get(candidate.workload, candidate.dims, options_.input_seed);
}

MeasureResult CpuMeasurer::Run(const MeasureCandidate& candidate, Prepared& p,
                               RunProfile* profile) {
  RunProfile ignored;
  if (profile == nullptr) profile = &ignored;
  MeasureResult result = p.result;
  if (!p.built) return result;
  p.details.reference = ReferenceOf(candidate);
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
  {
    std::lock_guard<std::mutex> lock(verified_mutex_);
    verified = !candidate.reference && verified_.count(verified_key) > 0;
  }

  SandboxRequest request;
  request.phase = SandboxPhase::kTime;
  request.library_path = p.details.library_path;
  request.build = build_options_;
  request.signature = p.details.source.signature;
  for (const ReferenceParam& param : reference.params) request.args.push_back(param.input);
  request.timing = options_.timing;
  double cutoff = CutoffSeconds(reference.key);
  if (cutoff > 0) request.timing.cutoff_seconds = cutoff;
  request.dump_outputs = !verified;
  // A SandboxFault (the machinery failed, not the candidate) propagates: no result is made
  // up for a candidate that was never really run.
  auto time = [&](SandboxRequest r) {
    SandboxOutcome timed;
    {
      TimingGate::Timing quiet(TimingGate::Process());  // this process's search waits meanwhile
      timed = sandbox_.Run(std::move(r));
    }
    profile->sandbox_seconds += timed.wall_seconds;
    profile->kernel_seconds += timed.kernel_seconds;
    return timed;
  };
  SandboxOutcome outcome = time(request);

  MeasureResult measured = outcome.measure;
  measured.build_seconds = result.build_seconds;
  measured.build_cache_hit = result.build_cache_hit;
  if (outcome.cutoff == Cutoff::kAbandoned) {
    // Stopped in its first run: never checked, and its time is a lower bound.
    profile->cut_off = profile->abandoned = true;
    measured.error_kind = MeasureErrorKind::kTimeout;
    char note[320];
    std::snprintf(note, sizeof note,
                  "abandoned by the early cutoff: its first run was still going after %.4g s "
                  "(%g x the cutoff of %.4g s, %g x the best of this workload so far); outputs "
                  "not checked, the time is a lower bound",
                  measured.median_seconds, kCutoffAbandonFactor, cutoff, options_.cutoff_factor);
    measured.message = note;
    measured.repeat_seconds.clear();
    return measured;
  }
  if (!measured.ok()) {
    measured.repeat_seconds.clear();
    measured.median_seconds = 0;
    return measured;
  }
  // A correct kernel timed while the machine was busy (cpu_wait.h) is timed again, up to
  // max_retimes times, and the least contended timing kept (the fastest if all were): its
  // record is one measurement that says how it was made.
  auto retime_if_contended = [&](MeasureResult& m) {
    if (m.contention < kContendedShare || options_.max_retimes <= 0) return;
    std::string contentions = Number(m.contention);
    int timings = 1;
    request.dump_outputs = false;
    while (timings <= options_.max_retimes && m.contention >= kContendedShare) {
      SandboxOutcome again = time(request);
      ++timings;
      if (!again.measure.ok() || again.cutoff == Cutoff::kAbandoned) break;
      contentions += ", " + Number(again.measure.contention);
      if (again.measure.contention < kContendedShare ||
          again.measure.median_seconds < m.median_seconds) {
        m.repeat_seconds = again.measure.repeat_seconds;
        m.median_seconds = again.measure.median_seconds;
        m.number = again.measure.number;
        m.contention = again.measure.contention;
        outcome.cutoff = again.cutoff;
      }
    }
    profile->retimes = timings - 1;
    m.message = "timed " + std::to_string(timings) + " times: the machine was busy (contention " +
                contentions + "); kept the " +
                (m.contention < kContendedShare ? "quiet timing" : "fastest");
  };
  // A correct kernel's record keeps its time and says how it was timed when the cutoff
  // shortened the protocol; the best time so far comes from whole protocols only.
  auto finish = [&](MeasureResult m) {
    retime_if_contended(m);
    std::string retimed = m.message;
    if (outcome.cutoff != Cutoff::kNone) {
      profile->cut_off = true;
      char note[320];
      if (outcome.cutoff == Cutoff::kFirstRun) {
        std::snprintf(note, sizeof note,
                      "early cutoff: timed from its first run alone (%.4g s), over %g times "
                      "the cutoff of %.4g s (%g x the best of this workload so far)",
                      m.median_seconds, kCutoffFirstRunFactor, cutoff, options_.cutoff_factor);
      } else {
        std::snprintf(note, sizeof note,
                      "early cutoff: its first run was past the cutoff of %.4g s (%g x the best "
                      "of this workload so far); timed from one more run (%.4g s)",
                      cutoff, options_.cutoff_factor, m.median_seconds);
      }
      m.message = note + (retimed.empty() ? "" : "; " + retimed);
    } else if (m.median_seconds > 0) {
      std::lock_guard<std::mutex> lock(verified_mutex_);
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

  auto check_start = std::chrono::steady_clock::now();
  std::vector<ir::HostTensor> expected, actual;
  std::vector<std::string> names;
  std::string compared;
  for (size_t i = 0; i < reference.params.size(); ++i) {
    const ReferenceParam& param = reference.params[i];
    if (param.input.kind != ArgSpec::Kind::kTensorFile) continue;
    auto it = outcome.outputs.find(static_cast<int>(i));
    KILN_CHECK(it != outcome.outputs.end(), ErrorKind::kInternal,
               "the sandbox returned no value for parameter " + std::to_string(i));
    auto buffer = candidate.workload->BufferOf(candidate.workload->params[i]);
    names.push_back(buffer ? (*buffer)->name : param.name);
    expected.push_back(param.expected);
    actual.push_back(it->second);
    if (param.written) {
      compared += (compared.empty() ? "" : ", ") + names.back() + ShapeText(param.input.shape);
    }
  }
  CheckOutputs(expected, actual, measured, std::nullopt, names);
  p.details.outputs = outcome.outputs;
  profile->check_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - check_start).count();
  measured.reference = reference.source + "; compared every element of " + compared +
                       " and checked the inputs are unchanged";
  if (!measured.ok()) {
    // A wrong kernel is an error result, never a fast one.
    measured.repeat_seconds.clear();
    measured.median_seconds = 0;
    return measured;
  }
  {
    std::lock_guard<std::mutex> lock(verified_mutex_);
    verified_.insert(verified_key);
  }
  return finish(std::move(measured));
}

MeasureResult CpuMeasurer::Measure(const MeasureCandidate& candidate, MeasureDetails* details) {
  Prepared p = Prepare(candidate);
  MeasureResult result = Run(candidate, p);
  if (details) *details = std::move(p.details);
  return result;
}

std::vector<MeasureResult> CpuMeasurer::MeasureBatch(
    const std::vector<MeasureCandidate>& candidates) {
  return PrepareThenRun<Prepared, MeasureResult>(
      candidates, options_.build_jobs, [&](const MeasureCandidate& c) { return Prepare(c); },
      [&](const MeasureCandidate& c, Prepared& p) { return Run(c, p); });
}

}  // namespace kiln::runtime
