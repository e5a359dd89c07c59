// The device being validated, as validation drives it: one kernel call at a time, with the
// inputs it is given (a carved call's, or the live values of a partly offloaded run), through
// the device's own measurer (runtime/measurer.h), so the kernel is generated, built, run and
// timed exactly as tuning measures it, crashes and hangs included, in a child process.
//
// The kernel a call runs on the device is its task's best tuning record for the device when a
// database is given and one replays, else its default schedule for that device: for a CPU
// target the default CPU schedule (search/space/default_schedule.h; the loops as written where
// none applies), for a GPU target the default GPU thread binding
// (search/space/thread_binding.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "database/database.h"
#include "ir/function.h"
#include "ir/host_tensor.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/module.h"
#include "runtime/fault_injection.h"
#include "runtime/measurer.h"
#include "search/measure/async_measurer.h"

namespace kiln::validate {

struct TargetOptions {
  std::string target = "llvm";  // a codegen target: llvm, c, opencl, vulkan, cuda
  std::string cache_dir = {};   // builds; empty: the runtime's default
  int threads = 0;              // a CPU kernel's threads; 0: every core
  double run_time_limit_s = 30;
  std::optional<runtime::FaultSpec> fault = std::nullopt;  // runtime/fault_injection.h
  // Run each workload's loops as written, not its default schedule: the trusted build that
  // tuning's references use past the interpreter's budget (runtime/reference_store.h), as a
  // reference device (`tune validate --reference llvm`).
  bool loops_as_written = false;
  // Measure through Kiln's service instead of in this process: each call is one request to
  // this asynchronous measurer (a coordinator's dispatcher), which sends it with its values
  // to a worker of the target and brings the worker's outputs back. Not owned.
  search::AsyncMeasurer* remote = nullptr;
  double remote_wait_s = 600;  // for one call's answer, before it is a timeout
  // The tuning records a task's kernel comes from: the best of `db` for (workload, target,
  // device_key) that replays (compiler/apply_best.h), else the default schedule. Not owned.
  database::Database* db = nullptr;
  std::string device_key = {};
};

// One argument of a call: a tensor, or a scalar.
struct CallValue {
  ir::HostTensor tensor;  // defined for a tensor
  bool is_scalar = false;
  ir::DataType dtype = ir::DataType::Int(64);
  int64_t int_value = 0;
  double float_value = 0;
};

struct TargetRun {
  // "ok" (it ran; the caller compares its outputs), or the measurer's error kind:
  // "build_error", "runtime_error", "timeout", "sandbox_violation".
  std::string status = "ok";
  std::string message;
  std::vector<ir::HostTensor> outputs;  // the call's outputs, in order, when it ran
  double seconds = 0;                   // its median time on the device; 0 when not timed
  std::string schedule;  // "record 17", "default cpu schedule", "loops as written", ...
};

class TargetDevice;

// A call_tir of the reference executor run on `device` (validate/carve.h, validate/offload.h):
// its argument values as the executor has them, the outputs shaped from the call's struct info
// in `env`. Returns the device's run; its outputs are the call's when its status is "ok".
struct TargetRun;
TargetRun RunCallOnDevice(TargetDevice& device, const ir::relax::IRModule& module,
                          const ir::relax::exec::CallTIRSite& site,
                          const std::vector<ir::relax::exec::Value>& args,
                          const std::vector<int64_t>& tir_vars,
                          const ir::relax::exec::ShapeEnv& env);

class TargetDevice {
 public:
  // Opens the device's measurer: kiln::Error(kUnsupported) saying why when this machine has
  // none of its kind.
  explicit TargetDevice(TargetOptions options);
  ~TargetDevice();

  // "vulkan (llvmpipe)", as the measurer names its device kind, with the target.
  std::string Describe() const;
  const TargetOptions& options() const { return options_; }

  // Runs `workload` (a task's unscheduled function) on the device: `inputs` are the call's
  // argument tuple, `outputs` the shapes and dtypes of what it writes (their contents unused),
  // `tir_vars` its trailing scalars, `bound` the values of its symbolic dims. `expected`,
  // when given, are the outputs the device's measurer checks the kernel against (a correct
  // kernel is then timed); otherwise the kernel is run and dumped, its time not kept.
  TargetRun Run(const ir::PrimFunc& workload, const std::map<std::string, int64_t>& bound,
                const std::vector<CallValue>& inputs, const std::vector<ir::HostTensor>& outputs,
                const std::vector<int64_t>& tir_vars, const std::vector<ir::HostTensor>* expected);

 private:
  const std::pair<ir::PrimFunc, std::string>& Scheduled(const ir::PrimFunc& workload);
  void make_work_dir();

  TargetOptions options_;
  std::string device_kind_;
  std::unique_ptr<runtime::Measurer> measurer_;          // checked and timed
  std::unique_ptr<runtime::Measurer> untimed_measurer_;  // for runs with no expected outputs
  std::map<uint64_t, std::pair<ir::PrimFunc, std::string>> scheduled_;  // by structural hash
  // One call through the remote measurer: its result and outputs, as a local measurer's.
  runtime::MeasureResult MeasureRemotely(const runtime::MeasureCandidate& candidate,
                                         runtime::MeasureDetails& details);

  std::string work_dir_;
  int64_t runs_ = 0;
};

}  // namespace kiln::validate
