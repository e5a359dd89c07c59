// ReferenceStore: memory and disk caches, and the two ways of making a reference (the
// interpreter on the whole workload; a trusted build checked by the interpreter on a window).
#include "runtime/reference_store.h"

#include <cstdio>
#include <filesystem>
#include <set>

#include "codegen/target.h"
#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/interpreter/random_inputs.h"
#include "ir/structural.h"
#include "runtime/interpreter_cost.h"
#include "runtime/kernel_source.h"
#include "runtime/measure_result.h"
#include "runtime/output_window.h"
#include "runtime/sandbox_client.h"
#include "support/error.h"
#include "support/logging.h"
#include "support/stable_hash.h"

namespace kiln::runtime {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kReferenceVersion = "kiln-reference-v1";

std::string Hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(v));
  return buf;
}

// "12.3 M stores".
std::string CostText(int64_t stores) {
  char buf[64];
  if (stores >= 1'000'000) {
    std::snprintf(buf, sizeof buf, "%.1f M stores", static_cast<double>(stores) / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%lld stores", static_cast<long long>(stores));
  }
  return buf;
}

// The parameters whose buffers the function stores to.
std::vector<bool> WrittenParams(const ir::PrimFunc& f) {
  class Stores : public ir::IRVisitor {
   public:
    void VisitStmt_(const ir::BufferStoreNode* op) override {
      buffers.insert(op->buffer->data.get());
      IRVisitor::VisitStmt_(op);
    }
    std::set<const ir::VarNode*> buffers;
  } stores;
  stores.VisitStmt(f->body);
  std::vector<bool> written;
  for (const ir::Var& param : f->params) {
    auto buffer = f->BufferOf(param);
    written.push_back(buffer && stores.buffers.count((*buffer)->data.get()) > 0);
  }
  return written;
}

std::string ParamName(const ir::PrimFunc& f, size_t i) {
  auto buffer = f->BufferOf(f->params[i]);
  return buffer ? (*buffer)->name : f->params[i].name();
}

}  // namespace

uint64_t ReferenceKey(const ir::PrimFunc& workload, const std::map<std::string, int64_t>& dims,
                      uint64_t seed) {
  StableHasher h;
  h.String(kReferenceVersion);
  h.Int(static_cast<int64_t>(ir::StructuralHash(workload)));
  h.Int(static_cast<int64_t>(dims.size()));
  for (const auto& [name, value] : dims) {
    h.String(name);
    h.Int(value);
  }
  h.Int(static_cast<int64_t>(seed));
  return h.value();
}

ReferenceStore::ReferenceStore(ReferenceOptions options) : options_(std::move(options)) {
  if (options_.cache_dir.empty()) options_.cache_dir = DefaultCacheDir();
  if (options_.build.cache_dir.empty()) options_.build.cache_dir = options_.cache_dir;
}

std::shared_ptr<const Reference> ReferenceStore::Get(const ir::PrimFunc& workload,
                                                     const std::map<std::string, int64_t>& dims,
                                                     uint64_t seed) {
  uint64_t key = ReferenceKey(workload, dims, seed);
  std::promise<std::shared_ptr<const Reference>> promise;
  std::shared_future<std::shared_ptr<const Reference>> future;
  bool owner = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = references_.find(key);
    if (it == references_.end()) {
      future = promise.get_future().share();
      references_[key] = future;
      owner = true;
    } else {
      future = it->second;
    }
  }
  if (!owner) return future.get();
  try {
    std::shared_ptr<const Reference> reference = Compute(workload, dims, seed, key);
    promise.set_value(reference);
    return reference;
  } catch (...) {
    promise.set_exception(std::current_exception());
    // A later call tries again (the failure may have been the machine's, not the workload's).
    std::lock_guard<std::mutex> lock(mutex_);
    references_.erase(key);
    throw;
  }
}

std::shared_ptr<const Reference> ReferenceStore::Compute(const ir::PrimFunc& workload,
                                                         const std::map<std::string, int64_t>& dims,
                                                         uint64_t seed, uint64_t key) {
  std::string hash = ir::StructuralHashHex(workload);
  std::string directory = (fs::path(options_.cache_dir) / "references" / Hex(key)).string();
  std::error_code ec;
  if (fs::exists(fs::path(directory) / "meta.json", ec)) {
    try {
      std::shared_ptr<Reference> loaded = LoadReference(directory);
      if (loaded->workload_hash == hash && loaded->seed == seed &&
          loaded->params.size() == workload->params.size()) {
        loaded->key = key;
        return loaded;
      }
      KILN_LOG_WARN("reference {} is for another workload; computing it again", directory);
    } catch (const Error& e) {
      KILN_LOG_WARN("reference {} is unusable ({}); computing it again", directory, e.what());
    }
    fs::remove_all(directory, ec);
  }

  const std::string where = "workload " + workload->name + " (" + hash + ")";
  std::vector<ir::ArgValue> args = ir::MakeRandomArguments(workload, dims, seed);
  std::vector<bool> written = WrittenParams(workload);
  Reference reference;
  reference.key = key;
  reference.workload_hash = hash;
  reference.seed = seed;
  for (size_t i = 0; i < args.size(); ++i) {
    ReferenceParam p;
    p.name = ParamName(workload, i);
    p.written = written[i];
    if (const auto* t = std::get_if<ir::HostTensor>(&args[i])) {
      p.input = ArgSpec::Tensor(t->Clone());
    } else if (const auto* v = std::get_if<int64_t>(&args[i])) {
      p.input = ArgSpec::Int(*v);
    } else {
      p.input = ArgSpec::Float(std::get<double>(args[i]));
    }
    reference.params.push_back(std::move(p));
  }

  std::optional<int64_t> cost = EstimateInterpreterCost(workload, dims);
  auto interpret_all = [&](const std::string& note) {
    ir::Interpret(workload, args);
    for (size_t i = 0; i < args.size(); ++i) {
      if (const auto* t = std::get_if<ir::HostTensor>(&args[i])) reference.params[i].expected = *t;
    }
    reference.source = "interpreter, full (" + note + ")";
  };
  std::optional<OutputWindow> window;
  if (cost && *cost > options_.interpreter_budget) {
    window = PlanOutputWindow(workload, dims, options_.interpreter_budget, seed);
  }
  if (!cost) {
    KILN_LOG_WARN("{}: cannot estimate the interpreter's cost; running it on the whole workload",
                  where);
    interpret_all("cost unknown");
  } else if (*cost <= options_.interpreter_budget) {
    interpret_all(CostText(*cost));
  } else if (!window) {
    KILN_CHECK(
        *cost <= options_.interpreter_limit, ErrorKind::kUnsupported,
        where + ": the reference interpreter would run " + CostText(*cost) + " (limit " +
            CostText(options_.interpreter_limit) +
            ") and no output of it can be checked on a window (no output written by a single "
            "block indexed directly by one of its loops)");
    KILN_LOG_WARN("{}: no output window; interpreting all {} once", where, CostText(*cost));
    interpret_all(CostText(*cost) + ", no window possible");
  } else {
    KILN_CHECK(window->cost <= options_.interpreter_limit, ErrorKind::kUnsupported,
               where + ": even the narrowest output window (" + window->description + ") needs " +
                   CostText(window->cost) + " of the reference interpreter (limit " +
                   CostText(options_.interpreter_limit) + ")");
    // The trusted build: the unscheduled workload through the plain C path.
    std::unique_ptr<codegen::CodegenTarget> target = codegen::CreateTarget("c");
    GeneratedKernel kernel;
    try {
      kernel = GenerateKernel(workload, *target, KernelSymbol(workload));
    } catch (const Error& e) {
      throw Error(e.kind(), where + ": cannot generate the trusted reference build: " + e.what());
    }
    BuildResult built = BuildCSource(kernel.source.code, options_.build);
    KILN_CHECK(built.ok, ErrorKind::kRuntime,
               where + ": the trusted reference build failed: " + built.error);
    SandboxOptions sandbox;
    sandbox.sandbox_path = options_.sandbox_path;
    sandbox.time_limit_s = options_.run_time_limit_s;
    sandbox.extra_env = options_.extra_env;
    SandboxRequest request;
    request.phase = SandboxPhase::kRunOnce;
    request.library_path = built.library_path;
    request.build = options_.build;
    request.signature = kernel.source.signature;
    for (const ReferenceParam& p : reference.params) request.args.push_back(p.input);
    SandboxOutcome run = SandboxClient(sandbox).Run(std::move(request));
    KILN_CHECK(run.measure.ok(), ErrorKind::kRuntime,
               where + ": the trusted reference build " +
                   std::string(MeasureErrorKindName(run.measure.error_kind)) + ": " +
                   run.measure.message);

    // The interpreter on the window, on the same inputs (`args` are still untouched).
    ir::Interpret(window->windowed, args);
    MeasureResult check;
    for (const ParamRegion& region : window->regions) {
      const auto& interpreted = std::get<ir::HostTensor>(args[region.param_index]);
      auto it = run.outputs.find(region.param_index);
      KILN_CHECK(it != run.outputs.end(), ErrorKind::kInternal,
                 where + ": the trusted build returned no value for " + region.name);
      ir::HostTensor want = ExtractRegion(interpreted, region.ranges);
      CheckOutputs({want}, {ExtractRegion(it->second, region.ranges)}, check, std::nullopt,
                   {DescribeRegion(region)});
      KILN_CHECK(check.ok(), ErrorKind::kInternal,
                 where +
                     ": the plain C build of the unscheduled workload disagrees with the "
                     "reference interpreter on " +
                     window->description + ": " + check.message);
    }
    for (size_t i = 0; i < reference.params.size(); ++i) {
      ReferenceParam& p = reference.params[i];
      if (p.input.kind != ArgSpec::Kind::kTensor) continue;
      auto it = run.outputs.find(static_cast<int>(i));
      KILN_CHECK(it != run.outputs.end(), ErrorKind::kInternal,
                 where + ": the trusted build returned no value for " + p.name);
      if (!p.written) {
        // An input must come back unchanged.
        CheckOutputs({p.input.tensor}, {it->second}, check, ir::Tolerance{0, 0}, {p.name});
        KILN_CHECK(check.ok(), ErrorKind::kInternal,
                   where + ": the trusted build changed its input: " + check.message);
      }
      p.expected = p.written ? it->second : p.input.tensor;
    }
    reference.source =
        "trusted build (unscheduled workload, plain C), verified against the "
        "interpreter on " +
        window->description + " (" + CostText(window->cost) + " of " + CostText(*cost) + ")";
  }

  SaveReference(reference, directory);
  // The saved form (inputs as files) is what kernels are run on from now on.
  std::shared_ptr<Reference> saved = LoadReference(directory);
  saved->key = key;
  saved->from_disk = false;
  for (size_t i = 0; i < saved->params.size(); ++i)
    saved->params[i].name = reference.params[i].name;
  return saved;
}

std::string ParameterMismatch(const ir::PrimFunc& scheduled, const Reference& reference,
                              const std::map<std::string, int64_t>& dims) {
  if (scheduled->params.size() != reference.params.size()) {
    return "the scheduled function has " + std::to_string(scheduled->params.size()) +
           " parameters; the workload has " + std::to_string(reference.params.size());
  }
  ir::arith::Analyzer analyzer;
  BindDims(scheduled, dims, analyzer);
  for (size_t i = 0; i < scheduled->params.size(); ++i) {
    const ReferenceParam& want = reference.params[i];
    auto buffer = scheduled->BufferOf(scheduled->params[i]);
    std::string where = "parameter " + std::to_string(i) + " (" + want.name + ")";
    bool want_tensor = want.input.kind == ArgSpec::Kind::kTensorFile;
    if (!buffer) {
      if (want_tensor) return where + ": the scheduled function takes a scalar, not a tensor";
      continue;
    }
    if (!want_tensor) return where + ": the scheduled function takes a tensor, not a scalar";
    std::vector<int64_t> shape;
    for (const ir::Expr& extent : (*buffer)->shape) {
      auto value = ir::AsConstInt(analyzer.Simplify(extent));
      if (!value) return where + ": the scheduled function's shape is not computable";
      shape.push_back(*value);
    }
    if ((*buffer)->dtype != want.input.dtype || shape != want.input.shape) {
      return where + ": the scheduled function takes " + (*buffer)->dtype.ToString() +
             ShapeText(shape) + "; the workload takes " + want.input.dtype.ToString() +
             ShapeText(want.input.shape);
    }
  }
  return "";
}

}  // namespace kiln::runtime
