// The tuning tasks of a model over its shape buckets. The model is imported once per bucket
// with that bucket's dims bound (and the dims the user bound with --dim, and the default for
// any symbolic dim left), so that the shape computations exporters emit fold for each bucket;
// each is prepared by the tuning pipeline (ir/relax/transform/pipeline.h) and its tasks
// extracted. A task identical in several buckets (same structural hash) is one task, weighted
// by its calls in each bucket times that bucket's weight: the task scheduler then spends the
// budget where the weighted model latency gains most.
//
// `tune run`, the coordinator's submit and `tune compile` all specialise a model through here,
// so that a task tuned in one is the workload the others look up.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "ir/frontend/onnx/sparse_attention_mode.h"
#include "ir/function.h"
#include "ir/host_tensor.h"
#include "ir/model/shape_buckets.h"
#include "ir/relax/module.h"
#include "ir/relax/transform/pipeline.h"

namespace kiln::ir::model {

struct ModelTaskOptions {
  std::map<std::string, int64_t> dims;  // --dim: bound in every bucket
  int64_t default_dim = 128;            // a symbolic dim neither bound nor bucketed
  BucketSpec buckets;
  std::string func;  // the entry (--func); empty: ChooseEntryFunction
  // Keep each bucket's prepared module (what `tune compile` builds); tuning needs only tasks.
  bool keep_modules = false;
  // The pipeline's rewrites (--winograd): they change the tasks, so tune run and tune compile
  // must pass the same.
  relax::transform::PipelineOptions pipeline;
  // The ONNX importer's block-sparse attention (--sparse-attention): it changes the tasks too.
  frontend::onnx::SparseAttentionMode sparse_attention = frontend::onnx::SparseAttentionMode::kAuto;
};

struct ModelTask {
  std::string name;  // the kernel's name in the first bucket that has it
  PrimFunc func;     // the workload
  uint64_t workload_hash = 0;
  double flop = 0;  // one call
  // Calls per weighted model run: the sum over buckets of calls times the bucket's weight.
  double weight = 0;
  std::vector<std::pair<size_t, int64_t>> buckets;  // (bucket index, calls in it)
  // A sparse kernel's (attribute kiln.sparse_op) integer arguments that its first call passes
  // as constants, by parameter index: the matrix structure (indptr, indices) a model's GNN
  // aggregation fixed. Random indices are no matrix, so the task is measured on a reference
  // made from these (compiler/sparse/model_task_reference.h). Empty for other tasks.
  std::map<size_t, HostTensor> constant_index_args;
};

struct SpecializedBucket {
  ShapeBucket bucket;                             // its dims; empty without buckets
  std::map<std::string, int64_t> bound;           // every dim bound for it
  std::vector<std::pair<size_t, int64_t>> tasks;  // (ModelTasks::tasks index, calls)
  relax::IRModule module;                         // prepared; with keep_modules only
};

struct ModelTasks {
  std::string format;  // "onnx" or "relax"
  std::string entry;
  std::vector<std::string> symbolic_dims;    // the model's, as written, in order
  std::map<std::string, int64_t> defaulted;  // dims bound to ModelTaskOptions::default_dim
  std::vector<SpecializedBucket> buckets;    // one, with empty dims, when nothing is bucketed
  std::vector<ModelTask> tasks;
  // "seq_len=128, batch=128": the defaulted dims, for a note to the user.
  std::string DefaultedText() const;
  // What the task tables show for tasks[i]: its name, and with buckets the buckets it serves,
  // "fused_matmul (seq=32)", "layer_norm (seq=16|32|64)", "softmax (every bucket)".
  std::string TaskLabel(size_t i) const;
  bool bucketed() const {
    return buckets.size() > 1 || (buckets.size() == 1 && !buckets.front().bucket.dims.empty());
  }
};

// The operator a TaskLabel names, the label without its buckets: "fused_matmul" for
// "fused_matmul (seq=32)". Tasks of one operator in several buckets share it (a family, whose
// searches share their best traces: search/tuner.h).
std::string TaskFamily(const std::string& label);

// Throws kiln::Error: from LoadModel (kIO, kParse, kUnsupported); kParse naming the dim when a
// --dim or --bucket names a dim the model does not have (listing those it has) or a dim is both
// bound and bucketed; kUnsupported when a Relax model has symbolic dims (they cannot be bound
// yet) or a task keeps a symbolic dim after binding; the front end's error, naming the node,
// when a bucket's value is one the model cannot take (a detector whose H must be a multiple of
// 32), prefixed with the bucket.
ModelTasks ExtractModelTasks(const std::string& name, const std::string& bytes,
                             const ModelTaskOptions& options);

// The symbolic dims of the entry function's parameters, in order of first appearance.
std::vector<std::string> EntrySymbolicDims(const relax::IRModule& module, const std::string& entry);

}  // namespace kiln::ir::model
