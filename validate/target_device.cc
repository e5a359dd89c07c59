// TargetDevice: the default schedule per device kind, a caller-made reference per call, and the
// device's measurer.
#include "validate/target_device.h"

#include <stdlib.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <limits>
#include <thread>

#include "compiler/apply_best.h"
#include "ir/structural.h"
#include "runtime/host_cpu.h"
#include "runtime/reference_store.h"
#include "runtime/sandbox_protocol.h"
#include "search/space/default_schedule.h"
#include "search/space/thread_binding.h"
#include "support/error.h"
#include "support/stable_hash.h"
#include "validate/carve.h"

namespace kiln::validate {
namespace {

namespace fs = std::filesystem;

// A tensor the kernel must overwrite: NaN (floats) so that an element it never writes shows.
ir::HostTensor Unwritten(const ir::HostTensor& like) {
  ir::HostTensor t(like.dtype(), like.shape());
  if (like.dtype().is_float()) {
    for (int64_t i = 0; i < t.numel(); ++i) {
      t.SetDouble(i, std::numeric_limits<double>::quiet_NaN());
    }
  }
  return t;
}

// A run's folder, removed however the run ends.
struct RunFolder {
  fs::path path;
  explicit RunFolder(fs::path p) : path(std::move(p)) { fs::create_directories(path); }
  ~RunFolder() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  RunFolder(const RunFolder&) = delete;
  RunFolder& operator=(const RunFolder&) = delete;
};

}  // namespace

TargetRun RunCallOnDevice(TargetDevice& device, const ir::relax::IRModule& module,
                          const ir::relax::exec::CallTIRSite& site,
                          const std::vector<ir::relax::exec::Value>& args,
                          const std::vector<int64_t>& tir_vars,
                          const ir::relax::exec::ShapeEnv& env) {
  const ir::PrimFunc* workload = module.LookupPrimFunc(site.prim_func);
  KILN_CHECK(workload != nullptr, ErrorKind::kInvalidIR,
             "the model has no PrimFunc " + site.prim_func);
  std::vector<CallValue> values;
  std::vector<std::vector<int64_t>> shapes;
  for (const ir::relax::exec::Value& a : args) {
    CallValue v;
    if (a.is_tensor()) {
      v.tensor = a.tensor();
      shapes.push_back(v.tensor.shape());
    } else {
      v.is_scalar = true;
      v.dtype = a.prim().dtype;
      v.int_value = a.prim().int_value;
      v.float_value = a.prim().float_value;
    }
    values.push_back(std::move(v));
  }
  std::vector<ir::HostTensor> outputs;
  for (const ir::relax::StructInfo& s : site.call->sinfo_args) {
    outputs.push_back(ir::relax::exec::AllocateOutput(s, env));
    shapes.push_back(outputs.back().shape());
  }
  return device.Run(*workload, BoundValues(*workload, shapes, tir_vars), values, outputs, tir_vars,
                    nullptr);
}

TargetDevice::TargetDevice(TargetOptions options) : options_(std::move(options)) {
  device_kind_ = runtime::DeviceKindOfTarget(options_.target);
  runtime::MeasureOptions m;
  m.target = options_.target;
  m.cache_dir = options_.cache_dir;
  m.num_threads = options_.threads;
  m.run_time_limit_s = options_.run_time_limit_s;
  m.timing.number = 1;
  m.timing.repeat = 3;
  m.timing.min_repeat_ms = 1;
  m.cutoff_factor = 0;  // every call is timed alike, whatever ran before it
  m.max_retimes = 0;
  if (options_.remote != nullptr) {
    // The workers measure; this process only schedules and compares.
    KILN_CHECK(!options_.fault, ErrorKind::kUnsupported,
               "a fault is injected on the worker (kiln-worker --fault), not here");
    make_work_dir();
    return;
  }
  measurer_ = runtime::CreateMeasurer(device_kind_, m);
  // Unchecked runs need no time: one run after the one dumped.
  m.timing.warmup = 0;
  m.timing.repeat = 1;
  m.timing.min_repeat_ms = 0;
  untimed_measurer_ = runtime::CreateMeasurer(device_kind_, m);
  if (options_.fault) {
    measurer_ = runtime::WithFault(std::move(measurer_), *options_.fault);
    untimed_measurer_ = runtime::WithFault(std::move(untimed_measurer_), *options_.fault);
  }
  make_work_dir();
}

void TargetDevice::make_work_dir() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/kiln-validate-XXXXXX";
  KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO,
             "cannot create a temporary directory from " + pattern);
  work_dir_ = pattern;
}

runtime::MeasureResult TargetDevice::MeasureRemotely(const runtime::MeasureCandidate& candidate,
                                                     runtime::MeasureDetails& details) {
  search::MeasureRequest request;
  request.id = static_cast<uint64_t>(runs_);
  request.task_name = candidate.workload->name;
  request.workload = candidate.workload;
  request.scheduled = candidate.scheduled;
  request.dims = candidate.dims;
  request.reference = candidate.reference;
  request.return_outputs = true;
  options_.remote->Submit({request});
  auto start = std::chrono::steady_clock::now();
  while (true) {
    double waited = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (waited > options_.remote_wait_s) {
      return runtime::FailedResult(runtime::MeasureErrorKind::kTimeout,
                                   "no worker answered within " +
                                       std::to_string(static_cast<int>(options_.remote_wait_s)) +
                                       " s");
    }
    for (search::MeasureResponse& r : options_.remote->Collect(1.0)) {
      if (r.id != request.id) continue;  // an earlier call's late answer
      if (!r.machinery_error.empty()) {
        throw Error(ErrorKind::kRuntime, "worker " + r.worker + ": " + r.machinery_error);
      }
      details.outputs = std::move(r.outputs);
      r.result.message =
          r.result.message.empty() ? std::string() : "worker " + r.worker + ": " + r.result.message;
      return r.result;
    }
  }
}

TargetDevice::~TargetDevice() {
  std::error_code ec;
  fs::remove_all(work_dir_, ec);
}

std::string TargetDevice::Describe() const {
  std::string text = device_kind_ + " (target " + options_.target +
                     (options_.loops_as_written ? ", loops as written" : "") +
                     (options_.remote != nullptr ? ", through the service's workers" : "") + ")";
  if (options_.fault) text += " [" + runtime::DescribeFault(*options_.fault) + "]";
  return text;
}

const std::pair<ir::PrimFunc, std::string>& TargetDevice::Scheduled(const ir::PrimFunc& workload) {
  // By structure: two models' kernels may share a name and not their shapes.
  uint64_t key = ir::StructuralHash(workload);
  auto it = scheduled_.find(key);
  if (it != scheduled_.end()) return it->second;
  std::pair<ir::PrimFunc, std::string> s{workload, "loops as written"};
  if (options_.db != nullptr && !options_.loops_as_written) {
    compiler::ChosenSchedule chosen =
        compiler::ApplyBest(options_.db, workload, ir::StructuralHashHex(workload), options_.target,
                            options_.device_key);
    if (chosen.record) {
      std::string label =
          "record " + std::to_string(chosen.record->id) + " (" + options_.device_key + ")";
      return scheduled_.emplace(key, std::make_pair(chosen.scheduled, label)).first->second;
    }
  }
  try {
    if (options_.loops_as_written) {
      // The trusted build: nothing to schedule.
    } else if (device_kind_ == "cpu") {
      search::DefaultScheduleOptions defaults;
      defaults.num_cores =
          options_.threads > 0
              ? options_.threads
              : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
      defaults.vector_bytes = runtime::HostVectorBytes();
      if (std::optional<search::Candidate> c = search::DefaultCpuSchedule(workload, defaults)) {
        s = {c->scheduled, "default cpu schedule"};
      }
    } else {
      s = {search::DefaultGpuSchedule(workload), "default gpu schedule"};
    }
  } catch (const Error& e) {
    if (device_kind_ != "cpu") throw;  // a GPU kernel needs its threads bound
    s.second = std::string("loops as written (no default schedule: ") + e.what() + ")";
  }
  return scheduled_.emplace(key, std::move(s)).first->second;
}

TargetRun TargetDevice::Run(const ir::PrimFunc& workload,
                            const std::map<std::string, int64_t>& bound,
                            const std::vector<CallValue>& inputs,
                            const std::vector<ir::HostTensor>& outputs,
                            const std::vector<int64_t>& tir_vars,
                            const std::vector<ir::HostTensor>* expected) {
  TargetRun run;
  ir::PrimFunc scheduled;
  try {
    const auto& s = Scheduled(workload);
    scheduled = s.first;
    run.schedule = s.second;
  } catch (const Error& e) {
    run.status = "build_error";
    run.message = std::string("no schedule for the device: ") + e.what();
    return run;
  }
  RunFolder folder(fs::path(work_dir_) / ("run" + std::to_string(runs_++)));
  const fs::path& dir = folder.path;
  auto reference = std::make_shared<runtime::Reference>();
  StableHasher key;
  key.String(workload->name);
  size_t next_input = 0, next_output = 0, next_var = 0;
  auto tensor_param = [&](const std::string& name, const ir::HostTensor& value, bool written,
                          const ir::HostTensor& after) {
    runtime::ReferenceParam p;
    p.name = name;
    p.input.kind = runtime::ArgSpec::Kind::kTensorFile;
    p.input.dtype = value.dtype();
    p.input.shape = value.shape();
    p.input.path = (dir / ("arg" + std::to_string(reference->params.size()) + ".bin")).string();
    runtime::WriteTensorFile(value, p.input.path);
    p.written = written;
    p.expected = after;
    key.String(TensorStore::Digest(after));
    reference->params.push_back(std::move(p));
  };
  for (const ir::Var& param : workload->params) {
    std::optional<ir::Buffer> buffer = workload->BufferOf(param);
    std::string name = buffer ? (*buffer)->name : param.name();
    if (next_input < inputs.size()) {
      const CallValue& v = inputs[next_input++];
      if (v.is_scalar) {
        runtime::ReferenceParam p;
        p.name = name;
        p.input = v.dtype.is_float() ? runtime::ArgSpec::Float(v.float_value)
                                     : runtime::ArgSpec::Int(v.int_value);
        key.Int(v.int_value);
        key.Double(v.float_value);
        reference->params.push_back(std::move(p));
      } else {
        tensor_param(name, v.tensor, false, v.tensor);
      }
    } else if (next_output < outputs.size()) {
      size_t k = next_output++;
      const ir::HostTensor& after = expected ? expected->at(k) : outputs[k];
      tensor_param(name, Unwritten(outputs[k]), true, after);
    } else if (next_var < tir_vars.size()) {
      runtime::ReferenceParam p;
      p.name = name;
      p.input = runtime::ArgSpec::Int(tir_vars[next_var++]);
      key.Int(p.input.int_value);
      reference->params.push_back(std::move(p));
    } else {
      run.status = "build_error";
      run.message = "the call passes fewer arguments than " + workload->name + " takes";
      return run;
    }
  }
  reference->key = key.value();
  reference->source = expected ? "the carved call" : "the call's live inputs (unchecked)";
  reference->directory = dir.string();

  runtime::MeasureCandidate candidate{workload, scheduled, bound, reference};
  runtime::MeasureDetails details;
  runtime::MeasureResult result;
  try {
    result = options_.remote != nullptr
                 ? MeasureRemotely(candidate, details)
                 : (expected ? measurer_ : untimed_measurer_)->Measure(candidate, &details);
  } catch (const std::exception& e) {
    run.status = "runtime_error";
    run.message = std::string("the device's measurer failed: ") + e.what();
    return run;
  }
  bool ran = result.ok() || result.error_kind == runtime::MeasureErrorKind::kWrongResult;
  if (!ran) {
    run.status = std::string(runtime::MeasureErrorKindName(result.error_kind));
    run.message = result.message;
    return run;
  }
  if (expected) run.seconds = result.median_seconds;
  if (!result.ok() && expected) run.message = result.message;
  for (size_t i = 0; i < reference->params.size(); ++i) {
    if (!reference->params[i].written) continue;
    auto it = details.outputs.find(static_cast<int>(i));
    if (it == details.outputs.end()) {
      run.status = "runtime_error";
      run.message = "the device returned no value for output parameter " + std::to_string(i) +
                    (result.message.empty() ? "" : " (" + result.message + ")");
      run.outputs.clear();
      return run;
    }
    run.outputs.push_back(it->second);
  }
  return run;
}

}  // namespace kiln::validate
