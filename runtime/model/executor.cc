// Plans per input shapes, then runs kernel calls over precomputed argument arrays.
#include "runtime/model/executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <thread>

#include "runtime/cpu_builder.h"
#include "runtime/file_util.h"
#include "runtime/model/memory_plan.h"
#include "support/error.h"
#include "support/logging.h"

namespace kiln::runtime::model {
namespace {

// No tensor of a model may claim more than this (a bound that a wrong input shape, not a
// real model, reaches), so that a typo in a dim is an error rather than an allocation failure.
constexpr uint64_t kMaxTensorBytes = uint64_t{1} << 40;

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// The path to map the artifact's kernels library from. dlopen hands back a library already
// loaded under the same path, even when the file there has since been replaced (a model
// compiled again into the same directory), so the library is mapped from a copy named by its
// checksum: the same name means the same bytes. Where the cache cannot be written, the
// artifact's own file is mapped.
std::string MappableLibrary(const Artifact& artifact, const std::string& cache_dir) {
  std::string checksum;
  for (const ManifestFile& f : artifact.manifest.files) {
    if (f.name == kKernelsFile) checksum = f.checksum;
  }
  if (checksum.empty()) return artifact.library_path;
  try {
    std::filesystem::path dir =
        std::filesystem::path(cache_dir.empty() ? DefaultCacheDir() : cache_dir) / "models";
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    std::filesystem::path copy = dir / ("kernels-" + checksum + ".so");
    if (!std::filesystem::exists(copy, ec) || Checksum(ReadWholeFile(copy.string())) != checksum) {
      std::string bytes = ReadWholeFile(artifact.library_path);
      KILN_CHECK(Checksum(bytes) == checksum, ErrorKind::kParse,
                 artifact.library_path +
                     ": checksum mismatch (the file changed since it was "
                     "loaded)");
      WriteFileAtomically(copy.string(), bytes);
    }
    return copy.string();
  } catch (const Error& e) {
    if (e.kind() != ErrorKind::kIO) throw;
    KILN_LOG_WARN("mapping {} directly: {}", artifact.library_path, e.what());
    return artifact.library_path;
  }
}

}  // namespace

struct Executor::ConcretePlan {
  std::vector<std::vector<int64_t>> shapes;  // per value
  std::vector<uint64_t> nbytes;              // per value
  std::vector<int64_t> root;                 // the value whose memory it is
  std::vector<int64_t> arena_offset;         // per value whose root is in the arena; else -1
  std::vector<bool> direct_output;           // a graph output a kernel writes in place
  ir::HostTensor arena;
  // Per step: the packed arguments with shape and scalar slots filled in; buffer slots are
  // written at each run.
  std::vector<std::vector<codegen::PackedValue>> args;
  PlanStats stats;
};

struct Executor::GraphState {
  const Graph* graph = nullptr;
  std::vector<KernelFunction> kernels;            // null for a library call
  std::vector<const LibraryFunction*> libraries;  // null for a generated kernel
  std::map<std::vector<std::vector<int64_t>>, std::unique_ptr<ConcretePlan>> plans;
};

// What a set of input shapes runs: the choice, and for a padded bucket the shapes it runs at,
// the outputs' shapes to cut back to, and the padded tensors kept between calls (the padding
// is zero and is never written, so only the inputs' own region is copied in per call).
struct Executor::Dispatch {
  GraphChoice choice;
  std::vector<std::vector<int64_t>> run_shapes;
  std::vector<std::vector<int64_t>> output_shapes;
  std::vector<ir::HostTensor> padded_inputs;
  std::vector<ir::HostTensor> padded_outputs;
};

namespace {

// Copies the region the two shapes share (from index 0 along every axis) of `src` into `dst`.
void CopyCommonRegion(const ir::HostTensor& src, ir::HostTensor& dst) {
  const std::vector<int64_t>& a = src.shape();
  const std::vector<int64_t>& b = dst.shape();
  size_t rank = a.size();
  uint64_t elem = src.dtype().bytes();
  if (rank == 0) {
    std::memcpy(dst.data(), src.data(), elem);
    return;
  }
  std::vector<int64_t> common(rank);
  for (size_t d = 0; d < rank; ++d) common[d] = std::min(a[d], b[d]);
  for (int64_t c : common) {
    if (c == 0) return;
  }
  uint64_t row = static_cast<uint64_t>(common[rank - 1]) * elem;
  std::vector<int64_t> index(rank, 0);
  const auto* from = static_cast<const uint8_t*>(src.data());
  auto* to = static_cast<uint8_t*>(dst.data());
  while (true) {
    int64_t src_offset = 0, dst_offset = 0;
    for (size_t d = 0; d + 1 < rank; ++d) {
      src_offset = src_offset * a[d] + index[d];
      dst_offset = dst_offset * b[d] + index[d];
    }
    std::memcpy(to + dst_offset * b[rank - 1] * elem, from + src_offset * a[rank - 1] * elem, row);
    size_t d = rank - 1;
    while (d > 0) {
      --d;
      if (++index[d] < common[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (rank == 1) return;
  }
}

}  // namespace

std::string GraphChoice::Describe(const Manifest& manifest) const {
  if (how == How::kFallback) return "fallback";
  const ManifestBucket& b = manifest.buckets.at(static_cast<size_t>(bucket));
  if (how == How::kExact) return "bucket " + b.name + " (exact)";
  std::string from;
  for (const auto& [dim, value] : b.dims) {
    auto it = dims.find(dim);
    if (it != dims.end() && it->second != value) {
      from += (from.empty() ? "" : ",") + dim + "=" + std::to_string(it->second);
    }
  }
  return "bucket " + b.name + " (padded from " + from + ")";
}

DimEnv BindInputDims(const Graph& g, const std::vector<std::vector<int64_t>>& input_shapes) {
  KILN_CHECK(input_shapes.size() == g.inputs.size(), ErrorKind::kRuntime,
             "the model takes " + std::to_string(g.inputs.size()) + " inputs, " +
                 std::to_string(input_shapes.size()) + " given");
  // Bind the symbolic dims that an input's dim names alone, then check every input dim.
  DimEnv env;
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const GraphValue& v = g.values[g.inputs[i]];
    KILN_CHECK(input_shapes[i].size() == v.shape.size(), ErrorKind::kRuntime,
               "input " + v.name + ": rank " + std::to_string(input_shapes[i].size()) +
                   ", the model takes rank " + std::to_string(v.shape.size()));
    for (size_t d = 0; d < v.shape.size(); ++d) {
      KILN_CHECK(input_shapes[i][d] >= 0, ErrorKind::kRuntime,
                 "input " + v.name + ": negative dim " + std::to_string(input_shapes[i][d]));
      if (v.shape[d].op == DimExpr::Op::kVar && !env.count(v.shape[d].var)) {
        env[v.shape[d].var] = input_shapes[i][d];
      }
    }
  }
  for (const std::string& dim : g.dims) {
    KILN_CHECK(env.count(dim), ErrorKind::kRuntime,
               "dim " + dim + " is not the dim of any input, so no input shape binds it");
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    const GraphValue& v = g.values[g.inputs[i]];
    for (size_t d = 0; d < v.shape.size(); ++d) {
      int64_t expected = EvaluateDim(v.shape[d], env);
      KILN_CHECK(expected == input_shapes[i][d], ErrorKind::kRuntime,
                 "input " + v.name + " has shape " + ShapeString(input_shapes[i]) + ": dim " +
                     std::to_string(d) + " must be " + v.shape[d].ToString() + " = " +
                     std::to_string(expected) + " (dims bound so far from the inputs)");
    }
  }
  return env;
}

Executor::Executor(Artifact artifact, ExecutorOptions options)
    : artifact_(std::move(artifact)),
      threads_(options.threads > 0
                   ? options.threads
                   : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))),
      // The kernels' OpenMP pool outlives the executor; unmapping it under its threads would
      // crash the process (see CpuModule::Load).
      module_(
          CpuModule::Load(MappableLibrary(artifact_, options.cache_dir), /*keep_loaded=*/true)) {
  std::vector<const Graph*> graphs = {&artifact_.graph};
  for (const Graph& g : artifact_.bucket_graphs) graphs.push_back(&g);
  for (const Graph* g : graphs) {
    auto state = std::make_unique<GraphState>();
    state->graph = g;
    for (const GraphKernel& k : g->kernels) {
      if (k.library.empty()) {
        state->kernels.push_back(module_.GetKernel(k.symbol));
        state->libraries.push_back(nullptr);
        continue;
      }
      const LibraryFunction* f = FindLibraryFunction(k.library);
      KILN_CHECK(f != nullptr, ErrorKind::kUnsupported,
                 "task " + k.task + " calls the library function '" + k.library +
                     "', which this build of Kiln does not provide");
      state->kernels.push_back(nullptr);
      state->libraries.push_back(f);
    }
    graphs_.push_back(std::move(state));
  }
  set_threads_ = module_.GetKernel(kSetThreadsSymbol);
  SetThreads();
}

Executor::~Executor() = default;

void Executor::SetThreads() {
  codegen::PackedValue arg;
  arg.i = threads_;
  set_threads_(&arg, 1);
}

std::vector<InputInfo> Executor::inputs() const {
  std::vector<InputInfo> infos;
  for (int64_t id : artifact_.graph.inputs) {
    const GraphValue& v = artifact_.graph.values[id];
    infos.push_back({v.name, v.dtype, v.shape});
  }
  return infos;
}

Executor::Dispatch& Executor::GetDispatch(const std::vector<std::vector<int64_t>>& input_shapes) {
  auto found = dispatch_.find(input_shapes);
  if (found != dispatch_.end()) return *found->second;
  const Graph& fallback = artifact_.graph;
  DimEnv env = BindInputDims(fallback, input_shapes);
  auto d = std::make_unique<Dispatch>();
  d->choice.dims = env;
  d->run_shapes = input_shapes;
  const Manifest& m = artifact_.manifest;
  double best_volume = 0;
  for (size_t b = 0; b < m.buckets.size(); ++b) {
    bool exact = true, fits = true;
    double volume = 1;
    for (const auto& [dim, value] : m.buckets[b].dims) {
      int64_t actual = env.at(dim);
      volume *= static_cast<double>(value);
      if (value == actual) continue;
      exact = false;
      fits =
          fits && value > actual &&
          std::find(m.paddable_dims.begin(), m.paddable_dims.end(), dim) != m.paddable_dims.end();
    }
    if (exact) {
      d->choice.how = GraphChoice::How::kExact;
      d->choice.bucket = static_cast<int64_t>(b);
      break;
    }
    if (fits && (d->choice.bucket < 0 || volume < best_volume)) {
      d->choice.how = GraphChoice::How::kPadded;
      d->choice.bucket = static_cast<int64_t>(b);
      best_volume = volume;
    }
  }
  if (d->choice.how == GraphChoice::How::kPadded) {
    const std::map<std::string, int64_t>& to = m.buckets[d->choice.bucket].dims;
    auto padded = [&](const GraphValue& v, std::vector<int64_t> shape) {
      for (size_t a = 0; a < v.shape.size(); ++a) {
        if (v.shape[a].op != DimExpr::Op::kVar) continue;
        auto it = to.find(v.shape[a].var);
        if (it != to.end()) shape[a] = it->second;
      }
      return shape;
    };
    for (size_t i = 0; i < fallback.inputs.size(); ++i) {
      d->run_shapes[i] = padded(fallback.values[fallback.inputs[i]], input_shapes[i]);
      d->padded_inputs.emplace_back(fallback.values[fallback.inputs[i]].dtype, d->run_shapes[i]);
    }
    const Graph& bucket = GraphOf(d->choice);
    DimEnv bucket_env = BindInputDims(bucket, d->run_shapes);
    for (size_t o = 0; o < fallback.outputs.size(); ++o) {
      const GraphValue& v = fallback.values[fallback.outputs[o]];
      std::vector<int64_t> shape;
      for (const DimExpr& e : v.shape) shape.push_back(EvaluateDim(e, env));
      d->output_shapes.push_back(shape);
      std::vector<int64_t> big;
      for (const DimExpr& e : bucket.values[bucket.outputs[o]].shape) {
        big.push_back(EvaluateDim(e, bucket_env));
      }
      d->padded_outputs.emplace_back(v.dtype, big);
    }
  }
  return *dispatch_.emplace(input_shapes, std::move(d)).first->second;
}

const GraphChoice& Executor::Choose(const std::vector<std::vector<int64_t>>& input_shapes) {
  return GetDispatch(input_shapes).choice;
}

const Graph& Executor::GraphOf(const GraphChoice& choice) const {
  return *graphs_.at(static_cast<size_t>(choice.bucket + 1))->graph;
}

Executor::ConcretePlan& Executor::GetPlan(GraphState& state,
                                          const std::vector<std::vector<int64_t>>& input_shapes) {
  auto found = state.plans.find(input_shapes);
  if (found != state.plans.end()) return *found->second;
  const Graph& g = *state.graph;
  DimEnv env = BindInputDims(g, input_shapes);

  auto plan = std::make_unique<ConcretePlan>();
  size_t n = g.values.size();
  plan->shapes.resize(n);
  plan->nbytes.resize(n);
  plan->root.resize(n);
  plan->arena_offset.assign(n, -1);
  plan->direct_output.assign(n, false);
  for (size_t i = 0; i < n; ++i) {
    const GraphValue& v = g.values[i];
    uint64_t bytes = v.dtype.bytes();
    for (const DimExpr& d : v.shape) {
      int64_t extent = EvaluateDim(d, env);
      KILN_CHECK(extent >= 0, ErrorKind::kRuntime,
                 "value " + v.name + ": dim " + d.ToString() + " = " + std::to_string(extent));
      plan->shapes[i].push_back(extent);
      KILN_CHECK(!__builtin_mul_overflow(bytes, static_cast<uint64_t>(extent), &bytes) &&
                     bytes <= kMaxTensorBytes,
                 ErrorKind::kRuntime,
                 "value " + v.name + " would need more than 2^40 bytes with these input shapes");
    }
    plan->nbytes[i] = bytes;
    plan->root[i] = v.kind == ValueKind::kView ? plan->root[v.source] : static_cast<int64_t>(i);
    if (v.kind == ValueKind::kView && !v.check.empty()) {
      KILN_CHECK(plan->shapes[i] == plan->shapes[v.source], ErrorKind::kRuntime,
                 v.check + ": expected " + ShapeString(plan->shapes[i]) + ", got " +
                     ShapeString(plan->shapes[v.source]));
    }
    if (v.kind == ValueKind::kView) {
      KILN_CHECK(bytes == plan->nbytes[v.source], ErrorKind::kRuntime,
                 "view " + v.name + " " + ShapeString(plan->shapes[i]) + " of " +
                     g.values[v.source].name + " " + ShapeString(plan->shapes[v.source]) +
                     ": the element counts differ");
      ++plan->stats.views;
    }
    if (v.kind == ValueKind::kConstant) plan->stats.constant_bytes += bytes;
  }
  for (int64_t id : g.outputs) {
    if (g.values[id].kind == ValueKind::kKernelOutput) plan->direct_output[id] = true;
  }
  // Lifetimes of the arena's values: from the step that writes one to the last that reads it
  // or a view of it; one read by the returned value (a view of it) lives to the end.
  std::vector<int64_t> first(n, -1), last(n, -1);
  for (size_t s = 0; s < g.steps.size(); ++s) {
    for (int64_t id : g.steps[s].outputs) first[id] = last[id] = static_cast<int64_t>(s);
    for (const StepArg& a : g.steps[s].args) {
      if (a.value >= 0) last[plan->root[a.value]] = static_cast<int64_t>(s);
    }
  }
  for (int64_t id : g.outputs) last[plan->root[id]] = static_cast<int64_t>(g.steps.size());
  std::vector<BufferRequest> requests;
  std::vector<int64_t> requested;
  for (size_t i = 0; i < n; ++i) {
    if (g.values[i].kind != ValueKind::kKernelOutput || plan->direct_output[i]) continue;
    requests.push_back({plan->nbytes[i], first[i], std::max(first[i], last[i])});
    requested.push_back(static_cast<int64_t>(i));
  }
  MemoryPlan memory = PlanMemory(requests);
  for (size_t r = 0; r < requested.size(); ++r) {
    plan->arena_offset[requested[r]] = static_cast<int64_t>(memory.offsets[r]);
  }
  plan->arena = ir::HostTensor(ir::DataType::UInt(8), {static_cast<int64_t>(memory.arena_bytes)});
  plan->stats.arena_bytes = memory.arena_bytes;
  plan->stats.unshared_bytes = memory.unshared_bytes;
  plan->stats.lower_bound_bytes = memory.lower_bound_bytes;
  std::vector<bool> counted(n, false);
  for (int64_t id : g.outputs) {
    if (!counted[id]) plan->stats.output_bytes += plan->nbytes[id];
    counted[id] = true;
  }
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const Step& step = g.steps[s];
    const GraphKernel& kernel = g.kernels[step.kernel];
    if (state.libraries[step.kernel] != nullptr) {
      std::vector<std::vector<int64_t>> shapes;
      for (const codegen::ArgSlot& slot : kernel.slots) {
        shapes.push_back(plan->shapes[step.args[slot.param_index].value]);
      }
      state.libraries[step.kernel]->check_shapes(
          kernel.attrs, shapes,
          kernel.library + " (task " + kernel.task + ", step " + std::to_string(s) + ")");
    }
    std::vector<codegen::PackedValue> args(kernel.slots.size());
    for (size_t k = 0; k < kernel.slots.size(); ++k) {
      const codegen::ArgSlot& slot = kernel.slots[k];
      const StepArg& arg = step.args[slot.param_index];
      if (slot.kind == codegen::SlotKind::kScalarInt) {
        args[k].i = EvaluateDim(arg.scalar, env);
      } else if (slot.kind == codegen::SlotKind::kShapeVar) {
        args[k].i = plan->shapes[arg.value][slot.dim];
      } else {
        args[k].ptr = nullptr;
      }
    }
    plan->args.push_back(std::move(args));
  }
  plan->stats.kernel_calls = static_cast<int64_t>(g.steps.size());
  return *state.plans.emplace(input_shapes, std::move(plan)).first->second;
}

PlanStats Executor::Plan(const std::vector<std::vector<int64_t>>& input_shapes) {
  Dispatch& d = GetDispatch(input_shapes);
  return GetPlan(*graphs_[d.choice.bucket + 1], d.run_shapes).stats;
}

std::vector<ir::HostTensor> Executor::Run(const std::vector<ir::HostTensor>& inputs) {
  return Run(inputs, nullptr);
}

std::vector<ir::HostTensor> Executor::Run(const std::vector<ir::HostTensor>& inputs,
                                          std::vector<double>* step_seconds) {
  return RunSteps(inputs, step_seconds, nullptr);
}

void Executor::RunInto(const std::vector<ir::HostTensor>& inputs,
                       std::vector<ir::HostTensor>& outputs) {
  RunSteps(inputs, nullptr, &outputs);
}

std::vector<ir::HostTensor> Executor::RunSteps(const std::vector<ir::HostTensor>& inputs,
                                               std::vector<double>* step_seconds,
                                               std::vector<ir::HostTensor>* into) {
  const Graph& fallback = artifact_.graph;
  KILN_CHECK(inputs.size() == fallback.inputs.size(), ErrorKind::kRuntime,
             "the model takes " + std::to_string(fallback.inputs.size()) + " inputs, " +
                 std::to_string(inputs.size()) + " given");
  std::vector<std::vector<int64_t>> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const GraphValue& v = fallback.values[fallback.inputs[i]];
    KILN_CHECK(inputs[i].dtype() == v.dtype, ErrorKind::kRuntime,
               "input " + v.name + " is " + inputs[i].dtype().ToString() + ", the model takes " +
                   v.dtype.ToString());
    shapes.push_back(inputs[i].shape());
  }
  Dispatch& d = GetDispatch(shapes);
  GraphState& graph = *graphs_[d.choice.bucket + 1];
  if (d.choice.how != GraphChoice::How::kPadded) return RunGraph(graph, inputs, step_seconds, into);
  for (size_t i = 0; i < inputs.size(); ++i) CopyCommonRegion(inputs[i], d.padded_inputs[i]);
  RunGraph(graph, d.padded_inputs, step_seconds, &d.padded_outputs);
  if (into != nullptr) {
    KILN_CHECK(into->size() == d.output_shapes.size(), ErrorKind::kRuntime,
               "the model has " + std::to_string(d.output_shapes.size()) + " outputs, " +
                   std::to_string(into->size()) + " tensors given to run into");
    for (size_t o = 0; o < into->size(); ++o) {
      ir::HostTensor& t = (*into)[o];
      KILN_CHECK(t.dtype() == d.padded_outputs[o].dtype() && t.shape() == d.output_shapes[o],
                 ErrorKind::kRuntime,
                 "output " + std::to_string(o) + " is " + d.padded_outputs[o].dtype().ToString() +
                     ShapeString(d.output_shapes[o]) + ", the tensor given to run into " +
                     t.Describe());
      CopyCommonRegion(d.padded_outputs[o], t);
    }
    return {};
  }
  std::vector<ir::HostTensor> outputs;
  for (size_t o = 0; o < d.output_shapes.size(); ++o) {
    outputs.emplace_back(d.padded_outputs[o].dtype(), d.output_shapes[o]);
    CopyCommonRegion(d.padded_outputs[o], outputs.back());
  }
  return outputs;
}

std::vector<ir::HostTensor> Executor::RunGraph(GraphState& state,
                                               const std::vector<ir::HostTensor>& inputs,
                                               std::vector<double>* step_seconds,
                                               std::vector<ir::HostTensor>* into) {
  const Graph& g = *state.graph;
  std::vector<std::vector<int64_t>> shapes;
  for (const ir::HostTensor& t : inputs) shapes.push_back(t.shape());
  ConcretePlan& plan = GetPlan(state, shapes);
  SetThreads();

  size_t n = g.values.size();
  // With `into`: where each output value is written (its first position among the outputs).
  std::vector<ir::HostTensor*> target(n, nullptr);
  if (into != nullptr) {
    KILN_CHECK(into->size() == g.outputs.size(), ErrorKind::kRuntime,
               "the model has " + std::to_string(g.outputs.size()) + " outputs, " +
                   std::to_string(into->size()) + " tensors given to run into");
    for (size_t p = 0; p < g.outputs.size(); ++p) {
      int64_t id = g.outputs[p];
      ir::HostTensor& t = (*into)[p];
      const GraphValue& v = g.values[id];
      if (t.dtype() != v.dtype || t.shape() != plan.shapes[id]) {
        throw Error(ErrorKind::kRuntime, "output " + std::to_string(p) + " (" + v.name + ") is " +
                                             v.dtype.ToString() + ShapeString(plan.shapes[id]) +
                                             ", the tensor given to run into " + t.Describe());
      }
      if (target[id] == nullptr) target[id] = &t;
    }
  }
  std::vector<void*> data(n, nullptr);
  std::vector<ir::HostTensor> direct(n);
  auto* arena = static_cast<uint8_t*>(plan.arena.data());
  auto* constants = static_cast<uint8_t*>(artifact_.constants.data());
  for (size_t i = 0; i < n; ++i) {
    const GraphValue& v = g.values[i];
    switch (v.kind) {
      case ValueKind::kInput:
        data[i] = const_cast<void*>(inputs[v.input_index].data());
        break;
      case ValueKind::kConstant:
        data[i] = constants + g.constants[v.constant_index].offset;
        break;
      case ValueKind::kKernelOutput:
        if (plan.direct_output[i] && target[i] != nullptr) {
          data[i] = target[i]->data();
        } else if (plan.direct_output[i]) {
          direct[i] = ir::HostTensor(v.dtype, plan.shapes[i]);
          data[i] = direct[i].data();
        } else {
          data[i] = arena + plan.arena_offset[i];
        }
        break;
      case ValueKind::kView:
        data[i] = data[v.source];
        break;
    }
  }
  if (step_seconds != nullptr) step_seconds->assign(g.steps.size(), 0.0);
  std::vector<LibraryTensor> library_args;
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const Step& step = g.steps[s];
    const GraphKernel& kernel = g.kernels[step.kernel];
    std::vector<codegen::PackedValue>& args = plan.args[s];
    for (size_t k = 0; k < kernel.slots.size(); ++k) {
      if (kernel.slots[k].kind == codegen::SlotKind::kBufferData) {
        args[k].ptr = data[step.args[kernel.slots[k].param_index].value];
      }
    }
    auto start =
        step_seconds ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point();
    if (const LibraryFunction* f = state.libraries[step.kernel]) {
      library_args.clear();
      for (size_t k = 0; k < kernel.slots.size(); ++k) {
        int64_t id = step.args[kernel.slots[k].param_index].value;
        library_args.push_back({args[k].ptr, g.values[id].dtype, plan.shapes[id]});
      }
      try {
        f->run(kernel.attrs, library_args, threads_);
      } catch (const Error& e) {
        throw Error(ErrorKind::kRuntime, "library function " + kernel.library + " (task " +
                                             kernel.task + ", step " + std::to_string(s) +
                                             "): " + e.what());
      }
    } else {
      int32_t status = state.kernels[step.kernel](args.data(), static_cast<int32_t>(args.size()));
      KILN_CHECK(status == 0, ErrorKind::kRuntime,
                 "kernel " + kernel.symbol + " (task " + kernel.task + ", step " +
                     std::to_string(s) + ") failed with status " + std::to_string(status));
    }
    if (step_seconds != nullptr) {
      (*step_seconds)[s] =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    }
  }
  if (into != nullptr) {
    for (size_t p = 0; p < g.outputs.size(); ++p) {
      int64_t id = g.outputs[p];
      void* to = (*into)[p].data();
      if (to != data[id] && plan.nbytes[id] > 0) std::memcpy(to, data[id], plan.nbytes[id]);
    }
    return {};
  }
  std::vector<ir::HostTensor> outputs;
  for (int64_t id : g.outputs) {
    if (plan.direct_output[id]) {
      outputs.push_back(direct[id]);
      continue;
    }
    ir::HostTensor copy(g.values[id].dtype, plan.shapes[id]);
    if (plan.nbytes[id] > 0) std::memcpy(copy.data(), data[id], plan.nbytes[id]);
    outputs.push_back(std::move(copy));
  }
  return outputs;
}

}  // namespace kiln::runtime::model
