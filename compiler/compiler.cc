// The driver: every graph of the artifact built (graph_build.h: tasks, schedules, library
// variants, kernels, timing, graph), their constants merged, the kernels linked into one
// library and the artifact written.
#include "compiler/compiler.h"

#include <chrono>
#include <filesystem>
#include <map>
#include <set>

#include "compiler/graph_build.h"
#include "compiler/kernel_library.h"
#include "compiler/padding.h"
#include "runtime/file_util.h"
#include "runtime/model/artifact.h"
#include "runtime/model/library_function.h"
#include "support/error.h"
#include "support/logging.h"
#include "worker/device_key.h"

namespace kiln::compiler {
namespace {

namespace fs = std::filesystem;

// The graphs' constants in one blob, each distinct constant once (buckets share the weights):
// rewrites every graph's constant offsets into it.
std::string MergeConstants(std::vector<BuiltGraph>& built) {
  std::string merged;
  std::map<std::string, uint64_t> offset_of;  // bytes -> offset in `merged`
  for (BuiltGraph& b : built) {
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

  std::vector<BuiltGraph> built;
  for (size_t v = 0; v < variants.size(); ++v) {
    try {
      built.push_back(BuildGraph(variants[v], v, output_dir, options, report.device_key, build));
    } catch (const Error& e) {
      if (v == 0) throw;
      throw Error(e.kind(), "bucket " + variants[v].name + ": " + e.what());
    }
    BuiltGraph& b = built.back();
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
