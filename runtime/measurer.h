// Measurer: the measurement pipeline a worker runs for every candidate, one implementation
// per device kind ("cpu" now; CUDA, Vulkan, OpenCL later). It takes the workload (the task's
// unscheduled function, which defines what is correct) and the candidate's scheduled
// function (never a trace: the runtime does not depend on the search), and returns the
// MeasureResult record: generate code -> build -> run once and time in a sandbox with a time
// limit -> compare every parameter with the workload's reference outputs
// (runtime/reference_store.h) -> ok, build_error, runtime_error, timeout or wrong_result.
//
// A fault of the candidate is a result, never an exception; an exception means the
// machinery failed (no compiler, an unwritable cache, a workload whose reference cannot be
// established).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codegen/target.h"
#include "ir/function.h"
#include "runtime/measure_result.h"
#include "runtime/reference_store.h"
#include "runtime/timing.h"

namespace kiln::runtime {

struct MeasureCandidate {
  ir::PrimFunc workload;   // unscheduled: what the reference computes
  ir::PrimFunc scheduled;  // the candidate: the workload with a schedule applied
  // Values of the workload's symbolic dimensions and scalar parameters, by name.
  std::map<std::string, int64_t> dims = {};
  // Given inputs and expected values (a validation's carved call, validate/replay.h) instead
  // of the seeded random inputs and the interpreter's outputs; its key must be unique to its
  // contents. The outputs are always dumped and compared, never taken as matched before.
  std::shared_ptr<const Reference> reference = nullptr;
};

struct MeasureOptions {
  std::string target = "llvm";  // a codegen target name (codegen/target.h)
  TimingConfig timing = {};
  double build_time_limit_s = 60;  // the compiler's wall clock
  double run_time_limit_s = 30;    // the sandbox's: run once, dump, time
  uint64_t input_seed = 1;         // the seeded random inputs every candidate runs on
  int num_threads = 0;             // threads of a parallel kernel (OMP_NUM_THREADS); 0: all
  std::string cache_dir = {};      // builds and references; empty: DefaultCacheDir()
  std::string sandbox_path = {};   // empty: FindSandboxExecutable()
  std::vector<std::string> c_flags = DefaultCFlags();
  std::string compiler = "gcc";
  // Budget and limit of the interpreter for references (runtime/reference_store.h).
  int64_t interpreter_budget = ReferenceOptions{}.interpreter_budget;
  int64_t interpreter_limit = ReferenceOptions{}.interpreter_limit;
  // Candidates built at once by MeasureBatch (runs are always one at a time).
  int build_jobs = 1;
  // Early cutoff (runtime/timing.h): a candidate whose first run already takes this many times
  // the best time of its workload so far (on this measurer) is timed from one more run (or
  // from that run alone when it is ten times past), and its record's message says so. 0: every
  // candidate gets the whole timing protocol.
  double cutoff_factor = 5;
  // The cutoff is never below this. A single run of a few milliseconds is no time record: a
  // microsecond transpose's first runs in a fresh sandbox took 5-9 ms (thread pool start,
  // a descheduled OpenMP thread waiting out a scheduler slice), and with a 1 ms floor every
  // candidate of such a task was recorded at that, never improving on its untuned kernel. Below
  // 20 ms the whole protocol costs little anyway.
  double cutoff_min_seconds = 20e-3;
  // A correct candidate whose timing was contended (runtime/cpu_wait.h: the machine was busy)
  // is timed again up to this many times; the record keeps the least contended timing (the
  // fastest when every one was) and its message says so. 0: never.
  int max_retimes = 2;
};

// What the pipeline made on the way, for tools that show it (`tune kernel`).
struct MeasureDetails {
  ir::PrimFunc lowered;
  codegen::EmittedSource source;
  std::string library_path;
  uint64_t build_key = 0;
  std::shared_ptr<const Reference> reference;
  double generate_seconds = 0;  // lowering and emitting
  // Every tensor parameter's value after the run that was checked, by parameter index; empty
  // when the outputs were not dumped (a build already matched this reference).
  std::map<int, ir::HostTensor> outputs;
};

class Measurer {
 public:
  virtual ~Measurer() = default;
  // "cpu", "cuda", ...
  virtual std::string DeviceKind() const = 0;
  // Measures one candidate; fills `details` when given.
  virtual MeasureResult Measure(const MeasureCandidate& candidate,
                                MeasureDetails* details = nullptr) = 0;
  // Measures candidates in order; the default measures them one by one. Implementations
  // may build ahead in parallel, but run and time one at a time.
  virtual std::vector<MeasureResult> MeasureBatch(const std::vector<MeasureCandidate>& candidates);
};

// The reference store's options for a measurer of another device than the host CPU: the
// cache and interpreter budget of `options`, and a reference the interpreter cannot afford
// built on this host with `options`' compiler (the values are the workload's, whichever
// device computes them).
ReferenceOptions ReferenceOptionsFor(const MeasureOptions& options);

using MeasurerFactory = std::function<std::unique_ptr<Measurer>(const MeasureOptions&)>;

// Adds or replaces the measurer of `device_kind`.
void RegisterMeasurer(const std::string& device_kind, MeasurerFactory factory);
// A measurer for `device_kind` ("cpu" is built in); kiln::Error(kUnsupported) listing the
// known kinds otherwise.
std::unique_ptr<Measurer> CreateMeasurer(const std::string& device_kind,
                                         const MeasureOptions& options);
// The device kind that runs code of codegen target `target`: "llvm" and "c" run on "cpu".
// kiln::Error(kUnsupported) for a target no measurer serves.
std::string DeviceKindOfTarget(const std::string& target);

}  // namespace kiln::runtime
