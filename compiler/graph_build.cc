// One graph, as a list of steps: plan each task's implementations, compile them, time the
// alternatives, assemble the graph. Each kernel task is one TaskImpl carrying everything about
// its implementations, so no step keeps indexes parallel to another's.
#include "compiler/graph_build.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <optional>
#include <thread>

#include "compiler/apply_best.h"
#include "compiler/epilogue.h"
#include "compiler/library_choice.h"
#include "compiler/matmul_task.h"
#include "compiler/task_steps.h"
#include "compiler/view_task.h"
#include "ir/expr.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/structural.h"
#include "runtime/file_util.h"
#include "runtime/host_cpu.h"
#include "search/space/default_schedule.h"
#include "support/error.h"

namespace kiln::compiler {
namespace {

namespace fs = std::filesystem;
using ir::relax::transform::ExtractedTask;

// "kiln_model_3_fused_matmul_add" (graph.json), "kiln_model_b2_3_fused_matmul_add" (bucket
// 2's): unique by graph and index, readable in a profiler.
std::string KernelSymbolOf(size_t variant, size_t index, const std::string& name) {
  std::string symbol = "kiln_model_" +
                       (variant == 0 ? std::string() : "b" + std::to_string(variant - 1) + "_") +
                       std::to_string(index) + "_";
  for (char c : name.substr(0, 48)) symbol += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return symbol;
}

// Links `objects` into a library under `dir` and removes it when done (a loaded copy stays
// mapped).
class TemporaryLibrary {
 public:
  TemporaryLibrary(const std::vector<std::string>& objects, const std::string& dir,
                   const KernelLibraryOptions& build)
      : path_((fs::path(dir) / ("kernels-timing.so.tmp-" + runtime::UniqueSuffix())).string()) {
    LinkKernelLibrary(objects, path_, build);
  }
  ~TemporaryLibrary() {
    std::error_code ec;
    fs::remove(path_, ec);
  }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// The kernels of one graph compiled together, by object index.
struct KernelBatch {
  std::vector<ir::PrimFunc> funcs;
  std::vector<std::string> symbols;
  std::vector<KernelObject> objects;  // once compiled

  size_t Add(ir::PrimFunc func, std::string symbol) {
    funcs.push_back(std::move(func));
    symbols.push_back(std::move(symbol));
    return funcs.size() - 1;
  }
};

// A matmul task's library variant: the call, and the epilogue kernel that finishes the task
// (none when the matmul is the whole task).
struct LibraryVariant {
  MatmulTask matmul;
  ir::PrimFunc epilogue;
  std::optional<size_t> epilogue_object;
  bool chosen = false;
};

// A kernel task's implementations and which the graph uses.
struct TaskImpl {
  size_t task = 0;        // in the graph's tasks
  std::string symbol;     // of its kernel
  ChosenSchedule chosen;  // the database's best, or the workload as written (no record)
  size_t kernel_object = 0;
  std::optional<size_t> untuned_object;  // the workload as written, to time a record against
  // The default schedule's variants, each timed against the kernel so far.
  std::vector<ir::PrimFunc> default_schedules;
  std::vector<size_t> default_objects;
  std::optional<LibraryVariant> library;
  // A sparse kernel (attribute kiln.sparse_op, a GNN aggregation): its indptr and indices are the
  // model's constants, and the random inputs variants are timed on would index out of range, so
  // it is never timed against another variant (it was checked on its reference when tuned).
  bool sparse = false;
};

bool HasStaticShapes(const ExtractedTask& task) {
  for (const auto& p : task.params) {
    if (!p.is_buffer) return false;
    for (const auto& d : p.shape) {
      if (!ir::AsConstInt(d)) return false;
    }
  }
  return true;
}

class GraphBuilder {
 public:
  GraphBuilder(const CompileVariant& variant, size_t variant_index, const std::string& output_dir,
               const CompileOptions& options, const std::string& device_key,
               const KernelLibraryOptions& build)
      : variant_(variant),
        variant_index_(variant_index),
        output_dir_(output_dir),
        options_(options),
        device_key_(device_key),
        build_(build),
        tasks_(ir::relax::transform::ExtractTasks(variant.module, variant.entry)),
        lowering_(tasks_.size()) {}

  BuiltGraph Build() {
    PlanTasks();
    CompileKernels();
    if (HasAlternatives()) TimeAlternatives();
    AssembleGraph();
    return std::move(out_);
  }

 private:
  CompiledTask& Report(const TaskImpl& impl) { return out_.tasks[impl.task]; }
  const ExtractedTask& Task(const TaskImpl& impl) const { return tasks_[impl.task]; }
  void AddNote(const TaskImpl& impl, const std::string& note) {
    std::string& to = Report(impl).note;
    to += (to.empty() ? "" : "; ") + note;
  }

  // Views re-view memory; every other task takes the database's best schedule and, for a
  // matmul whose parameters are all buffers, a library variant.
  void PlanTasks() {
    for (size_t t = 0; t < tasks_.size(); ++t) {
      CompiledTask c;
      c.name = tasks_[t].name;
      c.workload_hash = ir::StructuralHashHex(tasks_[t].func);
      c.weight = tasks_[t].weight;
      if (IsViewTask(tasks_[t])) {
        c.kind = c.impl = "view";
        lowering_[t].view = true;
        ++out_.views;
        out_.tasks.push_back(std::move(c));
        continue;
      }
      c.kind = c.impl = "kernel";
      TaskImpl impl;
      impl.task = t;
      impl.symbol = KernelSymbolOf(variant_index_, impls_.size(), c.name);
      impl.chosen =
          ApplyBest(options_.db, tasks_[t].func, c.workload_hash, options_.target, device_key_);
      c.note = impl.chosen.note;
      impl.sparse = tasks_[t].func->attrs.count("kiln.sparse_op") != 0;
      if (impl.sparse) {
        impls_.push_back(std::move(impl));
        out_.tasks.push_back(std::move(c));
        continue;
      }
      // The default schedule's variants are timed against a record too: a record found in a
      // short tuning may be slower than a variant the search never measured.
      if (options_.default_schedules && HasStaticShapes(tasks_[t])) {
        impl.default_schedules = PlanDefaultSchedules(tasks_[t]);
      }
      if (options_.library != LibraryPolicy::kNever) impl.library = PlanLibrary(tasks_[t], c);
      out_.tasks.push_back(std::move(c));
      impls_.push_back(std::move(impl));
    }
  }

  std::vector<ir::PrimFunc> PlanDefaultSchedules(const ExtractedTask& task) const {
    search::DefaultScheduleOptions defaults;
    defaults.num_cores = options_.measure_threads > 0
                             ? options_.measure_threads
                             : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    defaults.vector_bytes = runtime::HostVectorBytes();
    std::vector<ir::PrimFunc> out;
    try {
      for (search::Candidate& c : search::DefaultCpuSchedules(task.func, defaults)) {
        out.push_back(std::move(c.scheduled));
      }
    } catch (const Error&) {
      // The loops as written stay the kernel.
    }
    return out;
  }

  std::optional<LibraryVariant> PlanLibrary(const ExtractedTask& task, CompiledTask& c) {
    std::string why;
    std::optional<MatmulTask> m = MatchMatmulTask(task.func, &why);
    for (const auto& p : task.params) {
      if (!p.is_buffer) return std::nullopt;
    }
    if (!m) return std::nullopt;
    LibraryVariant library;
    library.matmul = *m;
    try {
      if (m->output_param < 0) library.epilogue = ScheduleEpilogue(MakeEpilogue(task.func, *m));
    } catch (const Error& e) {
      c.library_note = std::string("no library variant: ") + e.what();
      return std::nullopt;
    }
    return library;
  }

  // The chosen schedules, the epilogues and (to time a record against) the workloads as
  // written, compiled together. A tuned kernel that fails is rebuilt as written; an epilogue
  // that fails drops its library variant.
  void CompileKernels() {
    for (TaskImpl& impl : impls_)
      impl.kernel_object = batch_.Add(impl.chosen.scheduled, impl.symbol);
    for (TaskImpl& impl : impls_) {
      if (impl.library && impl.library->epilogue.defined()) {
        impl.library->epilogue_object =
            batch_.Add(impl.library->epilogue, impl.symbol + "_epilogue");
      }
    }
    for (TaskImpl& impl : impls_) {
      if (options_.keep_faster_untuned && impl.chosen.record && !impl.sparse) {
        impl.untuned_object = batch_.Add(Task(impl).func, impl.symbol + "_untuned");
      }
      for (size_t d = 0; d < impl.default_schedules.size(); ++d) {
        impl.default_objects.push_back(
            batch_.Add(impl.default_schedules[d], impl.symbol + "_default" + std::to_string(d)));
      }
    }
    batch_.objects = CompileKernelObjects(batch_.funcs, batch_.symbols, build_);
    RebuildFailedKernelsAsWritten();
    for (TaskImpl& impl : impls_) {
      if (impl.untuned_object && !batch_.objects[*impl.untuned_object].ok) {
        impl.untuned_object.reset();
      }
      std::erase_if(impl.default_objects, [&](size_t o) { return !batch_.objects[o].ok; });
      if (!impl.library || !impl.library->epilogue_object) continue;
      const KernelObject& o = batch_.objects[*impl.library->epilogue_object];
      if (o.ok) continue;
      Report(impl).library_note = "the epilogue kernel does not build: " + o.error.substr(0, 500);
      impl.library.reset();
    }
  }

  void RebuildFailedKernelsAsWritten() {
    std::vector<TaskImpl*> failed;
    std::vector<ir::PrimFunc> funcs;
    std::vector<std::string> symbols;
    for (TaskImpl& impl : impls_) {
      const KernelObject& o = batch_.objects[impl.kernel_object];
      if (o.ok) continue;
      KILN_CHECK(impl.chosen.record.has_value(), ErrorKind::kUnsupported,
                 "compile: task " + Task(impl).name + " (untuned) cannot be built: " + o.error);
      AddNote(impl, "record " + std::to_string(impl.chosen.record->id) +
                        " does not build, untuned kernel used: " + o.error.substr(0, 500));
      impl.chosen.record.reset();
      impl.untuned_object.reset();
      failed.push_back(&impl);
      funcs.push_back(Task(impl).func);
      symbols.push_back(impl.symbol);
    }
    if (failed.empty()) return;
    std::vector<KernelObject> rebuilt = CompileKernelObjects(funcs, symbols, build_);
    for (size_t i = 0; i < failed.size(); ++i) {
      KILN_CHECK(rebuilt[i].ok, ErrorKind::kUnsupported,
                 "compile: task " + Task(*failed[i]).name +
                     " (untuned) cannot be built: " + rebuilt[i].error);
      batch_.objects[failed[i]->kernel_object] = rebuilt[i];
    }
  }

  bool HasAlternatives() const {
    for (const TaskImpl& impl : impls_) {
      if (impl.library || impl.untuned_object || !impl.default_objects.empty()) return true;
    }
    return false;
  }

  runtime::model::GraphKernel KernelOf(size_t object, const TaskImpl& impl) const {
    return {
        batch_.symbols[object], Task(impl).name, batch_.objects[object].signature.slots, {}, {}};
  }
  runtime::model::GraphKernel LibraryOf(const TaskImpl& impl) const {
    return MatmulLibraryKernel(options_.library_function, Task(impl).name, impl.library->matmul);
  }

  // Every tuned kernel, and every default schedule, against the workload as written; then
  // every matmul's kernel against its library call; in a library of all the objects linked
  // for timing.
  void TimeAlternatives() {
    std::vector<std::string> paths;
    for (const KernelObject& o : batch_.objects) {
      if (o.ok) paths.push_back(o.object_path);
    }
    std::error_code ec;
    fs::create_directories(output_dir_, ec);
    KILN_CHECK(!ec, ErrorKind::kIO,
               output_dir_ + ": cannot create the artifact directory: " + ec.message());
    TemporaryLibrary library(paths, output_dir_, build_);
    VariantTimingOptions timing;
    timing.threads = options_.measure_threads;
    timing.repeat = options_.measure_repeat;
    timing.min_repeat_ms = options_.measure_min_repeat_ms;
    for (TaskImpl& impl : impls_) {
      if (impl.untuned_object) ChooseTunedOrUntuned(impl, library.path(), timing);
      if (!impl.default_objects.empty()) ChooseDefaultSchedule(impl, library.path(), timing);
    }
    for (TaskImpl& impl : impls_) {
      if (impl.library) ChooseKernelOrLibrary(impl, library.path(), timing);
    }
  }

  // The faster of the record's kernel and the workload as written becomes the task's kernel.
  void ChooseTunedOrUntuned(TaskImpl& impl, const std::string& library,
                            const VariantTimingOptions& timing) {
    TaskLowering as_tuned, as_untuned;
    as_tuned.kernel = 0;
    as_untuned.kernel = 1;
    VariantTiming measured =
        TimeTaskVariants(Task(impl), WrittenParams(Task(impl).func), as_tuned, as_untuned,
                         {KernelOf(impl.kernel_object, impl), KernelOf(*impl.untuned_object, impl)},
                         library, timing);
    CompiledTask& c = Report(impl);
    std::string record = "record " + std::to_string(impl.chosen.record->id);
    if (measured.measured && measured.agree) {
      c.tuned_s = measured.kernel_s;
      c.untuned_s = measured.library_s;
    }
    if (!measured.agree) {
      // The tuned kernel was checked against the reference interpreter when it was measured;
      // it stays, and the report says what the comparison found.
      AddNote(impl, record + " kept, not compared with the untuned kernel: " +
                        (measured.measured ? "the two disagree (max error " +
                                                 std::to_string(measured.max_error) + ")"
                                           : measured.note));
      return;
    }
    if (!measured.measured || measured.library_s >= measured.kernel_s) return;
    AddNote(impl, fmt::format("{} not used: the untuned kernel is faster here ({:.2f} us against "
                              "{:.2f} us)",
                              record, measured.library_s * 1e6, measured.kernel_s * 1e6));
    impl.chosen.record.reset();
    impl.kernel_object = *impl.untuned_object;
  }

  // Each variant of the default schedule timed beside the kernel before defaults (the record's
  // kernel, else the loops as written); the variant that agrees with it and is fastest relative
  // to it in its own run becomes the kernel, in place of the record too. Ratios within one run
  // stay honest on a busy machine where times from separate runs do not.
  void ChooseDefaultSchedule(TaskImpl& impl, const std::string& library,
                             const VariantTimingOptions& timing) {
    CompiledTask& c = Report(impl);
    const bool written = !impl.chosen.record;  // the kernel before defaults: the loops as written
    const size_t baseline = impl.kernel_object;
    std::optional<size_t> best;
    double best_ratio = 0;
    VariantTiming best_timing;
    for (size_t object : impl.default_objects) {
      TaskLowering as_default, as_baseline;
      as_default.kernel = 0;
      as_baseline.kernel = 1;
      VariantTiming measured =
          TimeTaskVariants(Task(impl), WrittenParams(Task(impl).func), as_default, as_baseline,
                           {KernelOf(object, impl), KernelOf(baseline, impl)}, library, timing);
      if (!measured.measured || !measured.agree) {
        AddNote(impl, "a default schedule not used: " +
                          (measured.measured
                               ? std::string("it disagrees with ") +
                                     (written ? "the loops as written" : "the record's kernel") +
                                     " (max error " + std::to_string(measured.max_error) + ")"
                               : measured.note));
        continue;
      }
      double ratio = measured.kernel_s / measured.library_s;
      if (!best || ratio < best_ratio) {
        best = object;
        best_ratio = ratio;
        best_timing = measured;
      }
    }
    if (!best) return;
    if (written) {
      c.default_s = best_timing.kernel_s;
      c.written_s = best_timing.library_s;
    }
    if (best_ratio >= 1) return;
    if (impl.chosen.record) {
      AddNote(impl, fmt::format("record {} not used: a default schedule is faster here ({:.2f} "
                                "us against {:.2f} us)",
                                impl.chosen.record->id, best_timing.kernel_s * 1e6,
                                best_timing.library_s * 1e6));
      impl.chosen.record.reset();
    }
    c.default_schedule = true;
    impl.kernel_object = *best;
  }

  // A matmul's library call (and epilogue) against its kernel, by the library policy.
  void ChooseKernelOrLibrary(TaskImpl& impl, const std::string& library,
                             const VariantTimingOptions& timing) {
    LibraryVariant& variant = *impl.library;
    CompiledTask& c = Report(impl);
    std::vector<runtime::model::GraphKernel> graph_kernels = {KernelOf(impl.kernel_object, impl),
                                                              LibraryOf(impl)};
    TaskLowering as_kernel;
    as_kernel.kernel = 0;
    TaskLowering as_library;
    as_library.library = 1;
    as_library.matmul = variant.matmul;
    if (variant.epilogue_object) {
      graph_kernels.push_back(KernelOf(*variant.epilogue_object, impl));
      as_library.kernel = 2;
    }
    VariantTiming measured = TimeTaskVariants(Task(impl), variant.matmul.written_params, as_kernel,
                                              as_library, graph_kernels, library, timing);
    c.kernel_tuned = impl.chosen.record.has_value();
    if (measured.measured) {
      c.kernel_s = measured.kernel_s;
      c.library_s = measured.library_s;
    }
    std::string versus = std::string(impl.chosen.record   ? "tuned"
                                     : c.default_schedule ? "default-scheduled"
                                                          : "untuned") +
                         " kernel";
    if (!measured.agree) {
      KILN_CHECK(options_.library != LibraryPolicy::kAlways, ErrorKind::kInternal,
                 "compile: task " + Task(impl).name + ": " + measured.note);
      c.library_note = measured.note;
    } else if (options_.library == LibraryPolicy::kAlways) {
      variant.chosen = true;
      c.library_note = "--library always";
    } else if (!measured.measured) {
      c.library_note = measured.note;
    } else {
      variant.chosen = measured.library_s < measured.kernel_s;
      c.library_note = (variant.chosen ? "library faster than the " : "the ") + versus +
                       (variant.chosen ? "" : " faster than the library");
    }
  }

  // The chosen implementations as graph kernels, the entry function lowered onto them, and
  // the manifest's tasks.
  void AssembleGraph() {
    std::vector<runtime::model::GraphKernel> kernels;
    std::vector<std::string> task_symbol(tasks_.size());
    auto add_kernel = [&](size_t object, const TaskImpl& impl) {
      int64_t index = static_cast<int64_t>(kernels.size());
      kernels.push_back(KernelOf(object, impl));
      out_.object_paths.push_back(batch_.objects[object].object_path);
      task_symbol[impl.task] = batch_.symbols[object];
      return index;
    };
    for (const TaskImpl& impl : impls_) {
      TaskLowering& lowering = lowering_[impl.task];
      if (!impl.library || !impl.library->chosen) {
        lowering.kernel = add_kernel(impl.kernel_object, impl);
        continue;
      }
      CompiledTask& c = Report(impl);
      lowering.library = static_cast<int64_t>(kernels.size());
      lowering.matmul = impl.library->matmul;
      kernels.push_back(LibraryOf(impl));
      c.kind = "library";
      c.impl = "library:" + options_.library_function;
      ++out_.library;
      if (impl.library->epilogue_object) {
        lowering.kernel = add_kernel(*impl.library->epilogue_object, impl);
        c.impl += "+epilogue";
      }
    }
    for (const TaskImpl& impl : impls_) {
      CompiledTask& c = Report(impl);
      if (!impl.chosen.record || c.kind != "kernel") continue;
      c.record_id = impl.chosen.record->id;
      c.latency_s = impl.chosen.record->result.median_seconds;
      ++out_.tuned;
    }
    out_.lowered = LowerEntryFunction(variant_.module, variant_.entry, tasks_, lowering_, kernels);
    for (size_t t = 0; t < tasks_.size(); ++t) {
      const CompiledTask& c = out_.tasks[t];
      runtime::model::ManifestTask m;
      m.name = c.name;
      m.workload_hash = c.workload_hash;
      m.kind = c.kind;
      m.record_id = c.record_id;
      m.latency_s = c.latency_s;
      m.symbol = task_symbol[t];
      m.impl = c.impl;
      m.kernel_s = c.kernel_s;
      m.library_s = c.library_s;
      out_.manifest_tasks.push_back(std::move(m));
    }
    for (const runtime::model::GraphKernel& k : kernels) out_.kernels += k.library.empty() ? 1 : 0;
  }

  const CompileVariant& variant_;
  size_t variant_index_;
  const std::string& output_dir_;
  const CompileOptions& options_;
  const std::string& device_key_;
  const KernelLibraryOptions& build_;
  std::vector<ExtractedTask> tasks_;
  std::vector<TaskLowering> lowering_;  // per task
  std::vector<TaskImpl> impls_;         // per kernel task, in the tasks' order
  KernelBatch batch_;
  BuiltGraph out_;
};

}  // namespace

BuiltGraph BuildGraph(const CompileVariant& variant, size_t variant_index,
                      const std::string& output_dir, const CompileOptions& options,
                      const std::string& device_key, const KernelLibraryOptions& build) {
  return GraphBuilder(variant, variant_index, output_dir, options, device_key, build).Build();
}

}  // namespace kiln::compiler
