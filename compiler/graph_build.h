// Building one graph of an artifact (graph.json, or a shape bucket's): each task's
// implementations are planned (the database's best schedule or the workload as written, a
// library call with its epilogue for a matmul), compiled, timed against each other where the
// shapes allow, and the chosen ones lowered with the entry function into the graph. The
// driver (compiler.cc) builds every graph this way and writes them into one artifact.
#pragma once

#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/kernel_library.h"
#include "compiler/lower_graph.h"
#include "runtime/model/artifact.h"

namespace kiln::compiler {

// One graph compiled: its tasks as reported and as the manifest lists them, the objects of
// its kernels, and the graph with its constants.
struct BuiltGraph {
  std::vector<CompiledTask> tasks;
  std::vector<runtime::model::ManifestTask> manifest_tasks;
  std::vector<std::string> object_paths;
  LoweredGraph lowered;
  int64_t kernels = 0;
  int64_t views = 0;
  int64_t tuned = 0;
  int64_t library = 0;
};

// `variant_index` 0 is graph.json, i > 0 bucket i - 1 (it names the kernels' symbols).
// Timing libraries are linked under `output_dir`. kiln::Error(kUnsupported) naming the task
// when a kernel cannot be built even as written.
BuiltGraph BuildGraph(const CompileVariant& variant, size_t variant_index,
                      const std::string& output_dir, const CompileOptions& options,
                      const std::string& device_key, const KernelLibraryOptions& build);

}  // namespace kiln::compiler
