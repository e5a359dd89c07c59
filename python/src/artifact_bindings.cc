// kiln.compile, kiln.load and kiln.Artifact: `tune compile`, and `tune infer` / `tune bench`
// without files. compile specialises the model as `tune compile` does (the symbolic fallback,
// then one graph per bucket or the dims bound) and builds it with the best records of the
// database (compiler/compiler.h); the artifact is loaded for this CPU as the CLI loads one
// (cli/commands/model_runner.h). A call takes numpy arrays (positionally or by input name),
// checks their dtypes and shapes as the executor does and with its messages (kiln.ShapeError),
// runs the model without the GIL, and returns a dict of numpy arrays that own the executor's
// output buffers (no copy).
#include <nanobind/nanobind.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>
#include <stdlib.h>

#include <filesystem>
#include <memory>
#include <mutex>
#include <set>

#include "cli/commands/embedded_service.h"
#include "cli/commands/model_runner.h"
#include "compiler/compile_variants.h"
#include "compiler/compiler.h"
#include "ir/model/model_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "python/src/arrays.h"
#include "python/src/bindings.h"
#include "python/src/database.h"
#include "python/src/model.h"
#include "runtime/measurer.h"
#include "runtime/model/library_function.h"
#include "runtime/timing.h"
#include "support/error.h"

namespace nb = nanobind;

namespace kiln::python {
namespace {

// A loaded model artifact: kiln.Artifact.
struct PyArtifact {
  std::string path;
  bool owns_path = false;  // a folder compile made in the temporary directory, removed with it
  std::unique_ptr<runtime::model::Executor> executor;
  std::vector<runtime::model::InputInfo> inputs;
  std::vector<std::string> output_names;
  nb::object report = nb::none();          // compile's report, when compile made it
  std::mutex run;                          // Executor::Run is not reentrant
  std::vector<std::string> copied_inputs;  // of the last call: inputs not read in place

  ~PyArtifact() {
    executor.reset();
    if (owns_path) {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  }
};

void Open(PyArtifact& art, const std::string& path, int threads) {
  art.path = path;
  art.executor = cli::LoadModelArtifact(path, threads);
  art.inputs = art.executor->inputs();
  const runtime::model::Graph& graph = art.executor->artifact().graph;
  std::set<std::string> seen;
  for (size_t i = 0; i < graph.outputs.size(); ++i) {
    std::string name = graph.values[graph.outputs[i]].name;
    if (name.empty() || !seen.insert(name).second) name = "output_" + std::to_string(i);
    art.output_names.push_back(name);
  }
}

std::string InputNames(const PyArtifact& art) {
  std::string names;
  for (const auto& info : art.inputs) names += (names.empty() ? "" : ", ") + info.name;
  return names;
}

// The model's inputs from positional arguments, then keyword arguments by name; the keywords
// in `skip` are the caller's own options unless the model has an input of that name. The
// names of the inputs that could not be read in place go to `copied`.
std::vector<ir::HostTensor> GatherInputs(const PyArtifact& art, nb::args args, nb::kwargs kwargs,
                                         std::vector<std::string>& copied,
                                         const std::set<std::string>& skip = {}) {
  KILN_CHECK(args.size() <= art.inputs.size(), ErrorKind::kParse,
             std::to_string(args.size()) + " positional inputs: the model takes " +
                 std::to_string(art.inputs.size()) + " (" + InputNames(art) + ")");
  std::vector<nb::handle> values(art.inputs.size());
  for (size_t i = 0; i < args.size(); ++i) values[i] = args[i];
  for (auto [key, value] : kwargs) {
    std::string name = nb::cast<std::string>(key);
    size_t index = art.inputs.size();
    for (size_t i = 0; i < art.inputs.size(); ++i) {
      if (art.inputs[i].name == name) index = i;
    }
    if (index == art.inputs.size() && skip.count(name)) continue;
    KILN_CHECK(index < art.inputs.size(), ErrorKind::kParse,
               "input " + name + ": the model has no input " + name +
                   " (its inputs: " + InputNames(art) + ")");
    KILN_CHECK(!values[index].is_valid(), ErrorKind::kParse,
               "input " + name + " given twice (by position and by name)");
    values[index] = value;
  }
  std::vector<ir::HostTensor> tensors;
  tensors.reserve(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    const runtime::model::InputInfo& info = art.inputs[i];
    KILN_CHECK(values[i].is_valid(), ErrorKind::kParse,
               "no value for the model's input " + info.name + " (" + info.dtype.ToString() + ")");
    InputArray array = AsInputArray(values[i], "input " + info.name);
    std::optional<ir::DataType> dtype = DataTypeOf(array);
    // The executor's message for an input of another dtype (runtime/model/executor.cc).
    KILN_CHECK(dtype && *dtype == info.dtype, ErrorKind::kType,
               "input " + info.name + " is " + DtypeName(values[i], array) + ", the model takes " +
                   info.dtype.ToString());
    bool was_copied = false;
    tensors.push_back(InputTensor(array, info.dtype, &was_copied));
    if (was_copied) copied.push_back(info.name);
  }
  return tensors;
}

// Picks the graph for these inputs: a shape that does not fit is the caller's error
// (kiln.ShapeError), with the executor's message.
void CheckShapes(PyArtifact& art, const std::vector<ir::HostTensor>& inputs) {
  std::vector<std::vector<int64_t>> shapes;
  shapes.reserve(inputs.size());
  for (const ir::HostTensor& t : inputs) shapes.push_back(t.shape());
  try {
    art.executor->Choose(shapes);
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kRuntime) throw Error(ErrorKind::kType, e.what());
    throw;
  }
}

nb::dict Call(PyArtifact& art, nb::args args, nb::kwargs kwargs) {
  std::vector<std::string> copied;
  std::vector<ir::HostTensor> inputs = GatherInputs(art, args, kwargs, copied);
  std::vector<ir::HostTensor> outputs;
  {
    nb::gil_scoped_release release;
    std::lock_guard lock(art.run);
    art.copied_inputs = std::move(copied);
    CheckShapes(art, inputs);
    outputs = art.executor->Run(inputs);
  }
  nb::dict out;
  for (size_t i = 0; i < outputs.size(); ++i) {
    out[nb::str(art.output_names[i].c_str())] = ToNumpy(outputs[i]);
  }
  return out;
}

nb::dict Benchmark(PyArtifact& art, nb::args args, nb::kwargs kwargs) {
  auto option = [&](const char* name, double fallback) {
    bool is_input = false;
    for (const auto& info : art.inputs) is_input = is_input || info.name == name;
    if (is_input || !kwargs.contains(name)) return fallback;
    return nb::cast<double>(kwargs[name]);
  };
  runtime::TimingConfig timing;
  timing.number = 1;
  timing.repeat = static_cast<int>(option("repeat", 10));
  timing.warmup = static_cast<int>(option("warmup", 1));
  timing.min_repeat_ms = option("min_repeat_ms", 100);
  KILN_CHECK(timing.repeat > 0, ErrorKind::kParse, "repeat: must be positive");
  KILN_CHECK(timing.warmup >= 0 && timing.min_repeat_ms >= 0, ErrorKind::kParse,
             "warmup and min_repeat_ms: must not be negative");
  std::vector<std::string> copied;
  std::vector<ir::HostTensor> inputs =
      GatherInputs(art, args, kwargs, copied, {"repeat", "warmup", "min_repeat_ms"});
  runtime::TimingResult result;
  std::string graph;
  {
    nb::gil_scoped_release release;
    std::lock_guard lock(art.run);
    CheckShapes(art, inputs);
    result = runtime::TimeFunction([&] { art.executor->Run(inputs); }, timing);
    std::vector<std::vector<int64_t>> shapes;
    for (const ir::HostTensor& t : inputs) shapes.push_back(t.shape());
    graph = art.executor->Choose(shapes).Describe(art.executor->artifact().manifest);
  }
  double best = result.seconds_per_run.empty() ? 0 : result.seconds_per_run[0];
  nb::list repeats;
  for (double s : result.seconds_per_run) {
    best = std::min(best, s);
    repeats.append(s);
  }
  nb::dict out;
  out["median_s"] = result.median_seconds;
  out["best_s"] = best;
  out["repeats_s"] = repeats;
  out["runs_per_repeat"] = result.number;
  out["threads"] = art.executor->threads();
  out["graph"] = graph;
  return out;
}

struct CompileArgs {
  std::string target = "llvm";
  std::optional<std::map<std::string, int64_t>> dims;
  std::optional<std::map<std::string, std::vector<int64_t>>> buckets;
  int64_t default_dim = 128;
  bool symbolic = false;
  std::string library = "auto";
  std::string library_function = "dnnl_sgemm";
  std::string device_key;
  std::string cache_dir;
  int build_jobs = 0;
  int threads = 0;
  bool untuned_check = true;
  bool default_schedule = true;
};

// compile's database: a kiln.Database, a path, None (the default one when it exists) or False
// (none: every kernel untuned).
struct CompileDatabase {
  std::unique_ptr<database::SqliteDatabase> owned;
  database::Database* db = nullptr;
  std::string path;
};

CompileDatabase OpenCompileDatabase(nb::handle database) {
  CompileDatabase out;
  if (nb::isinstance<nb::bool_>(database)) {
    KILN_CHECK(!nb::cast<bool>(database), ErrorKind::kParse,
               "database: a kiln.Database, a path, None or False expected");
    return out;
  }
  if (nb::isinstance<PyDatabase>(database)) {
    PyDatabase& d = nb::cast<PyDatabase&>(database);
    out.db = &d.Get();
    out.path = d.path;
    return out;
  }
  std::string path;
  if (database.is_none()) {
    path = cli::EmbeddedDatabasePath("");
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) return out;  // as tune compile: none yet, untuned
  } else if (nb::isinstance<nb::str>(database) || nb::hasattr(database, "__fspath__")) {
    path = nb::cast<std::string>(nb::str(database));
  } else {
    throw Error(ErrorKind::kParse, "database: a kiln.Database, a path, None or False expected");
  }
  try {
    out.owned = std::make_unique<database::SqliteDatabase>(
        path, database::SqliteDatabaseOptions{.create = false});
  } catch (const Error& e) {
    throw Error(e.kind(), std::string("database: ") + e.what());
  }
  out.db = out.owned.get();
  out.path = path;
  return out;
}

// The graphs `tune compile` builds (cli/commands/compile_command.cc): the model with only the
// bound dims as graph.json, then, when dims stay free and dims or buckets were given, the
// specialisations `tune run` tuned.
std::vector<compiler::CompileVariant> Variants(const Model& model, const CompileArgs& a,
                                               std::string& note) {
  std::map<std::string, int64_t> dims = a.dims.value_or(std::map<std::string, int64_t>{});
  ir::model::BucketSpec buckets;
  if (a.buckets) buckets = BucketSpecOf(*a.buckets);
  ir::model::ModelTaskOptions options;
  options.dims = dims;
  options.default_dim = a.default_dim;
  options.buckets = buckets;
  options.func = model.func;
  compiler::CompileVariantPlan plan =
      compiler::PlanCompileVariants(model.model_name, model.bytes, options, a.symbolic);
  if (plan.symbolic_only && !a.symbolic) {
    note =
        "compiled symbolic: one graph for every value, every kernel untuned; dims= or "
        "buckets= specialise it as tune did, so that its tuning records apply";
  } else if (!plan.defaulted.empty()) {
    note = "symbolic dims bound to " + plan.defaulted;
  }
  return std::move(plan.variants);
}

nb::list TaskList(const std::vector<compiler::CompiledTask>& tasks) {
  nb::list out;
  for (const compiler::CompiledTask& t : tasks) {
    nb::dict d;
    d["name"] = t.name;
    d["workload_hash"] = t.workload_hash;
    d["weight"] = t.weight;
    d["kind"] = t.kind;
    d["record"] = t.record_id ? nb::cast(*t.record_id) : nb::none();
    d["untuned"] = t.kind == "kernel" && !t.record_id;
    d["latency_s"] = t.latency_s ? nb::cast(*t.latency_s) : nb::none();
    d["impl"] = t.impl;
    d["default_schedule"] = t.default_schedule;
    d["note"] = t.note;
    out.append(d);
  }
  return out;
}

std::unique_ptr<PyArtifact> Compile(const Model& model, const CompileArgs& a, nb::handle database,
                                    const std::optional<std::string>& output) {
  model.RequireModel("compile");
  std::string device;
  try {
    device = runtime::DeviceKindOfTarget(a.target);
  } catch (const Error& e) {
    throw Error(e.kind(), std::string("target: ") + e.what());
  }
  KILN_CHECK(device == "cpu", ErrorKind::kUnsupported,
             "target " + a.target + ": compile builds for the CPU only");
  std::optional<compiler::LibraryPolicy> policy = compiler::ParseLibraryPolicy(a.library);
  KILN_CHECK(policy.has_value(), ErrorKind::kUnsupported,
             "library " + a.library + ": auto, never or always expected");
  KILN_CHECK(runtime::model::FindLibraryFunction(a.library_function) != nullptr,
             ErrorKind::kUnsupported,
             "library_function " + a.library_function + ": not a library function");
  CompileDatabase db = OpenCompileDatabase(database);
  auto art = std::make_unique<PyArtifact>();
  std::string dir;
  if (output) {
    dir = *output;
  } else {
    const char* tmp = std::getenv("TMPDIR");
    std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/kiln-model-XXXXXX";
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO,
               pattern + ": cannot make a temporary folder");
    dir = pattern;
    art->owns_path = true;
    art->path = dir;
  }
  std::string note;
  compiler::CompileReport report;
  {
    nb::gil_scoped_release release;
    std::vector<compiler::CompileVariant> variants = Variants(model, a, note);
    compiler::CompileOptions options;
    options.target = a.target;
    options.device_key = a.device_key;
    options.db = db.db;
    options.model = model.name;
    options.bound_dims = a.dims.value_or(std::map<std::string, int64_t>{});
    options.cache_dir = a.cache_dir;
    options.build_jobs = a.build_jobs;
    options.library = *policy;
    options.library_function = a.library_function;
    options.measure_threads = a.threads;
    options.keep_faster_untuned = a.untuned_check;
    options.default_schedules = a.default_schedule;
    report = compiler::CompileModel(variants, dir, options);
    Open(*art, dir, a.threads);
  }
  nb::dict r;
  r["artifact"] = report.artifact_dir;
  r["target"] = a.target;
  r["device_key"] = report.device_key;
  r["database"] = db.path.empty() ? nb::none() : nb::cast(db.path);
  r["kernels"] = report.kernels;
  r["tuned"] = report.tuned;
  r["library"] = report.library;
  r["views"] = report.views;
  r["constant_bytes"] = report.constant_bytes;
  r["seconds"] = report.seconds;
  r["note"] = note;
  r["tasks"] = TaskList(report.tasks);
  nb::list buckets;
  for (const compiler::CompiledBucket& b : report.buckets) {
    nb::dict bucket;
    bucket["name"] = b.name;
    bucket["dims"] = b.dims;
    bucket["tasks"] = TaskList(b.tasks);
    buckets.append(bucket);
  }
  r["buckets"] = buckets;
  art->report = r;
  return art;
}

}  // namespace

void BindArtifacts(nb::module_& m) {
  nb::class_<PyArtifact>(m, "Artifact",
                         "A compiled model (kiln.compile, kiln.load), loaded for this CPU. "
                         "Call it with numpy arrays, by position or by input name: "
                         "art(x=array) returns a dict of output name to numpy array.")
      .def_ro("path", &PyArtifact::path, "The artifact folder (MODEL.kiln).")
      .def_ro("report", &PyArtifact::report,
              "What compile did (kernels, tuned, tasks with the record each used, ...), as "
              "`tune compile --json` prints it; None for an artifact kiln.load read.")
      .def_prop_ro(
          "inputs",
          [](const PyArtifact& art) {
            nb::list out;
            for (const auto& info : art.inputs) {
              nb::list shape;
              for (const auto& d : info.shape) {
                if (d.op == runtime::model::DimExpr::Op::kConst) {
                  shape.append(d.value);
                } else {
                  shape.append(d.ToString());
                }
              }
              out.append(nb::make_tuple(info.name, info.dtype.ToString(), nb::tuple(shape)));
            }
            return out;
          },
          "The model's inputs in order: (name, dtype, shape) with symbolic dims as names.")
      .def_ro("outputs", &PyArtifact::output_names, "The names of the outputs, in order.")
      .def_prop_ro(
          "threads", [](const PyArtifact& art) { return art.executor->threads(); },
          "The threads the kernels run on.")
      .def_prop_ro(
          "copied_inputs",
          [](PyArtifact& art) {
            std::lock_guard lock(art.run);
            return art.copied_inputs;
          },
          "The inputs the last call copied instead of reading them in place (not row-major, "
          "or not 64-byte aligned).")
      .def("__call__", &Call,
           "Runs the model: arrays by position or by input name (numpy, anything numpy.asarray "
           "takes, or any DLPack producer on the CPU), each of the input's dtype. A row-major "
           "array at a 64-byte aligned address (kiln.empty makes one) is read in place; any "
           "other is copied once into aligned memory (a non-contiguous one gathered in that "
           "copy), which copied_inputs names afterwards. Returns {output name: numpy array}, "
           "arrays over the executor's own buffers. "
           "kiln.ShapeError for a dtype or shape the model does not take, kiln.ParseError for a "
           "missing or unknown input.")
      .def("benchmark", &Benchmark,
           "Times the model on these inputs as `tune bench` does: repeat (10) repeats of at "
           "least min_repeat_ms (100) each after warmup (1) runs, each run the executor's Run "
           "from C++ (no Python in the loop). Returns median_s, best_s, repeats_s, "
           "runs_per_repeat, threads "
           "and graph (which graph served the shapes).")
      .def(
          "save",
          [](PyArtifact& art, const std::string& path) {
            std::error_code ec;
            std::filesystem::create_directories(path, ec);
            KILN_CHECK(!ec, ErrorKind::kIO, path + ": " + ec.message());
            std::filesystem::copy(art.path, path,
                                  std::filesystem::copy_options::recursive |
                                      std::filesystem::copy_options::overwrite_existing,
                                  ec);
            KILN_CHECK(!ec, ErrorKind::kIO, path + ": cannot copy the artifact: " + ec.message());
          },
          nb::arg("path"),
          "Copies the artifact folder to `path` (created; files already there replaced), for "
          "kiln.load or `tune bench` / `tune infer`.")
      .def("__repr__", [](const PyArtifact& art) {
        return "<kiln.Artifact " + art.path + " inputs: " + InputNames(art) + ">";
      });

  m.def(
      "load",
      [](const std::string& path, int threads) {
        auto art = std::make_unique<PyArtifact>();
        nb::gil_scoped_release release;
        Open(*art, path, threads);
        return art;
      },
      nb::arg("path"), nb::arg("threads") = 0,
      "Loads a model artifact (kiln.compile's or `tune compile`'s) for this CPU; threads=0 "
      "uses every core. kiln.IOError for a missing one, kiln.UnsupportedError for one compiled "
      "for another target or device or in a newer format, kiln.ParseError for a corrupted one.");

  m.def(
      "_compile",
      [](const Model& model, const std::string& target, nb::handle database,
         std::optional<std::map<std::string, int64_t>> dims,
         std::optional<std::map<std::string, std::vector<int64_t>>> buckets, int64_t default_dim,
         bool symbolic, const std::string& library, const std::string& library_function,
         const std::string& device_key, const std::string& cache_dir, int build_jobs, int threads,
         bool untuned_check, bool default_schedule, const std::optional<std::string>& output) {
        CompileArgs a{.target = target,
                      .dims = std::move(dims),
                      .buckets = std::move(buckets),
                      .default_dim = default_dim,
                      .symbolic = symbolic,
                      .library = library,
                      .library_function = library_function,
                      .device_key = device_key,
                      .cache_dir = cache_dir,
                      .build_jobs = build_jobs,
                      .threads = threads,
                      .untuned_check = untuned_check,
                      .default_schedule = default_schedule};
        return Compile(model, a, database, output);
      },
      nb::arg("module"), nb::arg("target"), nb::arg("database").none(), nb::arg("dims").none(),
      nb::arg("buckets").none(), nb::arg("default_dim"), nb::arg("symbolic"), nb::arg("library"),
      nb::arg("library_function"), nb::arg("device_key"), nb::arg("cache_dir"),
      nb::arg("build_jobs"), nb::arg("threads"), nb::arg("untuned_check"),
      nb::arg("default_schedule"), nb::arg("output").none());
}

}  // namespace kiln::python
