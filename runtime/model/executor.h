// The executor: runs a compiled model (runtime/model/artifact.h) on this CPU. Inputs and
// outputs are host tensors; symbolic dims are bound from the inputs' shapes and checked
// against every other dim that names them. Per distinct set of input shapes it makes a plan
// once (cached): every shape evaluated, the intermediates placed in one arena by their
// lifetimes (runtime/model/memory_plan.h), views resolved to their source's memory, the kernel
// arguments laid out. A run then only fills in the inputs' and outputs' pointers and calls the
// kernels in order; they run their parallel loops on the OpenMP pool of the kernels library,
// whose size is set once (ExecutorOptions::threads). A kernel that names a library function
// (runtime/model/library_function.h) is a call of that function on the same threads (oneDNN
// shares the kernels' OpenMP runtime); its product is one more value of the memory plan.
//
// An artifact with shape buckets holds a graph per bucket beside the fallback (graph.json).
// Per call the executor picks, by the dims the inputs bind: the bucket whose dims are exactly
// those; else the smallest bucket at least as large in each dim, when every dim it is larger
// in may be padded (the manifest's paddable_dims, proven by compiler/padding.h): the inputs
// are zero-padded to it and the outputs cut back; else the fallback. The choice is cached per
// set of input shapes, so a call pays one lookup for it.
//
// One executor runs one model at a time: Run is not reentrant (the arena is shared by runs).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "runtime/cpu_module.h"
#include "runtime/model/artifact.h"
#include "runtime/model/library_function.h"

namespace kiln::runtime::model {

struct ExecutorOptions {
  int threads = 0;  // OpenMP threads of the kernels; 0: every core
  // Where the kernels library is mapped from (a copy named by its checksum, under models/):
  // empty is the build cache's default (KILN_CACHE_DIR, else ~/.cache/kiln).
  std::string cache_dir = {};
};

// What a plan for one set of input shapes needs.
struct PlanStats {
  uint64_t arena_bytes = 0;        // intermediates, after reuse
  uint64_t unshared_bytes = 0;     // intermediates without reuse
  uint64_t lower_bound_bytes = 0;  // most intermediate bytes live at one step
  uint64_t output_bytes = 0;       // the returned tensors
  uint64_t constant_bytes = 0;     // weights
  int64_t kernel_calls = 0;
  int64_t views = 0;
  // What a run holds at its peak besides the inputs: arena, outputs and weights.
  uint64_t peak_bytes() const { return arena_bytes + output_bytes + constant_bytes; }
};

struct InputInfo {
  std::string name;
  ir::DataType dtype;
  std::vector<DimExpr> shape;
};

// Which graph runs a call, and how.
struct GraphChoice {
  enum class How { kFallback, kExact, kPadded };
  How how = How::kFallback;
  int64_t bucket = -1;                  // index into the manifest's buckets; -1: graph.json
  std::map<std::string, int64_t> dims;  // the dims the inputs bind
  // "fallback", "bucket seq_len=32 (exact)", "bucket batch=8 (padded from batch=5)".
  std::string Describe(const Manifest& manifest) const;
};

class Executor {
 public:
  // Maps the artifact's kernels library. kiln::Error(kIO) when it cannot be loaded or lacks a
  // kernel the graph calls.
  explicit Executor(Artifact artifact, ExecutorOptions options = {});
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs the model. kiln::Error(kRuntime) naming the input when one does not fit (count,
  // dtype, rank, a dim that disagrees with another binding of the same symbolic dim), or
  // naming the kernel when one fails.
  std::vector<ir::HostTensor> Run(const std::vector<ir::HostTensor>& inputs);
  // Run, and the seconds each step took (one entry per graph step, in order) in
  // `step_seconds`: what `tune bench --profile` reports.
  std::vector<ir::HostTensor> Run(const std::vector<ir::HostTensor>& inputs,
                                  std::vector<double>* step_seconds);
  // Runs the model writing into `outputs`: tensors of the dtypes and shapes Run returns for
  // these inputs (an earlier Run's, for one), so that a loop of runs allocates and zeroes no
  // memory, as a serving loop or a timing wants. kiln::Error(kRuntime) naming an output that
  // does not fit.
  void RunInto(const std::vector<ir::HostTensor>& inputs, std::vector<ir::HostTensor>& outputs);

  // The plan for these input shapes (made and cached if new), of the graph that runs them.
  PlanStats Plan(const std::vector<std::vector<int64_t>>& input_shapes);
  // The graph that runs these input shapes (cached). kiln::Error(kRuntime) as Run for inputs
  // that do not fit the model.
  const GraphChoice& Choose(const std::vector<std::vector<int64_t>>& input_shapes);
  // The graph a choice runs: graph.json or a bucket's.
  const Graph& GraphOf(const GraphChoice& choice) const;

  const Artifact& artifact() const { return artifact_; }
  std::vector<InputInfo> inputs() const;
  int threads() const { return threads_; }

 private:
  struct ConcretePlan;
  // A graph of the artifact with its kernels resolved and its plans.
  struct GraphState;
  struct Dispatch;
  ConcretePlan& GetPlan(GraphState& graph, const std::vector<std::vector<int64_t>>& input_shapes);
  Dispatch& GetDispatch(const std::vector<std::vector<int64_t>>& input_shapes);
  // Run's work; with `into`, outputs are written there and nothing is returned.
  std::vector<ir::HostTensor> RunSteps(const std::vector<ir::HostTensor>& inputs,
                                       std::vector<double>* step_seconds,
                                       std::vector<ir::HostTensor>* into);
  std::vector<ir::HostTensor> RunGraph(GraphState& graph, const std::vector<ir::HostTensor>& inputs,
                                       std::vector<double>* step_seconds,
                                       std::vector<ir::HostTensor>* into);
  void SetThreads();

  Artifact artifact_;
  int threads_ = 1;
  CpuModule module_;
  KernelFunction set_threads_ = nullptr;
  std::vector<std::unique_ptr<GraphState>> graphs_;  // graph.json, then each bucket's
  std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<Dispatch>> dispatch_;
};

// The dims that `inputs` of `graph` bind: each symbolic dim an input's dim names alone, then
// every input dim checked against its expression. kiln::Error(kRuntime) naming the input when
// one does not fit (count, rank, a dim that disagrees).
DimEnv BindInputDims(const Graph& graph, const std::vector<std::vector<int64_t>>& input_shapes);

}  // namespace kiln::runtime::model
