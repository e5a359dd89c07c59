// The driver: tasks, schedules, kernels, graph, artifact, in that order.
#include "compiler/compiler.h"

#include <chrono>
#include <filesystem>

#include "codegen/kernel_abi.h"
#include "compiler/apply_best.h"
#include "compiler/kernel_library.h"
#include "compiler/lower_graph.h"
#include "compiler/view_task.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/structural.h"
#include "runtime/file_util.h"
#include "runtime/model/artifact.h"
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

}  // namespace

CompileReport CompileModel(const ir::relax::IRModule& module, const std::string& entry,
                           const std::string& output_dir, const CompileOptions& options) {
  auto start = std::chrono::steady_clock::now();
  CompileReport report;
  report.artifact_dir = output_dir;
  report.device_key =
      options.device_key.empty() ? worker::DetectCpuDeviceKey() : options.device_key;
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, entry);

  std::vector<TaskLowering> lowering(tasks.size());
  std::vector<ChosenSchedule> chosen(tasks.size());
  std::vector<size_t> kernel_task;  // graph kernel -> task
  for (size_t t = 0; t < tasks.size(); ++t) {
    CompiledTask c;
    c.name = tasks[t].name;
    c.workload_hash = ir::StructuralHashHex(tasks[t].func);
    c.weight = tasks[t].weight;
    if (IsViewTask(tasks[t])) {
      c.kind = "view";
      lowering[t].view = true;
      ++report.views;
    } else {
      c.kind = "kernel";
      chosen[t] =
          ApplyBest(options.db, tasks[t].func, c.workload_hash, options.target, report.device_key);
      c.note = chosen[t].note;
      lowering[t].kernel = static_cast<int64_t>(kernel_task.size());
      kernel_task.push_back(t);
    }
    report.tasks.push_back(std::move(c));
  }

  // Build the chosen schedules; a tuned kernel that fails falls back to the workload.
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
  std::vector<KernelObject> objects = CompileKernelObjects(funcs, symbols, build);
  std::vector<ir::PrimFunc> retry_funcs;
  std::vector<std::string> retry_symbols;
  std::vector<size_t> retry_index;
  for (size_t k = 0; k < objects.size(); ++k) {
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

  std::vector<runtime::model::GraphKernel> kernels;
  std::vector<std::string> object_paths;
  for (size_t k = 0; k < objects.size(); ++k) {
    kernels.push_back({symbols[k], tasks[kernel_task[k]].name, objects[k].signature.slots});
    object_paths.push_back(objects[k].object_path);
  }
  LoweredGraph lowered = LowerEntryFunction(module, entry, tasks, lowering, kernels);

  runtime::model::Manifest manifest;
  manifest.target = options.target;
  manifest.device_key = report.device_key;
  manifest.model = options.model;
  manifest.entry = entry;
  manifest.bound_dims = options.bound_dims;
  for (size_t t = 0; t < tasks.size(); ++t) {
    CompiledTask& c = report.tasks[t];
    if (chosen[t].record) {
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
    if (!lowering[t].view) m.symbol = symbols[lowering[t].kernel];
    manifest.tasks.push_back(std::move(m));
  }
  report.kernels = static_cast<int64_t>(kernels.size());
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
  KILN_LOG_INFO("compiled {} into {}: {} kernels ({} tuned), {} views in {:.1f} s", options.model,
                output_dir, report.kernels, report.tuned, report.views, report.seconds);
  return report;
}

}  // namespace kiln::compiler
