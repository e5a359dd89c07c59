// The driver: tasks, schedules, library variants, kernels, timing, graph, artifact, in that
// order.
#include "compiler/compiler.h"

#include <fmt/format.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "codegen/kernel_abi.h"
#include "compiler/apply_best.h"
#include "compiler/epilogue.h"
#include "compiler/kernel_library.h"
#include "compiler/library_choice.h"
#include "compiler/lower_graph.h"
#include "compiler/matmul_task.h"
#include "compiler/padding.h"
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

// "kiln_model_3_fused_matmul_add" (graph.json), "kiln_model_b2_3_fused_matmul_add" (bucket
// 2's): unique by graph and index, readable in a profiler.
std::string KernelSymbolOf(size_t variant, size_t index, const std::string& name) {
  std::string symbol = "kiln_model_" +
                       (variant == 0 ? std::string() : "b" + std::to_string(variant - 1) + "_") +
                       std::to_string(index) + "_";
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

// One graph compiled: its tasks as reported and as the manifest lists them, the objects of
// its kernels, and the graph with its constants.
struct BuiltVariant {
  std::vector<CompiledTask> tasks;
  std::vector<runtime::model::ManifestTask> manifest_tasks;
  std::vector<std::string> object_paths;
  LoweredGraph lowered;
  int64_t kernels = 0;
  int64_t views = 0;
  int64_t tuned = 0;
  int64_t library = 0;
};

BuiltVariant BuildVariant(const ir::relax::IRModule& module, const std::string& entry,
                          size_t variant_index, const std::string& output_dir,
                          const CompileOptions& options, const std::string& device_key,
                          const KernelLibraryOptions& build);

// The graphs' constants in one blob, each distinct constant once (buckets share the weights):
// rewrites every graph's constant offsets into it.
std::string MergeConstants(std::vector<BuiltVariant>& built) {
  std::string merged;
  std::map<std::string, uint64_t> offset_of;  // bytes -> offset in `merged`
  for (BuiltVariant& b : built) {
    for (runtime::model::ConstantRef& ref : b.lowered.graph.constants) {
      std::string bytes = b.lowered.constants.substr(ref.offset, ref.nbytes);
      auto it = offset_of.find(bytes);
      if (it == offset_of.end()) {
        merged.append((64 - merged.size() % 64) % 64, '\0');
        it = offset_of.emplace(bytes, merged.size()).first;
        merged += bytes;
      }
      ref.offset = it->second;
    }
    b.lowered.constants.clear();
  }
  return merged;
}

}  // namespace

std::optional<LibraryPolicy> ParseLibraryPolicy(const std::string& text) {
  if (text == "never") return LibraryPolicy::kNever;
  if (text == "auto") return LibraryPolicy::kAuto;
  if (text == "always") return LibraryPolicy::kAlways;
  return std::nullopt;
}

namespace {

BuiltVariant BuildVariant(const ir::relax::IRModule& module, const std::string& entry,
                          size_t variant_index, const std::string& output_dir,
                          const CompileOptions& options, const std::string& device_key,
                          const KernelLibraryOptions& build) {
  BuiltVariant report;
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, entry);

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
      chosen[t] = ApplyBest(options.db, tasks[t].func, c.workload_hash, options.target, device_key);
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
  std::vector<ir::PrimFunc> funcs;
  std::vector<std::string> symbols;
  for (size_t k = 0; k < kernel_task.size(); ++k) {
    funcs.push_back(chosen[kernel_task[k]].scheduled);
    symbols.push_back(KernelSymbolOf(variant_index, k, tasks[kernel_task[k]].name));
  }
  for (size_t k = 0; k < kernel_task.size(); ++k) {
    std::optional<LibraryCandidate>& cand = candidates[kernel_task[k]];
    if (!cand || !cand->epilogue.defined()) continue;
    cand->epilogue_object = funcs.size();
    funcs.push_back(cand->epilogue);
    symbols.push_back(KernelSymbolOf(variant_index, k, tasks[kernel_task[k]].name) + "_epilogue");
  }
  // The workloads as written beside the tuned kernels, to time the two.
  std::vector<std::optional<size_t>> untuned_object(tasks.size());
  for (size_t k = 0; k < kernel_task.size() && options.keep_faster_untuned; ++k) {
    size_t t = kernel_task[k];
    if (!chosen[t].record) continue;
    untuned_object[t] = funcs.size();
    funcs.push_back(tasks[t].func);
    symbols.push_back(KernelSymbolOf(variant_index, k, tasks[t].name) + "_untuned");
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
  report.lowered = LowerEntryFunction(module, entry, tasks, lowering, kernels);
  report.object_paths = object_paths;
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
    report.manifest_tasks.push_back(std::move(m));
  }
  for (const runtime::model::GraphKernel& k : kernels) report.kernels += k.library.empty() ? 1 : 0;
  return report;
}

}  // namespace

CompileReport CompileModel(const ir::relax::IRModule& module, const std::string& entry,
                           const std::string& output_dir, const CompileOptions& options) {
  return CompileModel({{"", {}, module, entry}}, output_dir, options);
}

CompileReport CompileModel(const std::vector<CompileVariant>& variants,
                           const std::string& output_dir, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  KILN_CHECK(!variants.empty(), ErrorKind::kInternal, "compile: no graph to compile");
  KILN_CHECK(options.library == LibraryPolicy::kNever ||
                 runtime::model::FindLibraryFunction(options.library_function) != nullptr,
             ErrorKind::kUnsupported,
             "compile: the library function '" + options.library_function +
                 "' is not one this build provides");
  CompileReport report;
  report.artifact_dir = output_dir;
  report.device_key =
      options.device_key.empty() ? worker::DetectCpuDeviceKey() : options.device_key;
  KernelLibraryOptions build;
  build.target = options.target;
  build.jobs = options.build_jobs;
  build.cache_dir = options.cache_dir;

  std::vector<BuiltVariant> built;
  for (size_t v = 0; v < variants.size(); ++v) {
    try {
      built.push_back(BuildVariant(variants[v].module, variants[v].entry, v, output_dir, options,
                                   report.device_key, build));
    } catch (const Error& e) {
      if (v == 0) throw;
      throw Error(e.kind(), "bucket " + variants[v].name + ": " + e.what());
    }
    BuiltVariant& b = built.back();
    report.kernels += b.kernels;
    report.views += b.views;
    report.tuned += b.tuned;
    report.library += b.library;
    if (v == 0) {
      report.tasks = b.tasks;
    } else {
      report.buckets.push_back({variants[v].name, variants[v].dims, b.tasks});
    }
  }
  if (variants.size() > 1) {
    PaddingAnalysis padding = AnalyzePadding(variants[0].module, variants[0].entry);
    report.paddable_dims = padding.paddable;
    report.unpaddable_dims = padding.why_not;
  }
  std::string constants = MergeConstants(built);
  report.constant_bytes = constants.size();

  runtime::model::Manifest manifest;
  manifest.target = options.target;
  manifest.device_key = report.device_key;
  manifest.model = options.model;
  manifest.entry = variants[0].entry;
  manifest.bound_dims = options.bound_dims;
  manifest.tasks = built[0].manifest_tasks;
  manifest.paddable_dims = report.paddable_dims;
  manifest.unpaddable_dims = report.unpaddable_dims;
  std::vector<runtime::model::Graph> bucket_graphs;
  std::vector<std::string> object_paths;
  std::set<std::string> seen_objects;
  for (size_t v = 0; v < built.size(); ++v) {
    for (const std::string& path : built[v].object_paths) {
      if (seen_objects.insert(path).second) object_paths.push_back(path);
    }
    if (v == 0) continue;
    manifest.buckets.push_back({variants[v].name, variants[v].dims,
                                runtime::model::BucketGraphFile(v - 1), built[v].manifest_tasks});
    bucket_graphs.push_back(std::move(built[v].lowered.graph));
  }

  std::error_code ec;
  fs::create_directories(output_dir, ec);
  KILN_CHECK(!ec, ErrorKind::kIO,
             output_dir + ": cannot create the artifact directory: " + ec.message());
  std::string library =
      (fs::path(output_dir) / ("kernels.so.tmp-" + runtime::UniqueSuffix())).string();
  try {
    LinkKernelLibrary(object_paths, library, build);
    runtime::model::WriteArtifact(output_dir, manifest, built[0].lowered.graph, constants, library,
                                  bucket_graphs);
  } catch (...) {
    fs::remove(library, ec);
    throw;
  }
  fs::remove(library, ec);
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  KILN_LOG_INFO(
      "compiled {} into {}: {} graphs, {} kernels ({} tuned), {} library calls, {} views in "
      "{:.1f} s",
      options.model, output_dir, variants.size(), report.kernels, report.tuned, report.library,
      report.views, report.seconds);
  return report;
}

}  // namespace kiln::compiler
