// CpuMeasurer: the Measurer of the host CPU. Code comes from a CPU codegen target ("llvm",
// "c") as C, is built by the system compiler through the content-addressed cache (the
// compiler runs in its own process group with the build time limit), and is loaded, run
// once on the reference inputs, dumped and timed in a kiln-sandbox process with the run
// time limit. The outputs are compared with the reference once per (workload, build): a
// build already found correct is only timed. The best time of each workload so far sets the
// early cutoff (MeasureOptions::cutoff_factor) of the candidates that follow: one whose
// checked run is already past it is timed from that run or one more, and one whose checked
// run goes on far past it is abandoned: a kTimeout result whose median_seconds is how long it
// ran, a lower bound (runtime/timing.h). A correct candidate timed while the machine was busy
// (runtime/cpu_wait.h) is timed again, up to MeasureOptions::max_retimes times, and its
// record keeps the least contended timing and says so.
#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

#include "runtime/cpu_builder.h"
#include "runtime/measurer.h"
#include "runtime/reference_store.h"
#include "runtime/sandbox_client.h"

namespace kiln::runtime {

class CpuMeasurer : public Measurer {
 public:
  explicit CpuMeasurer(MeasureOptions options = {});

  std::string DeviceKind() const override { return "cpu"; }
  MeasureResult Measure(const MeasureCandidate& candidate,
                        MeasureDetails* details = nullptr) override;
  // Builds up to options.build_jobs candidates at once, then runs them one by one.
  std::vector<MeasureResult> MeasureBatch(const std::vector<MeasureCandidate>& candidates) override;

  const MeasureOptions& options() const { return options_; }
  ReferenceStore& references() { return references_; }

  // The two phases of Measure, for callers that pipeline them (search/measure's local
  // measurer builds on every core while it runs one candidate at a time). Prepare (code
  // generation and build) is safe to call from several threads at once and alongside Run; Run
  // (the reference, the parameter check, the sandboxed run and the comparison) calls are one
  // at a time. Prepare needs no reference, so that candidates build while it is computed.
  // A candidate after code generation and build: either ready to run, or already an error.
  struct Prepared {
    MeasureResult result;
    MeasureDetails details;
    bool built = false;
  };
  Prepared Prepare(const MeasureCandidate& candidate);
  // Where the time of one Run went, for callers that account for it.
  struct RunProfile {
    double sandbox_seconds = 0;  // the sandbox process, start to exit
    double kernel_seconds = 0;   // of that, the kernel's runs (checked run and timing)
    double check_seconds = 0;    // reading the outputs back and comparing them
    bool cut_off = false;        // timed from fewer runs by the early cutoff
    bool abandoned = false;      // of those, stopped in its first run (a kTimeout result)
    int retimes = 0;             // timed again because the machine was busy
  };
  MeasureResult Run(const MeasureCandidate& candidate, Prepared& prepared,
                    RunProfile* profile = nullptr);
  // The reference of the candidate's workload, computed at the first call (later ones wait
  // for it or find it ready); kiln::Error when none can be established.
  std::shared_ptr<const Reference> ReferenceOf(const MeasureCandidate& candidate);
  // The cutoff a candidate of the workload with reference key `reference_key` is timed with
  // now: cutoff_factor times the workload's best checked time so far (at least
  // cutoff_min_seconds); 0 when there is none or the cutoff is off.
  double CutoffSeconds(uint64_t reference_key);

 private:
  MeasureOptions options_;
  BuildOptions build_options_;
  ReferenceStore references_;
  SandboxClient sandbox_;
  std::mutex verified_mutex_;
  // (reference key, build key) pairs whose outputs matched the reference.
  std::set<std::pair<uint64_t, uint64_t>> verified_;
  // The best checked time per reference key, from the whole timing protocol.
  std::map<uint64_t, double> best_seconds_;
};

}  // namespace kiln::runtime
