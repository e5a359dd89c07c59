// The sparse tuning driver: workload, reference, untuned figure, search, final measurement.
#include "compiler/sparse/sparse_tuning.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "compiler/sparse/formats/format_kernels.h"
#include "compiler/sparse/formats/format_search.h"
#include "compiler/sparse/sparse_reference_store.h"
#include "cost_model/xgb_cost_model.h"
#include "database/sqlite_database.h"
#include "ir/structural.h"
#include "ir/text/printer.h"
#include "runtime/gpu/gpu_measurer.h"
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

// The key records are stored under: this CPU's, or the GPU device's ("vulkan-llvmpipe",
// "cuda-h100"), so that two GPUs of one kind keep their records apart.
std::string DeviceKeyOf(const runtime::Measurer& measurer, bool gpu) {
  if (!gpu) return worker::DetectCpuDeviceKey();
  const auto* device = dynamic_cast<const runtime::gpu::GpuMeasurer*>(&measurer);
  return device != nullptr ? device->device().key : measurer.DeviceKind();
}

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

// One format's kernels tuned with `trials`: each of its kernels a task of one Tuner, the
// format's latency the sum of its kernels' (they run one after the other), every kernel's best
// measured again.
SparseTuneResult TuneFormat(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                            const SparseFormat& format, const std::vector<SparseKernel>& kernels,
                            const SparseTuneOptions& options, int64_t trials) {
  const ir::sparse::CsrMatrix padded = op == SparseOp::kSpmm ? PadEmptyRows(matrix) : matrix;
  SparseTuneResult result = TuneSparseKernels(kernels, options, trials);
  result.format = FormatSpelling(format);
  result.problem = ProblemOf(op, padded, feat);
  return result;
}

}  // namespace

SparseTuneResult TuneSparseKernels(const std::vector<SparseKernel>& kernels,
                                   const SparseTuneOptions& options, int64_t trials) {
  SparseTuneResult result;
  KILN_CHECK(!kernels.empty(), ErrorKind::kInternal, "TuneSparseKernels: no kernel");
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
  const std::string device = DeviceKeyOf(*measurer, gpu);
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
    // A hyb's parts are one ELL kernel over different rows and widths: one family, so the
    // part of median work leads and the others start from its best traces with a share of
    // its trials (search/task_scheduler/family_plan.h) instead of each searching from scratch.
    if (k.format.rfind("hyb:", 0) == 0 && kernels.size() > 1) task.family = k.format;
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
  // Several kernels (hyb's parts, attention's stages): rounds sized to each one's share, so
  // that the first task's round of 64 does not take the whole budget.
  if (kernels.size() > 1) tuner_options.trials_per_round = 0;
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
    result.best_each.push_back(!(best.ok() && best.correctness_checked) ? 0
                               : keep_untuned                           ? untuned_each[i]
                                                                        : best.median_seconds);
    if (keep_untuned) {
      traces.back() = nullptr;
      if (i == 0)
        result.best_scheduled =
            gpu ? search::DefaultGpuSchedule(kernels[0].workload) : kernels[0].workload;
    }
  }
  // One kernel: its trace; several (hyb's parts): one trace per kernel, in their order.
  result.best_trace = (traces.size() == 1 ? traces[0] : traces).dump();
  result.untuned_each = untuned_each;
  if (!result.correct) result.best_seconds = 0;
  return result;
}

namespace {

// A scratch tuning database for a format search without one: both rounds record into it, so
// that a finalist's second round starts from its first round's best. Removed when done.
class ScratchDatabase {
 public:
  ScratchDatabase() {
    // Unique per process and per search, so that concurrent searches never share one.
    static std::atomic<int64_t> count{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("kiln-format-search-" + std::to_string(::getpid()) + "-" +
              std::to_string(count.fetch_add(1)) + ".sqlite"))
                .string();
    std::filesystem::remove(path_);
  }
  ~ScratchDatabase() {
    std::error_code ignored;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::filesystem::remove(path_ + suffix, ignored);
    }
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// A format drawn by the search, with its kernels (built once for both rounds).
struct DrawnFormat {
  SparseFormat format;
  std::vector<SparseKernel> kernels;  // empty: the format cannot hold this matrix
};

// The trials each format of a round gets: `budget` split evenly, at least `floor` each and
// never fewer than a format's kernels (every kernel needs one). Formats are left out of the
// round (share 0), the ones with the most kernels first and csr last, until the round fits the
// budget. When none fits and `one_must_run`, the one with the fewest kernels still runs, with a
// trial a kernel.
std::vector<int64_t> RoundShares(const std::vector<const DrawnFormat*>& formats, int64_t budget,
                                 int64_t floor, bool one_must_run) {
  auto kernels = [&](size_t i) { return static_cast<int64_t>(formats[i]->kernels.size()); };
  // Left out first: the most kernels, then the later in the draw; csr never before the others.
  auto leaves_before = [&](size_t a, size_t b) {
    const bool a_csr = formats[a]->format.kind == FormatKind::kCsr;
    const bool b_csr = formats[b]->format.kind == FormatKind::kCsr;
    if (a_csr != b_csr) return b_csr;
    if (kernels(a) != kernels(b)) return kernels(a) > kernels(b);
    return a > b;
  };
  std::vector<size_t> in;
  for (size_t i = 0; i < formats.size(); ++i) in.push_back(i);
  std::vector<int64_t> shares(formats.size(), 0);
  while (!in.empty()) {
    const int64_t share = std::max<int64_t>(floor, budget / static_cast<int64_t>(in.size()));
    int64_t total = 0;
    for (size_t i : in) total += std::max(share, kernels(i));
    if (total <= budget) {
      for (size_t i : in) shares[i] = std::max(share, kernels(i));
      return shares;
    }
    in.erase(std::min_element(in.begin(), in.end(), leaves_before));
  }
  if (one_must_run && !formats.empty()) {
    size_t fewest = 0;
    for (size_t i = 1; i < formats.size(); ++i) {
      if (kernels(i) < kernels(fewest)) fewest = i;
    }
    shares[fewest] = kernels(fewest);
  }
  return shares;
}

// The format decomposition searched (formats/format_search.h): a draw of the matrix's formats,
// each tuned with a small share of the trials (round 1), then the two fastest correct ones
// with the rest (round 2, starting from their round-1 records). The fastest correct kernel of
// either round wins; every format drawn is in formats_tried with its best latency (0: it could
// not hold the matrix, failed, or did not fit the trials: a hyb of many parts needs a trial per
// part). The trials used stay within options.trials unless no format drawn has that few
// kernels.
SparseTuneResult SearchFormat(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                              std::optional<FormatKind> kind, const SparseTuneOptions& options) {
  const std::vector<SparseFormat> space = FormatSpace(matrix, op, kind);
  KILN_CHECK(!space.empty(), ErrorKind::kUnsupported,
             "sparse " + std::string(SparseOpName(op)) + " --format " +
                 FormatKindName(kind.value_or(FormatKind::kCsr)) +
                 ": no format of that kind suits this matrix (BSR storing over " +
                 std::to_string(kMaxBsrFill) + "x its nonzeros, ELL over " +
                 std::to_string(kMaxEllFill) + "x, hyb over " + std::to_string(kMaxHybParts) +
                 " parts are left out)");
  std::vector<DrawnFormat> drawn;
  for (const SparseFormat& format :
       DrawFormats(space, static_cast<size_t>(std::max(1, options.formats_drawn)), options.seed)) {
    DrawnFormat d{format, {}};
    try {
      d.kernels = FormatKernels(matrix, op, feat, format, options.seed, options.cache_dir);
    } catch (const Error& e) {
      // A format that cannot hold this matrix (past 32-bit slots, ...) is not a candidate.
      KILN_LOG_INFO("sparse format search: {} skipped: {}", FormatSpelling(format), e.what());
    }
    drawn.push_back(std::move(d));
  }
  std::optional<ScratchDatabase> scratch;
  SparseTuneOptions round_options = options;
  if (round_options.database_path.empty()) {
    scratch.emplace();
    round_options.database_path = scratch->path();
  }

  std::optional<SparseTuneResult> best;
  std::map<std::string, double> best_of;  // per format: its fastest correct latency
  double tuning_seconds = 0;
  int64_t trials = 0, seeded = 0, stored = 0;
  auto tune = [&](const DrawnFormat& d, int64_t share) -> std::optional<SparseTuneResult> {
    SparseTuneResult r;
    try {
      r = TuneFormat(matrix, op, feat, d.format, d.kernels, round_options, share);
    } catch (const Error& e) {
      // A format whose kernels fail as written on this device is not a candidate either.
      KILN_LOG_INFO("sparse format search: {} failed: {}", FormatSpelling(d.format), e.what());
      return std::nullopt;
    }
    tuning_seconds += r.tuning_seconds;
    trials += r.trials;
    if (!scratch) {  // a scratch database's records are the search's own, not kept
      seeded += r.seeded;
      stored += r.records_stored;
    }
    double& known = best_of[FormatSpelling(d.format)];
    if (r.correct && (known == 0 || r.best_seconds < known)) known = r.best_seconds;
    if (r.correct && (!best || r.best_seconds < best->best_seconds)) best = r;
    return r;
  };
  auto run_round = [&](const std::vector<const DrawnFormat*>& round, int64_t budget, int64_t floor,
                       bool one_must_run) {
    std::vector<std::pair<double, const DrawnFormat*>> correct;
    const std::vector<int64_t> shares = RoundShares(round, budget, floor, one_must_run);
    for (size_t i = 0; i < round.size(); ++i) {
      if (shares[i] == 0) {
        KILN_LOG_INFO(
            "sparse format search: {} left out: its {} kernels need more trials than "
            "the round's {}",
            FormatSpelling(round[i]->format), round[i]->kernels.size(), budget);
        continue;
      }
      std::optional<SparseTuneResult> r = tune(*round[i], shares[i]);
      if (r && r->correct) correct.push_back({r->best_seconds, round[i]});
    }
    std::sort(correct.begin(), correct.end(),
              [](const auto& x, const auto& y) { return x.first < y.first; });
    return correct;
  };

  std::vector<const DrawnFormat*> first;
  for (const DrawnFormat& d : drawn) {
    if (!d.kernels.empty()) first.push_back(&d);
  }
  const int64_t n = static_cast<int64_t>(first.size());
  // Round 1: half the trials over every format drawn, at least 4 each while the trials last
  // (a small budget explores formats rather than schedules: the format decides more).
  std::vector<std::pair<double, const DrawnFormat*>> ranked = run_round(
      first, std::max<int64_t>(options.trials / 2, std::min<int64_t>(options.trials, 4 * n)), 4,
      /*one_must_run=*/true);
  if (ranked.size() > 2) ranked.resize(2);
  // Round 2: what is left, over the fastest two.
  const int64_t left = options.trials - trials;
  if (!ranked.empty() && left >= 1) {
    std::vector<const DrawnFormat*> second;
    for (const auto& [seconds, d] : ranked) second.push_back(d);
    run_round(second, left, 1, /*one_must_run=*/false);
  }
  KILN_CHECK(best.has_value(), ErrorKind::kRuntime,
             "sparse " + std::string(SparseOpName(op)) + ": no format gave a correct kernel");
  best->formats_tried.clear();
  for (const DrawnFormat& d : drawn) {
    const std::string spelling = FormatSpelling(d.format);
    best->formats_tried.push_back({spelling, best_of[spelling]});
  }
  best->formats_in_space = static_cast<int64_t>(space.size());
  best->tuning_seconds = tuning_seconds;
  best->trials = trials;
  best->seeded = seeded;
  best->records_stored = stored;
  return *best;
}

}  // namespace

SparseTuneResult TuneSparse(const ir::sparse::CsrMatrix& matrix, SparseOp op, int64_t feat,
                            const SparseTuneOptions& options) {
  std::optional<FormatKind> kind;
  if (IsFormatSearch(options.format, &kind)) return SearchFormat(matrix, op, feat, kind, options);
  const SparseFormat format = ParseSparseFormat(options.format);
  SparseTuneResult result =
      TuneFormat(matrix, op, feat, format,
                 FormatKernels(matrix, op, feat, format, options.seed, options.cache_dir), options,
                 options.trials);
  result.formats_tried.push_back({result.format, result.best_seconds});
  result.formats_in_space = 1;
  return result;
}

}  // namespace kiln::compiler::sparse
