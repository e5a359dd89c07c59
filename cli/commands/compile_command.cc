// `tune compile MODEL --target llvm [--db FILE] -o MODEL.kiln [--json]`: compiles a model
// (ONNX or Relax) into a model artifact (docs/compile.md) with the best schedules the tuning
// database holds for this device.
//
// Symbolic dims: with no --dim and no --bucket, a model with symbolic dims is compiled
// symbolic (one graph, correct at every value the model admits, every kernel untuned, since
// records are for static workloads). With --dim, --bucket (and --default-dim for the dims left
// free, as `tune run` binds them), the model is specialised exactly as `tune run` specialised
// it, so the tuned records apply: one graph per bucket beside the symbolic fallback, and the
// executor picks per call (the exact bucket, a larger one with padding where the model allows
// it, or the fallback). A model whose dims are all bound is one static graph, as before.
// The table says, per graph and task, the record used or that it is untuned; --json adds one
// object on the last line.
// --library auto|never|always: whether a matmul task may run as a library call (oneDNN's
// dnnl_sgemm, or --library-function cblas_sgemm) plus a generated epilogue kernel; with auto
// both are timed here and the faster kept, and a line per such task says which and the times.
//
// Exit codes: 0 compiled; 1 the compiler failed; 2 the input or options were unusable.
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "compiler/compile_variants.h"
#include "compiler/compiler.h"
#include "database/sqlite_database.h"
#include "ir/model/model_file.h"
#include "ir/model/model_tasks.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "ir/substitute.h"
#include "runtime/measurer.h"
#include "runtime/model/library_function.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

struct CompileCommandOptions {
  std::string model;
  std::string target = "llvm";
  std::string db;
  bool no_db = false;
  bool no_untuned_check = false;
  bool no_default_schedule = false;
  std::string sparse_attention = "auto";  // the ONNX importer's block-sparse attention
  std::string output;
  std::string func;
  std::vector<std::string> dims;
  BucketFlags buckets;
  int64_t default_dim = 128;
  bool symbolic = false;
  std::string device_key;
  std::string cache_dir;
  int build_jobs = 0;
  std::string library = "auto";
  std::string winograd = "off";
  std::string library_function = "dnnl_sgemm";
  int threads = 0;
  bool json = false;
};

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

// Prints one graph's task table; returns its tasks as JSON and adds its untuned kernels to
// `untuned`.
json PrintTasks(const std::vector<compiler::CompiledTask>& report_tasks,
                const std::string& library_function, std::vector<std::string>& untuned) {
  size_t width = 4;
  for (const auto& t : report_tasks) width = std::max(width, std::min<size_t>(t.name.size(), 48));
  auto pad = [](std::string s, size_t w) {
    return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
  };
  std::cout << pad("#", 3) << "  " << pad("name", width) << "  " << pad("kind", 6) << "  "
            << pad("weight", 6) << "  " << pad("schedule", 14) << "  latency (us)\n";
  json tasks = json::array();
  for (size_t i = 0; i < report_tasks.size(); ++i) {
    const compiler::CompiledTask& t = report_tasks[i];
    std::string schedule = t.kind == "view"      ? "view"
                           : t.kind == "library" ? "library"
                           : t.record_id         ? "record " + std::to_string(*t.record_id)
                           : t.default_schedule  ? "default"
                                                 : "untuned";
    if (t.kind == "kernel" && !t.record_id) untuned.push_back(t.name);
    std::cout << pad(std::to_string(i), 3) << "  " << pad(t.name.substr(0, 48), width) << "  "
              << pad(t.kind, 6) << "  " << pad(std::to_string(t.weight), 6) << "  "
              << pad(schedule, 14) << "  " << (t.latency_s ? Fixed(*t.latency_s * 1e6, 2) : "-")
              << "\n";
    if (!t.note.empty()) std::cout << "     " << t.note << "\n";
    if (t.tuned_s && t.untuned_s) {
      std::cout << "     timed here: tuned " << Fixed(*t.tuned_s * 1e6, 2) << " us, untuned "
                << Fixed(*t.untuned_s * 1e6, 2) << " us\n";
    }
    if (t.default_s && t.written_s) {
      std::cout << "     timed here: default schedule " << Fixed(*t.default_s * 1e6, 2)
                << " us, as written " << Fixed(*t.written_s * 1e6, 2) << " us\n";
    }
    if (t.kernel_s && t.library_s) {
      std::string function = library_function;
      std::string kernel = t.kernel_tuned ? "tuned" : "untuned";
      std::cout << "     task " << t.name << ": "
                << (t.kind == "library"
                        ? "library " + function +
                              (t.impl.find("+epilogue") != std::string::npos ? " + epilogue kernel"
                                                                             : "") +
                              ", " + Fixed(*t.library_s * 1e6, 1) + " us vs " + kernel + " " +
                              Fixed(*t.kernel_s * 1e6, 1) + " us"
                        : kernel + " kernel, " + Fixed(*t.kernel_s * 1e6, 1) + " us vs library " +
                              function + " " + Fixed(*t.library_s * 1e6, 1) + " us")
                << "\n";
    } else if (!t.library_note.empty()) {
      std::cout << "     library: " << t.library_note << "\n";
    }
    tasks.push_back({{"name", t.name},
                     {"workload_hash", t.workload_hash},
                     {"weight", t.weight},
                     {"kind", t.kind},
                     {"record", t.record_id ? json(*t.record_id) : json()},
                     {"untuned", t.kind == "kernel" && !t.record_id},
                     {"latency_s", t.latency_s ? json(*t.latency_s) : json()},
                     {"impl", t.impl},
                     {"kernel_s", t.kernel_s ? json(*t.kernel_s) : json()},
                     {"library_s", t.library_s ? json(*t.library_s) : json()},
                     {"library_note", t.library_note},
                     {"tuned_s", t.tuned_s ? json(*t.tuned_s) : json()},
                     {"untuned_s", t.untuned_s ? json(*t.untuned_s) : json()},
                     {"default_schedule", t.default_schedule},
                     {"default_s", t.default_s ? json(*t.default_s) : json()},
                     {"written_s", t.written_s ? json(*t.written_s) : json()},
                     {"note", t.note}});
  }
  return tasks;
}

int Run(const CompileCommandOptions& o) {
  // Every import below (the fallback graph and each specialisation) converts masked
  // attention as tune run's did, so that its records apply.
  const ir::frontend::onnx::SparseAttentionMode sparse_attention =
      *ir::frontend::onnx::ParseSparseAttentionMode(o.sparse_attention);
  ir::frontend::onnx::ScopedSparseAttentionMode sparse_attention_scope(sparse_attention);
  std::string device;
  try {
    device = runtime::DeviceKindOfTarget(o.target);
  } catch (const Error& e) {
    throw InputError{Error(e.kind(), std::string("--target: ") + e.what())};
  }
  if (device != "cpu") {
    throw InputError{Error(ErrorKind::kUnsupported,
                           "--target " + o.target + ": tune compile builds for the CPU only")};
  }
  std::optional<compiler::LibraryPolicy> policy = compiler::ParseLibraryPolicy(o.library);
  if (!policy) {
    throw InputError{Error(ErrorKind::kUnsupported,
                           "--library " + o.library + ": auto, never or always expected")};
  }
  if (runtime::model::FindLibraryFunction(o.library_function) == nullptr) {
    std::string known;
    for (const std::string& n : runtime::model::LibraryFunctionNames()) {
      known += (known.empty() ? "" : ", ") + n;
    }
    throw InputError{Error(
        ErrorKind::kUnsupported,
        "--library-function " + o.library_function + ": not a library function (" + known + ")")};
  }
  std::map<std::string, int64_t> dims;
  std::vector<compiler::CompileVariant> variants;
  std::string note;
  try {
    dims = ParseDims(o.dims);
    ir::model::ModelTaskOptions options;
    options.dims = dims;
    options.default_dim = o.default_dim;
    options.buckets = o.buckets.Parse();
    options.func = o.func;
    options.pipeline.winograd.mode = *ir::relax::transform::ParseWinogradMode(o.winograd);
    options.sparse_attention = sparse_attention;
    compiler::CompileVariantPlan plan =
        compiler::PlanCompileVariants(o.model, ReadFile(o.model), options, o.symbolic);
    variants = std::move(plan.variants);
    if (plan.symbolic_only && !o.symbolic) {
      note = "compiled symbolic in " + Join(plan.free_dims) +
             ": one graph for every value, every kernel untuned; --dim NAME=V or --bucket "
             "NAME=V1,V2 specialise it as tune run did, so that its tuning records apply";
    } else if (!plan.defaulted.empty()) {
      note = "symbolic dims bound to " + plan.defaulted +
             " (as tune run binds them; --dim NAME=VALUE or --bucket to choose) beside the "
             "symbolic fallback";
    }
  } catch (const Error& e) {
    throw InputError{e};
  }
  if (!note.empty()) std::cerr << "tune compile: " << note << "\n";

  std::unique_ptr<database::SqliteDatabase> db;
  std::string db_path;
  if (!o.no_db) {
    // The database `tune run` writes by default: $KILN_DB, else the cache's tuning.db.
    const char* env = std::getenv("KILN_DB");
    db_path =
        !o.db.empty() ? o.db : (env && *env ? std::string(env) : database::DefaultDatabasePath());
    std::error_code ec;
    if (!o.db.empty() || std::filesystem::exists(db_path, ec)) {
      database::SqliteDatabaseOptions open;
      open.create = false;
      try {
        db = std::make_unique<database::SqliteDatabase>(db_path, open);
      } catch (const Error& e) {
        throw InputError{Error(e.kind(), std::string("--db: ") + e.what())};
      }
    } else {
      db_path.clear();
    }
  }

  compiler::CompileOptions options;
  options.target = o.target;
  options.device_key = o.device_key;
  options.db = db.get();
  options.model = o.model;
  options.bound_dims = dims;
  options.cache_dir = o.cache_dir;
  options.build_jobs = o.build_jobs;
  options.library = *policy;
  options.library_function = o.library_function;
  options.measure_threads = o.threads;
  options.keep_faster_untuned = !o.no_untuned_check;
  options.default_schedules = !o.no_default_schedule;
  compiler::CompileReport report = compiler::CompileModel(variants, o.output, options);

  std::vector<std::string> untuned;
  json tasks = PrintTasks(report.tasks, o.library_function, untuned);
  json buckets = json::array();
  for (const compiler::CompiledBucket& b : report.buckets) {
    std::cout << "\nbucket " << b.name << ":\n";
    buckets.push_back({{"name", b.name},
                       {"dims", b.dims},
                       {"tasks", PrintTasks(b.tasks, o.library_function, untuned)}});
  }
  if (!report.buckets.empty()) {
    std::cout << "\nthe fallback (graph.json) serves other shapes; padded into a larger bucket: "
              << (report.paddable_dims.empty() ? std::string("none") : Join(report.paddable_dims))
              << "\n";
    for (const auto& [dim, why] : report.unpaddable_dims) {
      std::cout << "  " << dim << " is not padded: " << why << "\n";
    }
  }
  std::cout << report.kernels << " kernels (" << report.tuned << " tuned), " << report.library
            << " library calls, " << report.views << " views, " << report.constant_bytes
            << " bytes of constants; device " << report.device_key << "; database "
            << (db_path.empty() ? "none" : db_path) << "\n";
  if (!untuned.empty()) {
    std::string names;
    for (const std::string& n : untuned) names += (names.empty() ? "" : ", ") + n;
    std::cout << "untuned: " << names << "\n";
  }
  std::cout << "wrote " << report.artifact_dir << " in " << Fixed(report.seconds, 1) << " s\n";
  if (o.json) {
    std::cout << json{{"artifact", report.artifact_dir},
                      {"target", o.target},
                      {"device_key", report.device_key},
                      {"database", db_path.empty() ? json() : json(db_path)},
                      {"bound_dims", dims},
                      {"kernels", report.kernels},
                      {"tuned", report.tuned},
                      {"library", report.library},
                      {"library_policy", o.library},
                      {"winograd", o.winograd},
                      {"sparse_attention", o.sparse_attention},
                      {"untuned", untuned.size()},
                      {"views", report.views},
                      {"constant_bytes", report.constant_bytes},
                      {"buckets", buckets},
                      {"paddable_dims", report.paddable_dims},
                      {"unpaddable_dims", report.unpaddable_dims},
                      {"seconds", report.seconds},
                      {"tasks", tasks}}
                     .dump()
              << "\n";
  }
  return 0;
}

}  // namespace

Command RegisterCompileCommand(CLI::App& parent) {
  auto o = std::make_shared<CompileCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "compile", "Compile a model with the best tuned schedules into a model artifact");
  app->add_option("model", o->model, "an ONNX file or a Relax TVMScript module")->required();
  app->add_option("--target", o->target, "codegen target (llvm or c)");
  app->add_option("--db", o->db,
                  "the tuning database (default: $KILN_DB, else ~/.cache/kiln/tuning.db, when it "
                  "exists)");
  app->add_flag("--no-db", o->no_db, "use no database: every kernel untuned");
  app->add_option("-o,--output", o->output, "the artifact directory to write (MODEL.kiln)")
      ->required();
  app->add_option("--func", o->func, "the Relax function that is the model");
  app->add_option("--dim", o->dims, "bind a named dimension of the ONNX inputs, NAME=VALUE");
  AddBucketFlags(app, &o->buckets,
                 "a graph per value of a symbolic dim, NAME=V1,V2,... (or NAME with --max-dim: "
                 "powers of two), beside the symbolic fallback; repeatable",
                 "accepted as tune run takes it (NAME=V:W); it does not change the artifact");
  app->add_option("--default-dim", o->default_dim,
                  "value of an ONNX model's symbolic dims neither bound nor bucketed, when "
                  "--dim or --bucket is given (as tune run binds them)")
      ->check(CLI::PositiveNumber);
  app->add_flag("--symbolic", o->symbolic,
                "only the symbolic graph (kernels for every size, untuned), whatever --dim "
                "leaves free");
  app->add_option("--device-key", o->device_key,
                  "the device whose records to use (default: this CPU's key)");
  app->add_option("--cache-dir", o->cache_dir, "build cache (default ~/.cache/kiln)");
  app->add_option("--build-jobs", o->build_jobs, "parallel compiles (0: every core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--library", o->library,
                  "matmul tasks as a library call plus an epilogue kernel: auto (the faster, "
                  "timed here), never, always");
  AddImportOptions(app, &o->winograd, &o->sparse_attention);
  app->add_option("--library-function", o->library_function,
                  "the matmul library: dnnl_sgemm (oneDNN) or cblas_sgemm (OpenBLAS)");
  app->add_option("--threads", o->threads,
                  "threads when timing a task's kernel against its library variant (0: every "
                  "core)")
      ->check(CLI::NonNegativeNumber);
  app->add_flag("--no-untuned-check", o->no_untuned_check,
                "use each task's best record without timing its kernel against the untuned one");
  app->add_flag("--no-default-schedule", o->no_default_schedule,
                "keep the loops as written for kernels no record covers, instead of timing "
                "the default schedule against them");
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() { return ExitTwoOnInputError([&] { return Run(*o); }); }};
}

}  // namespace kiln::cli
