// The driver: tasks, schedules, library variants, kernels, timing, graph, artifact, in that
// order.
#include "compiler/compiler.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>

#include "codegen/kernel_abi.h"
#include "compiler/apply_best.h"
#include "compiler/epilogue.h"
#include "compiler/kernel_library.h"
#include "compiler/library_choice.h"
#include "compiler/lower_graph.h"
#include "compiler/matmul_task.h"
#include "compiler/view_task.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/structural.h"
#include "runtime/file_util.h"
#include "runtime/model/artifact.h"
#include "runtime/model/library_function.h"
#include "support/error.h"
#include "support/logging.h"
#include "worker/device_key.h"

namespace kiln::compiler {
namespace {

namespace fs = std::filesystem;

// "kiln_model_3_fused_matmul_add": unique by index, readable in a profiler.
std::string KernelSymbolOf(size_t index, const std::string& name) {
  std::string symbol = "kiln_model_" + std::to_string(index) + "_";
  for (char c : name.substr(0, 48)) symbol += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return symbol;
}

// A matmul task's library variant, before the choice.
struct LibraryCandidate {
  MatmulTask matmul;
  ir::PrimFunc epilogue;  // undefined when the matmul is the whole task
  size_t epilogue_object = 0;
  bool chosen = false;
};

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

}  // namespace

std::optional<LibraryPolicy> ParseLibraryPolicy(const std::string& text) {
  if (text == "never") return LibraryPolicy::kNever;
  if (text == "auto") return LibraryPolicy::kAuto;
  if (text == "always") return LibraryPolicy::kAlways;
  return std::nullopt;
}

CompileReport CompileModel(const ir::relax::IRModule& module, const std::string& entry,
                           const std::string& output_dir, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  CompileReport report;
  report.artifact_dir = output_dir;
  report.device_key =
      options.device_key.empty() ? worker::DetectCpuDeviceKey() : options.device_key;
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, entry);
  KILN_CHECK(options.library == LibraryPolicy::kNever ||
                 runtime::model::FindLibraryFunction(options.library_function) != nullptr,
             ErrorKind::kUnsupported,
             "compile: the library function '" + options.library_function +
                 "' is not one this build provides");

  std::vector<TaskLowering> lowering(tasks.size());
  std::vector<ChosenSchedule> chosen(tasks.size());
  std::vector<std::optional<LibraryCandidate>> candidates(tasks.size());
  std::vector<size_t> kernel_task;  // kernel object -> task
  for (size_t t = 0; t < tasks.size(); ++t) {
    CompiledTask c;
    c.name = tasks[t].name;
    c.workload_hash = ir::StructuralHashHex(tasks[t].func);
    c.weight = tasks[t].weight;
    if (IsViewTask(tasks[t])) {
      c.kind = "view";
      c.impl = "view";
      lowering[t].view = true;
      ++report.views;
    } else {
      c.kind = "kernel";
      c.impl = "kernel";
      chosen[t] =
          ApplyBest(options.db, tasks[t].func, c.workload_hash, options.target, report.device_key);
      c.note = chosen[t].note;
      kernel_task.push_back(t);
      if (options.library != LibraryPolicy::kNever) {
        std::string why;
        std::optional<MatmulTask> m = MatchMatmulTask(tasks[t].func, &why);
        bool buffers = true;
        for (const auto& p : tasks[t].params) buffers = buffers && p.is_buffer;
        if (m && buffers) {
          LibraryCandidate cand;
          cand.matmul = *m;
          try {
            if (m->output_param < 0)
              cand.epilogue = ScheduleEpilogue(MakeEpilogue(tasks[t].func, *m));
            candidates[t] = std::move(cand);
          } catch (const Error& e) {
            c.library_note = std::string("no library variant: ") + e.what();
          }
        }
      }
    }
    report.tasks.push_back(std::move(c));
  }

  // Build the chosen schedules and the epilogues; a tuned kernel that fails falls back to the
  // workload, an epilogue that fails drops its library variant.
  KernelLibraryOptions build;
  build.target = options.target;
  build.jobs = options.build_jobs;
  build.cache_dir = options.cache_dir;
  std::vector<ir::PrimFunc> funcs;
  std::vector<std::string> symbols;
  for (size_t k = 0; k < kernel_task.size(); ++k) {
    funcs.push_back(chosen[kernel_task[k]].scheduled);
    symbols.push_back(KernelSymbolOf(k, tasks[kernel_task[k]].name));
  }
  for (size_t k = 0; k < kernel_task.size(); ++k) {
    std::optional<LibraryCandidate>& cand = candidates[kernel_task[k]];
    if (!cand || !cand->epilogue.defined()) continue;
    cand->epilogue_object = funcs.size();
    funcs.push_back(cand->epilogue);
    symbols.push_back(KernelSymbolOf(k, tasks[kernel_task[k]].name) + "_epilogue");
  }
  // The workloads as written beside the tuned kernels, to time the two.
  std::vector<std::optional<size_t>> untuned_object(tasks.size());
  for (size_t k = 0; k < kernel_task.size() && options.keep_faster_untuned; ++k) {
    size_t t = kernel_task[k];
    if (!chosen[t].record) continue;
    untuned_object[t] = funcs.size();
    funcs.push_back(tasks[t].func);
    symbols.push_back(KernelSymbolOf(k, tasks[t].name) + "_untuned");
  }
  std::vector<KernelObject> objects = CompileKernelObjects(funcs, symbols, build);
  std::vector<ir::PrimFunc> retry_funcs;
  std::vector<std::string> retry_symbols;
  std::vector<size_t> retry_index;
  for (size_t k = 0; k < kernel_task.size(); ++k) {
    size_t t = kernel_task[k];
    if (objects[k].ok) continue;
    KILN_CHECK(
        chosen[t].record.has_value(), ErrorKind::kUnsupported,
        "compile: task " + tasks[t].name + " (untuned) cannot be built: " + objects[k].error);
    report.tasks[t].note +=
        (report.tasks[t].note.empty() ? "" : "; ") + std::string("record ") +
        std::to_string(chosen[t].record->id) +
        " does not build, untuned kernel used: " + objects[k].error.substr(0, 500);
    chosen[t].record.reset();
    untuned_object[t].reset();
    retry_funcs.push_back(tasks[t].func);
    retry_symbols.push_back(symbols[k]);
    retry_index.push_back(k);
  }
  if (!retry_funcs.empty()) {
    std::vector<KernelObject> retried = CompileKernelObjects(retry_funcs, retry_symbols, build);
    for (size_t r = 0; r < retried.size(); ++r) {
      KILN_CHECK(retried[r].ok, ErrorKind::kUnsupported,
                 "compile: task " + tasks[kernel_task[retry_index[r]]].name +
                     " (untuned) cannot be built: " + retried[r].error);
      objects[retry_index[r]] = retried[r];
    }
  }
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (!candidates[t] || !candidates[t]->epilogue.defined()) continue;
    const KernelObject& o = objects[candidates[t]->epilogue_object];
    if (o.ok) continue;
    report.tasks[t].library_note = "the epilogue kernel does not build: " + o.error.substr(0, 500);
    candidates[t].reset();
  }

  // The graph kernels of every variant: a task's kernel, its library call, its epilogue.
  auto kernel_of = [&](size_t object, size_t t) {
    return runtime::model::GraphKernel{
        symbols[object], tasks[t].name, objects[object].signature.slots, {}, {}};
  };
  auto library_of = [&](size_t t) {
    return MatmulLibraryKernel(options.library_function, tasks[t].name, candidates[t]->matmul);
  };
  bool any_candidate = false;
  for (const auto& c : candidates) any_candidate = any_candidate || c.has_value();
  bool any_untuned = false;
  for (size_t t = 0; t < tasks.size(); ++t) {
    if (untuned_object[t] && !objects[*untuned_object[t]].ok) untuned_object[t].reset();
    any_untuned = any_untuned || untuned_object[t].has_value();
  }
  if (any_candidate || any_untuned) {
    std::vector<std::string> paths;
    for (const KernelObject& o : objects) {
      if (o.ok) paths.push_back(o.object_path);
    }
    std::error_code ec;
    fs::create_directories(output_dir, ec);
    KILN_CHECK(!ec, ErrorKind::kIO,
               output_dir + ": cannot create the artifact directory: " + ec.message());
    TemporaryLibrary timing_library(paths, output_dir, build);
    VariantTimingOptions timing;
    timing.threads = options.measure_threads;
    timing.repeat = options.measure_repeat;
    timing.min_repeat_ms = options.measure_min_repeat_ms;
    // Each tuned kernel against the workload as written; the faster is the task's kernel.
    for (size_t k = 0; k < kernel_task.size(); ++k) {
      size_t t = kernel_task[k];
      if (!untuned_object[t]) continue;
      size_t u = *untuned_object[t];
      TaskLowering as_tuned, as_untuned;
      as_tuned.kernel = 0;
      as_untuned.kernel = 1;
      VariantTiming measured =
          TimeTaskVariants(tasks[t], WrittenParams(tasks[t].func), as_tuned, as_untuned,
                           {kernel_of(k, t), kernel_of(u, t)}, timing_library.path(), timing);
      CompiledTask& c = report.tasks[t];
      std::string record = "record " + std::to_string(chosen[t].record->id);
      if (measured.measured && measured.agree) {
        c.tuned_s = measured.kernel_s;
        c.untuned_s = measured.library_s;
      }
      auto add_note = [&](const std::string& note) {
        c.note += (c.note.empty() ? "" : "; ") + note;
      };
      if (!measured.agree) {
        // The tuned kernel was checked against the reference interpreter when it was measured;
        // it stays, and the report says what the comparison found.
        add_note(record + " kept, not compared with the untuned kernel: " +
                 (measured.measured
                      ? "the two disagree (max error " + std::to_string(measured.max_error) + ")"
                      : measured.note));
        continue;
      }
      if (!measured.measured || measured.library_s >= measured.kernel_s) continue;
      add_note(
          fmt::format("{} not used: the untuned kernel is faster here ({:.2f} us against "
                      "{:.2f} us)",
                      record, measured.library_s * 1e6, measured.kernel_s * 1e6));
      chosen[t].record.reset();
      objects[k] = objects[u];
      symbols[k] = symbols[u];
    }
    for (size_t k = 0; k < kernel_task.size(); ++k) {
      size_t t = kernel_task[k];
      if (!candidates[t]) continue;
      LibraryCandidate& cand = *candidates[t];
      CompiledTask& c = report.tasks[t];
      std::vector<runtime::model::GraphKernel> graph_kernels = {kernel_of(k, t), library_of(t)};
      TaskLowering as_kernel;
      as_kernel.kernel = 0;
      TaskLowering as_library;
      as_library.library = 1;
      as_library.matmul = cand.matmul;
      if (cand.epilogue.defined()) {
        graph_kernels.push_back(kernel_of(cand.epilogue_object, t));
        as_library.kernel = 2;
      }
      VariantTiming measured =
          TimeTaskVariants(tasks[t], cand.matmul.written_params, as_kernel, as_library,
                           graph_kernels, timing_library.path(), timing);
      c.kernel_tuned = chosen[t].record.has_value();
      if (measured.measured) {
        c.kernel_s = measured.kernel_s;
        c.library_s = measured.library_s;
      }
      std::string versus = std::string(chosen[t].record ? "tuned" : "untuned") + " kernel";
      if (!measured.agree) {
        KILN_CHECK(options.library != LibraryPolicy::kAlways, ErrorKind::kInternal,
                   "compile: task " + tasks[t].name + ": " + measured.note);
        c.library_note = measured.note;
      } else if (options.library == LibraryPolicy::kAlways) {
        cand.chosen = true;
        c.library_note = "--library always";
      } else if (!measured.measured) {
        c.library_note = measured.note;
      } else {
        cand.chosen = measured.library_s < measured.kernel_s;
        c.library_note = (cand.chosen ? "library faster than the " : "the ") + versus +
                         (cand.chosen ? "" : " faster than the library");
      }
    }
  }

  std::vector<runtime::model::GraphKernel> kernels;
  std::vector<std::string> object_paths;
  std::vector<std::string> task_symbol(tasks.size());
  for (size_t k = 0; k < kernel_task.size(); ++k) {
    size_t t = kernel_task[k];
    CompiledTask& c = report.tasks[t];
    if (candidates[t] && candidates[t]->chosen) {
      const LibraryCandidate& cand = *candidates[t];
      lowering[t].library = static_cast<int64_t>(kernels.size());
      lowering[t].matmul = cand.matmul;
      kernels.push_back(library_of(t));
      c.kind = "library";
      c.impl = "library:" + options.library_function;
      ++report.library;
      if (cand.epilogue.defined()) {
        lowering[t].kernel = static_cast<int64_t>(kernels.size());
        kernels.push_back(kernel_of(cand.epilogue_object, t));
        object_paths.push_back(objects[cand.epilogue_object].object_path);
        task_symbol[t] = symbols[cand.epilogue_object];
        c.impl += "+epilogue";
      }
      continue;
    }
    lowering[t].kernel = static_cast<int64_t>(kernels.size());
    kernels.push_back(kernel_of(k, t));
    object_paths.push_back(objects[k].object_path);
    task_symbol[t] = symbols[k];
  }
  LoweredGraph lowered = LowerEntryFunction(module, entry, tasks, lowering, kernels);

  runtime::model::Manifest manifest;
  manifest.target = options.target;
  manifest.device_key = report.device_key;
  manifest.model = options.model;
  manifest.entry = entry;
  manifest.bound_dims = options.bound_dims;
  int64_t generated = 0;
  for (size_t t = 0; t < tasks.size(); ++t) {
    CompiledTask& c = report.tasks[t];
    if (chosen[t].record && c.kind == "kernel") {
      c.record_id = chosen[t].record->id;
      c.latency_s = chosen[t].record->result.median_seconds;
      ++report.tuned;
    }
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
    manifest.tasks.push_back(std::move(m));
  }
  for (const runtime::model::GraphKernel& k : kernels) generated += k.library.empty() ? 1 : 0;
  report.kernels = generated;
  report.constant_bytes = lowered.constants.size();

  std::error_code ec;
  fs::create_directories(output_dir, ec);
  KILN_CHECK(!ec, ErrorKind::kIO,
             output_dir + ": cannot create the artifact directory: " + ec.message());
  std::string library =
      (fs::path(output_dir) / ("kernels.so.tmp-" + runtime::UniqueSuffix())).string();
  try {
    LinkKernelLibrary(object_paths, library, build);
    runtime::model::WriteArtifact(output_dir, manifest, lowered.graph, lowered.constants, library);
  } catch (...) {
    fs::remove(library, ec);
    throw;
  }
  fs::remove(library, ec);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  KILN_LOG_INFO(
      "compiled {} into {}: {} kernels ({} tuned), {} library calls, {} views in {:.1f} s",
      options.model, output_dir, report.kernels, report.tuned, report.library, report.views,
      report.seconds);
  return report;
}

}  // namespace kiln::compiler
