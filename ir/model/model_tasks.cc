// Specialising a model per bucket and merging the buckets' tasks.
#include "ir/model/model_tasks.h"

#include <algorithm>
#include <functional>
#include <set>

#include "ir/analysis/flop_count.h"
#include "ir/model/model_file.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/structural.h"
#include "ir/substitute.h"
#include "support/error.h"

namespace kiln::ir::model {
namespace {

void CollectDims(const relax::StructInfo& s, std::vector<std::string>& names,
                 std::set<std::string>& seen) {
  auto add = [&](const relax::PrimExpr& d) {
    ForEachVar(d, [&](const Var& v) {
      if (seen.insert(v.name()).second) names.push_back(v.name());
    });
  };
  if (const auto* t = s.as<relax::TensorStructInfoNode>()) {
    if (t->shape) {
      for (const relax::PrimExpr& d : *t->shape) add(d);
    }
  } else if (const auto* tuple = s.as<relax::TupleStructInfoNode>()) {
    for (const relax::StructInfo& f : tuple->fields) CollectDims(f, names, seen);
  } else if (const auto* shape = s.as<relax::ShapeStructInfoNode>()) {
    if (shape->values) {
      for (const relax::PrimExpr& d : *shape->values) add(d);
    }
  } else if (const auto* prim = s.as<relax::PrimStructInfoNode>()) {
    if (prim->value.defined()) add(prim->value);
  }
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

std::set<std::string> TaskSymbolicDims(const PrimFunc& f) {
  std::set<std::string> names;
  for (const Var& param : f->params) {
    auto buffer = f->BufferOf(param);
    if (!buffer) continue;
    for (const Expr& extent : (*buffer)->shape) {
      ForEachVar(extent, [&](const Var& v) { names.insert(v.name()); });
    }
  }
  return names;
}

// The integer Constant arguments of the first call_tir of `func_name` in `module`'s Relax
// functions, by parameter index (outputs come after the arguments, so an argument's index is
// its parameter's).
std::map<size_t, HostTensor> ConstantIndexArgs(const relax::IRModule& module,
                                               const std::string& func_name) {
  for (const std::string& name : module.names()) {
    const relax::Function* f = module.LookupFunction(name);
    if (f == nullptr) continue;
    const auto* seq = (*f)->body.as<relax::SeqExprNode>();
    if (seq == nullptr) continue;
    for (const relax::BindingBlock& block : seq->blocks) {
      for (const relax::Binding& b : block.bindings) {
        const auto* call = b.value.as<relax::CallNode>();
        if (call == nullptr || call->op != "call_tir" || call->args.size() < 2) continue;
        const auto* callee = call->args[0].as<relax::GlobalVarNode>();
        const auto* args = call->args[1].as<relax::TupleNode>();
        if (callee == nullptr || args == nullptr || callee->name != func_name) continue;
        std::map<size_t, HostTensor> out;
        for (size_t i = 0; i < args->fields.size(); ++i) {
          const auto* c = args->fields[i].as<relax::ConstantNode>();
          if (c != nullptr && c->data.dtype().is_int()) out[i] = c->data;
        }
        return out;
      }
    }
  }
  return {};
}

}  // namespace

std::string ModelTasks::DefaultedText() const {
  std::string out;
  for (const auto& [name, value] : defaulted) {
    out += (out.empty() ? "" : ", ") + name + "=" + std::to_string(value);
  }
  return out;
}

std::string ModelTasks::TaskLabel(size_t i) const {
  const ModelTask& task = tasks.at(i);
  if (!bucketed()) return task.name;
  if (task.buckets.size() == buckets.size() && buckets.size() > 1) {
    return task.name + " (every bucket)";
  }
  std::string served;
  for (const auto& [bucket, calls] : task.buckets) {
    served += (served.empty() ? "" : "|") + buckets[bucket].bucket.Label();
  }
  return task.name + " (" + served + ")";
}

std::string TaskFamily(const std::string& label) { return label.substr(0, label.find(" (")); }

std::vector<std::string> EntrySymbolicDims(const relax::IRModule& module,
                                           const std::string& entry) {
  const relax::Function* f = module.LookupFunction(entry);
  KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR, "the module has no Relax function " + entry);
  std::vector<std::string> names;
  std::set<std::string> seen;
  for (const relax::Var& p : (*f)->params) CollectDims(p.struct_info(), names, seen);
  return names;
}

ModelTasks ExtractModelTasks(const std::string& name, const std::string& bytes,
                             const ModelTaskOptions& options) {
  frontend::onnx::ScopedSparseAttentionMode sparse_attention(options.sparse_attention);
  ModelTasks out;
  ModelInput symbolic = LoadModelBytes(name, bytes, {}, options.func);
  out.format = symbolic.format;
  out.entry = symbolic.entry;
  out.symbolic_dims = EntrySymbolicDims(symbolic.module, symbolic.entry);
  std::set<std::string> known(out.symbolic_dims.begin(), out.symbolic_dims.end());
  auto require_dim = [&](const std::string& dim, const std::string& flag) {
    KILN_CHECK(known.count(dim) != 0, ErrorKind::kParse,
               name + ": " + flag + " names the dim '" + dim +
                   "', which the model's inputs do not have (its symbolic dims: " +
                   JoinNames(out.symbolic_dims) + ")");
  };
  for (const auto& [dim, value] : options.dims) require_dim(dim, "--dim " + dim);
  for (const BucketDim& d : options.buckets.dims) {
    require_dim(d.name, "--bucket " + d.name);
    KILN_CHECK(options.dims.count(d.name) == 0, ErrorKind::kParse,
               name + ": " + d.name + " is both bound (--dim) and bucketed (--bucket)");
  }
  if (!out.symbolic_dims.empty() && out.format != "onnx") {
    throw Error(ErrorKind::kUnsupported,
                name + ": the model has symbolic dims (" + JoinNames(out.symbolic_dims) +
                    "); Kiln binds the dims of ONNX models only, so tuning a Relax model needs "
                    "static shapes");
  }

  std::map<std::string, int64_t> common = options.dims;
  for (const std::string& dim : out.symbolic_dims) {
    bool bucketed = std::any_of(options.buckets.dims.begin(), options.buckets.dims.end(),
                                [&](const BucketDim& d) { return d.name == dim; });
    if (common.count(dim) != 0 || bucketed) continue;
    common[dim] = options.default_dim;
    out.defaulted[dim] = options.default_dim;
  }

  std::map<uint64_t, std::vector<size_t>> by_hash;  // workload hash -> task indices
  for (const ShapeBucket& bucket : options.buckets.Expand()) {
    SpecializedBucket s;
    s.bucket = bucket;
    s.bound = common;
    for (const auto& [dim, value] : bucket.dims) s.bound[dim] = value;
    std::string where = bucket.dims.empty() ? name : name + " (bucket " + bucket.Label() + ")";
    std::vector<relax::transform::ExtractedTask> extracted;
    relax::IRModule prepared;
    try {
      ModelInput input = out.symbolic_dims.empty() && bucket.dims.empty()
                             ? symbolic
                             : LoadModelBytes(name, bytes, s.bound, options.func);
      prepared = relax::transform::PrepareModuleForTuning(input.module, options.pipeline);
      extracted = relax::transform::ExtractTasks(prepared, input.entry);
      if (options.keep_modules) s.module = prepared;
    } catch (const Error& e) {
      // A dim left to --default-dim may be what made the shapes disagree: say which.
      std::string defaulted;
      for (const auto& [dim, value] : out.defaulted) {
        defaulted += (defaulted.empty() ? "" : ", ") + dim + "=" + std::to_string(value);
      }
      std::string hint = defaulted.empty()
                             ? ""
                             : " (the dims not given took the default value: " + defaulted +
                                   "; give each its real value with --dim NAME=VALUE)";
      if (bucket.dims.empty()) throw Error(e.kind(), e.what() + hint);
      throw Error(e.kind(), "bucket " + bucket.Label() + ": " + e.what() + hint);
    }
    for (relax::transform::ExtractedTask& task : extracted) {
      std::set<std::string> left = TaskSymbolicDims(task.func);
      KILN_CHECK(left.empty(), ErrorKind::kUnsupported,
                 where + ": task " + task.name + " keeps the symbolic dim " + *left.begin() +
                     " after binding the model's dims");
      size_t index = out.tasks.size();
      bool found = false;
      for (size_t candidate : by_hash[task.workload_hash]) {
        if (StructuralEqual(out.tasks[candidate].func, task.func)) {
          index = candidate;
          found = true;
          break;
        }
      }
      if (!found) {
        ModelTask t;
        t.name = task.name;
        t.func = task.func;
        t.workload_hash = task.workload_hash;
        t.flop = EstimateFlops(task.func, {});  // a sparse kernel's: kiln.sparse_flops
        if (task.func->attrs.count("kiln.sparse_op") != 0) {
          t.constant_index_args = ConstantIndexArgs(prepared, task.name);
        }
        out.tasks.push_back(std::move(t));
        by_hash[task.workload_hash].push_back(index);
      }
      ModelTask& t = out.tasks[index];
      t.weight += static_cast<double>(task.weight) * bucket.weight;
      t.buckets.emplace_back(out.buckets.size(), task.weight);
      s.tasks.emplace_back(index, task.weight);
    }
    out.buckets.push_back(std::move(s));
  }
  return out;
}

}  // namespace kiln::ir::model
