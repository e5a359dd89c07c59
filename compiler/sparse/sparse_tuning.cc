// The sparse tuning driver: workload, reference, untuned figure, search, final measurement.
#include "compiler/sparse/sparse_tuning.h"

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "compiler/sparse/formats/format_kernels.h"
#include "compiler/sparse/sparse_reference_store.h"
#include "cost_model/xgb_cost_model.h"
#include "database/sqlite_database.h"
#include "ir/structural.h"
#include "ir/text/printer.h"
#include "runtime/host_cpu.h"
#include "runtime/measurer.h"
#include "search/measure/local_measurer.h"
#include "search/measure/observed_measurer.h"
#include "search/schedule/trace.h"
#include "search/space/design_space.h"
#include "search/space/thread_binding.h"
#include "search/tuner.h"
#include "support/error.h"
#include "support/logging.h"
#include "worker/device_key.h"

namespace kiln::compiler::sparse {

namespace {

runtime::MeasureOptions MeasureOptionsOf(const SparseTuneOptions& o) {
  runtime::MeasureOptions m;
  m.target = o.target;
  m.num_threads = o.threads;
  m.input_seed = o.seed;
  m.cache_dir = o.cache_dir;
  m.timing.min_repeat_ms = o.min_repeat_ms;
  m.run_time_limit_s = 120;
  return m;
}

// The search's AsyncMeasurer over a GPU device's measurer (search::LocalMeasurer times on this
// CPU only): Submit measures the batch at once, one candidate at a time (a GPU is timed alone;
// its measurer builds and runs in a child process, and warms the driver's compile cache for
// the batch first), and Collect hands the results back.
class DeviceMeasurer : public search::AsyncMeasurer {
 public:
  explicit DeviceMeasurer(runtime::Measurer& measurer) : measurer_(measurer) {}
  void Submit(std::vector<search::MeasureRequest> requests) override {
    std::vector<runtime::MeasureCandidate> candidates;
    for (const search::MeasureRequest& r : requests) {
      candidates.push_back({r.workload, r.scheduled, r.dims, r.reference});
    }
    std::vector<runtime::MeasureResult> results;
    std::string fault;
    try {
      results = measurer_.MeasureBatch(candidates);
    } catch (const std::exception& e) {
      fault = e.what();
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      search::MeasureResponse response;
      response.id = requests[i].id;
      response.worker = measurer_.DeviceKind();
      if (fault.empty()) {
        response.result = results[i];
      } else {
        response.machinery_error = fault;
      }
      done_.push_back(std::move(response));
    }
  }
  std::vector<search::MeasureResponse> Collect(double) override {
    std::vector<search::MeasureResponse> out;
    out.swap(done_);
    return out;
  }
  size_t Pending() const override { return done_.size(); }

 private:
  runtime::Measurer& measurer_;
  std::vector<search::MeasureResponse> done_;
};

}  // namespace

namespace {

// The formats `auto` tunes, each with a share of the trials: CSR, blocks for clustered
// nonzeros, and SparseTIR's hyb with its usual parameters (SDDMM: the formats it has kernels in).
std::vector<std::string> AutoFormats(SparseOp op) {
  if (op == SparseOp::kSddmm) return {"csr", "bsr:4:4"};
  return {"csr", "bsr:4:4", "hyb:1:5"};
}

// One format tuned: each of its kernels a task of one Tuner, the format's latency the sum of
// its kernels' (they run one after the other), every kernel's best measured again.
SparseTuneResult TuneFormat(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                            const SparseFormat& format, const SparseTuneOptions& options,
                            int64_t trials) {
  SparseTuneResult result;
  result.format = FormatSpelling(format);
  const ir::sparse::CsrMatrix padded = op == SparseOp::kSpmm ? PadEmptyRows(matrix) : matrix;
  result.problem = ProblemOf(op, padded, feat);
  std::vector<SparseKernel> kernels =
      FormatKernels(matrix, op, feat, format, options.seed, options.cache_dir);
  KILN_CHECK(!kernels.empty(), ErrorKind::kInternal, "format " + result.format + ": no kernel");
  result.kernels = static_cast<int64_t>(kernels.size());
  for (const SparseKernel& k : kernels) result.conversion_seconds += k.conversion_seconds;

  const runtime::MeasureOptions measure = MeasureOptionsOf(options);
  const bool gpu = search::IsGpuPreset(options.target);
  std::unique_ptr<runtime::Measurer> measurer =
      runtime::CreateMeasurer(runtime::DeviceKindOfTarget(options.target), measure);
  // The untuned figure: every kernel as written (on a GPU the default GPU schedule, one thread
  // per row, as the compiler gives a GPU kernel no record covers). A GPU's default kernel may
  // fail where a tuned one does not (lavapipe ends a thread's loops after 65535 iterations in
  // all, which one thread per long row exceeds): no untuned figure then (0), and the search
  // goes on.
  bool untuned_ok = true;
  std::vector<double> untuned_each;  // per kernel; 0 where it failed
  for (const SparseKernel& k : kernels) {
    const ir::PrimFunc untuned_kernel = gpu ? search::DefaultGpuSchedule(k.workload) : k.workload;
    runtime::MeasureResult untuned =
        measurer->Measure({k.workload, untuned_kernel, {}, k.reference});
    if (gpu && !untuned.ok()) {
      KILN_LOG_WARN("{}: the default GPU schedule (the untuned kernel) failed on {}: {}", k.name,
                    measurer->DeviceKind(), untuned.message);
      untuned_ok = false;
    } else {
      KILN_CHECK(untuned.ok(), ErrorKind::kRuntime,
                 k.name + " as written (the untuned kernel) failed: " + untuned.message);
      result.untuned_seconds += untuned.median_seconds;
    }
    untuned_each.push_back(untuned.ok() ? untuned.median_seconds : 0);
  }
  if (!untuned_ok) result.untuned_seconds = 0;

  const int cores = options.threads > 0
                        ? options.threads
                        : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  search::LocalMeasurerOptions local;
  local.measure = measure;
  std::unique_ptr<search::AsyncMeasurer> async;
  if (gpu) {
    async = std::make_unique<DeviceMeasurer>(*measurer);
  } else {
    async = std::make_unique<search::LocalMeasurer>(local);
  }
  // The database: the workloads, their best earlier records as seeds, every measurement after.
  std::unique_ptr<database::SqliteDatabase> db;
  const std::string device = gpu ? measurer->DeviceKind() : worker::DetectCpuDeviceKey();
  std::vector<search::TuneTask> tasks;
  std::map<std::string, std::string> hash_of_task;
  if (!options.database_path.empty()) {
    db = std::make_unique<database::SqliteDatabase>(options.database_path);
  }
  for (const SparseKernel& k : kernels) {
    search::TuneTask task;
    task.name = k.name;
    task.workload = k.workload;
    task.flop = k.flops;
    task.reference = k.reference;
    const std::string hash = ir::StructuralHashHex(k.workload);
    hash_of_task[k.name] = hash;
    if (db) {
      db->CommitWorkload({hash, k.workload->name, ir::PrintPrimFunc(k.workload)});
      for (const database::TuningRecord& record : db->TopK(hash, options.target, device, 8)) {
        task.seeds.push_back({search::Trace::FromJSON(nlohmann::json::parse(record.trace_json)),
                              record.result.median_seconds});
      }
      result.seeded += static_cast<int64_t>(task.seeds.size());
    }
    tasks.push_back(std::move(task));
  }
  std::mutex records_mutex;
  std::vector<database::TuningRecord> records;
  search::ObservedMeasurer observed(
      *async, [&](const search::MeasureRequest& request, const search::MeasureResponse& response) {
        if (!db || request.untuned || !response.machinery_error.empty()) return;
        database::TuningRecord record;
        record.workload_hash = hash_of_task.at(request.task_name);
        record.target = options.target;
        record.device = device;
        record.trace_json = request.trace.ToJSON().dump();
        record.result = response.result;
        record.worker = response.worker;
        std::lock_guard lock(records_mutex);
        records.push_back(std::move(record));
      });
  search::TunerOptions tuner_options;
  tuner_options.max_trials_global = std::max<int64_t>(trials, result.kernels);
  tuner_options.seed = options.seed;
  tuner_options.target = options.target;
  tuner_options.num_cores = cores;
  tuner_options.vector_bytes = runtime::HostVectorBytes();
  tuner_options.measure_untuned = false;         // measured above, on the same references
  tuner_options.seed_default_schedules = false;  // the dense defaults refuse sparse loops
  cost_model::XgbOptions xgb;
  xgb.seed = options.seed;
  std::unique_ptr<search::CostModel> model = cost_model::MakeXgbCostModel(xgb);
  auto start = std::chrono::steady_clock::now();
  const char* space = gpu ? "sparse-gpu" : "sparse-cpu";
  search::Tuner tuner(
      tasks, tuner_options, observed,
      [space](const search::TuneContext&) { return search::MakeDesignSpace(space); }, model.get());
  search::TuneReport report = tuner.Run();
  result.tuning_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (db && !records.empty()) result.records_stored = db->CommitRecords(records);

  // Every kernel's best, measured again: the format is correct when all of them are.
  nlohmann::json traces = nlohmann::json::array();
  result.correct = true;
  for (size_t i = 0; i < kernels.size(); ++i) {
    const search::TaskReport& t = report.tasks[i];
    result.trials += t.trials;
    // A kernel the search found nothing correct for (or gave no trial: a small budget over
    // hyb's parts) runs as the untuned kernel; the format is wrong only if that fails too.
    ir::PrimFunc scheduled = t.best_trace ? search::ReplayTrace(kernels[i].workload, *t.best_trace)
                             : gpu        ? search::DefaultGpuSchedule(kernels[i].workload)
                                          : kernels[i].workload;
    if (!t.best_trace) {
      std::string why = t.failure.empty() ? t.first_error : t.failure;
      KILN_LOG_INFO("{}: no tuned kernel ({}); the untuned one stands in", kernels[i].name,
                    why.empty() ? "no candidate measured" : why);
    }
    runtime::MeasureDetails details;
    runtime::MeasureResult best =
        measurer->Measure({kernels[i].workload, scheduled, {}, kernels[i].reference}, &details);
    if (i == 0) result.best_scheduled = scheduled;
    result.best_source += details.source.code;
    traces.push_back(t.best_trace ? t.best_trace->ToJSON() : nlohmann::json(nullptr));
    result.max_rel_error = std::max(result.max_rel_error, best.max_rel_error);
    result.max_abs_error = std::max(result.max_abs_error, best.max_abs_error);
    if (!(best.ok() && best.correctness_checked)) {
      result.correct = false;
      result.failure = kernels[i].name + ", the best candidate measured again: " + best.message;
    }
    // The untuned kernel is a candidate too: a search that found nothing faster keeps it.
    const bool keep_untuned =
        best.ok() && untuned_each[i] > 0 && untuned_each[i] < best.median_seconds;
    result.best_seconds += keep_untuned ? untuned_each[i] : best.median_seconds;
    if (keep_untuned) {
      traces.back() = nullptr;
      if (i == 0)
        result.best_scheduled =
            gpu ? search::DefaultGpuSchedule(kernels[0].workload) : kernels[0].workload;
    }
  }
  // One kernel: its trace; several (hyb's parts): one trace per kernel, in their order.
  result.best_trace = (traces.size() == 1 ? traces[0] : traces).dump();
  if (!result.correct) result.best_seconds = 0;
  return result;
}

}  // namespace

SparseTuneResult TuneSparse(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                            const SparseTuneOptions& options) {
  if (options.format != "auto") {
    SparseTuneResult result =
        TuneFormat(matrix, op, feat, ParseSparseFormat(options.format), options, options.trials);
    result.formats_tried.push_back({result.format, result.best_seconds});
    return result;
  }
  // auto: every candidate format with its share of the trials; the fastest correct one wins.
  const std::vector<std::string> formats = AutoFormats(op);
  const int64_t share = std::max<int64_t>(4, options.trials / static_cast<int64_t>(formats.size()));
  std::optional<SparseTuneResult> best;
  std::vector<std::pair<std::string, double>> tried;
  double tuning_seconds = 0;
  int64_t trials = 0, seeded = 0, stored = 0;
  for (const std::string& spelling : formats) {
    SparseTuneResult r;
    try {
      r = TuneFormat(matrix, op, feat, ParseSparseFormat(spelling), options, share);
    } catch (const Error& e) {
      // A format that cannot hold this matrix (an ELL too narrow, ...) is not a candidate.
      tried.push_back({spelling, 0});
      KILN_LOG_INFO("sparse auto format: {} skipped: {}", spelling, e.what());
      continue;
    }
    tried.push_back({spelling, r.best_seconds});
    tuning_seconds += r.tuning_seconds;
    trials += r.trials;
    seeded += r.seeded;
    stored += r.records_stored;
    if (r.correct && (!best || r.best_seconds < best->best_seconds)) best = std::move(r);
  }
  KILN_CHECK(best.has_value(), ErrorKind::kRuntime,
             "sparse " + std::string(SparseOpName(op)) + ": no format gave a correct kernel");
  best->formats_tried = std::move(tried);
  best->tuning_seconds = tuning_seconds;
  best->trials = trials;
  best->seeded = seeded;
  best->records_stored = stored;
  return *best;
}

}  // namespace kiln::compiler::sparse
