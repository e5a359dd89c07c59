// The model compiler (`tune compile`): a model prepared by the tuning pipeline becomes a model
// artifact (runtime/model/artifact.h). For each task of the entry function: a view when it only
// re-views memory (view_task.h), else the best tuning record of (workload hash, target, device
// key) replayed on it (apply_best.h), or the workload as written when there is none. All
// kernels are built into one shared library (kernel_library.h), the entry function is lowered
// to the graph (lower_graph.h), and the directory is written with its manifest. A tuned kernel
// that fails to build falls back to the untuned one, and the report says so; so does one that
// measures slower than the untuned kernel when the two are timed here (keep_faster_untuned).
//
// A matmul task (matmul_task.h) may instead take a library call and a generated epilogue
// kernel (epilogue.h): with LibraryPolicy::kAuto both are timed on this machine
// (library_choice.h) and the faster kept; kAlways takes the library wherever it applies,
// kNever never. The choice and both times are in the report and the manifest.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "database/database.h"
#include "ir/relax/module.h"

namespace kiln::compiler {

enum class LibraryPolicy { kNever, kAuto, kAlways };

// "never", "auto", "always"; nullopt for anything else.
std::optional<LibraryPolicy> ParseLibraryPolicy(const std::string& text);

struct CompileOptions {
  std::string target = "llvm";
  std::string device_key;                     // the records' device key; empty: this CPU's
  database::Database* db = nullptr;           // null: every task untuned
  std::string model;                          // what it is compiled from (for the manifest)
  std::map<std::string, int64_t> bound_dims;  // recorded in the manifest
  std::string cache_dir;                      // build cache; empty: the default
  int build_jobs = 0;                         // parallel compiles; 0: every core
  LibraryPolicy library = LibraryPolicy::kAuto;
  std::string library_function = "dnnl_sgemm";  // the matmul library (runtime/model)
  // Time each tuned kernel against the workload as written (static shapes) and keep the
  // faster: a record measured slower than the untuned kernel, or on a busier machine, never
  // makes the model slower.
  bool keep_faster_untuned = true;
  // Give each kernel no record covers (static shapes) the default CPU schedule
  // (search/space/default_schedule.h) when it agrees with the loops as written and is timed
  // faster than them.
  bool default_schedules = true;
  int measure_threads = 0;            // threads when timing variants; 0: every core
  int measure_repeat = 5;             // repeats per round of that timing
  double measure_min_repeat_ms = 10;  // and the least length of a repeat
};

struct CompiledTask {
  std::string name;
  std::string workload_hash;
  int64_t weight = 1;
  std::string kind;                  // "kernel", "library" or "view"
  std::optional<int64_t> record_id;  // the record used; none: untuned
  std::optional<double> latency_s;   // that record's latency
  std::string note;                  // why a record was not used, when one was not
  // "kernel", "view", "library:dnnl_sgemm" or "library:dnnl_sgemm+epilogue".
  std::string impl;
  std::optional<double> kernel_s;   // the kernel as timed at compile time (matmul tasks)
  std::optional<double> library_s;  // the library variant, likewise
  bool kernel_tuned = false;        // the kernel timed against it had a tuning record
  // The record's kernel and the untuned one as timed at compile time (keep_faster_untuned).
  std::optional<double> tuned_s;
  std::optional<double> untuned_s;
  // The default schedule is the kernel (it was faster than the kernel before it); with no
  // record, the best default variant and the loops as written as timed in one run.
  bool default_schedule = false;
  std::optional<double> default_s;
  std::optional<double> written_s;
  std::string library_note;  // why the library was or was not taken
};

// One graph of the artifact: graph.json (the model as given: the only graph, or the fallback
// that is symbolic in the bucketed dims) or a shape bucket's (the model specialised to it).
struct CompileVariant {
  std::string name;                     // the bucket's label ("seq_len=32"); "" for graph.json
  std::map<std::string, int64_t> dims;  // what a bucket binds, for the executor's choice
  ir::relax::IRModule module;           // through ir::relax::transform::PrepareModuleForTuning
  std::string entry;
};

struct CompiledBucket {
  std::string name;
  std::map<std::string, int64_t> dims;
  std::vector<CompiledTask> tasks;
};

struct CompileReport {
  std::string artifact_dir;
  std::string device_key;
  std::vector<CompiledTask> tasks;      // graph.json's
  std::vector<CompiledBucket> buckets;  // each bucket's graph
  // With buckets: the fallback's dims a bucket may serve padded (compiler/padding.h), and why
  // each other one may not.
  std::vector<std::string> paddable_dims;
  std::map<std::string, std::string> unpaddable_dims;
  int64_t kernels = 0;  // over every graph
  int64_t views = 0;
  int64_t tuned = 0;
  int64_t library = 0;          // tasks that take a library call
  uint64_t constant_bytes = 0;  // weights shared by the graphs are stored once
  double seconds = 0;
};

// Writes the artifact directory `output_dir` from `variants`: the first is graph.json, the
// others are buckets (their dims must be dims the first keeps symbolic). kiln::Error:
// kUnsupported for a graph construct or a kernel the compiler cannot handle (naming it and the
// bucket), kIO for files and the C compiler.
CompileReport CompileModel(const std::vector<CompileVariant>& variants,
                           const std::string& output_dir, const CompileOptions& options);
// One graph: `module` through PrepareModuleForTuning, compiled from `entry`.
CompileReport CompileModel(const ir::relax::IRModule& module, const std::string& entry,
                           const std::string& output_dir, const CompileOptions& options);

}  // namespace kiln::compiler
