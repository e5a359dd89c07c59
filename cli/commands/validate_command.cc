// `tune validate MODEL --target T [--listen ADDR] [--dim NAME=V] [--input NAME=FILE.npy]
// [--mode M] [--rtol DTYPE=V] [--atol DTYPE=V] [--carve-dir DIR] [-o report.html] [--json]`:
// validates a model on a device the TapML way (validate/validation.h): the model carved on the
// reference, every kernel call replayed on the device, the model offloaded call by call to the
// first call that makes it disagree. The device is this machine's, or with --listen a worker's
// that joins this process as its coordinator (validate/validation_service.h).
//
// Exit codes: 0 the device agrees; 1 something disagrees (or the device failed a kernel);
// 2 the model, an input or the options were unusable.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "cli/report/validation_html.h"
#include "database/sqlite_database.h"
#include "ir/model/model_tasks.h"
#include "runtime/cpu_builder.h"
#include "runtime/file_util.h"
#include "runtime/model/npy.h"
#include "support/stable_hash.h"
#include "validate/model_inputs.h"
#include "validate/report.h"
#include "validate/validation.h"
#include "validate/validation_service.h"
#include "worker/device_probe.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

struct ValidateCommandOptions {
  std::string model;
  std::string target = "llvm";
  std::string reference = "interp";
  std::string coordinator;
  std::string listen;
  std::string device_key;
  std::string db;
  double wait_worker_s = 120;
  std::vector<std::string> dims;
  int64_t default_dim = 128;
  std::string func;
  std::vector<std::string> inputs;
  uint64_t seed = 1;
  std::string mode = "both";
  std::vector<std::string> rtol, atol;
  std::string carve_dir;
  double carve_cap_mb = 256;
  std::string html;
  std::string report_json;
  int threads = 0;
  std::string cache_dir;
  std::string fault;
  std::string fault_task = "*";
  bool json = false;
};

// The model's inputs: from --input NAME=FILE.npy where given, else seeded random values
// (floats in [-1, 1), integers in [0, 1]).
std::vector<ir::HostTensor> ModelInputs(const std::vector<validate::EntryParam>& params,
                                        const std::vector<std::string>& options, uint64_t seed) {
  std::map<std::string, std::string> files;
  for (const std::string& o : options) {
    size_t eq = o.find('=');
    KILN_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < o.size(), ErrorKind::kParse,
               "--input " + o + ": NAME=FILE.npy expected");
    bool known = false;
    for (const validate::EntryParam& p : params) known |= p.name == o.substr(0, eq);
    KILN_CHECK(known, ErrorKind::kParse,
               "--input " + o + ": the model has no input " + o.substr(0, eq));
    KILN_CHECK(files.emplace(o.substr(0, eq), o.substr(eq + 1)).second, ErrorKind::kParse,
               "--input " + o + ": given twice");
  }
  std::vector<ir::HostTensor> out;
  for (size_t i = 0; i < params.size(); ++i) {
    const validate::EntryParam& p = params[i];
    auto it = files.find(p.name);
    if (it == files.end()) {
      out.push_back(validate::SeededInput(p, seed + i));
      continue;
    }
    ir::HostTensor t = runtime::model::ReadNpy(it->second);
    KILN_CHECK(t.dtype() == p.dtype && t.shape() == p.shape, ErrorKind::kParse,
               "--input " + p.name + "=" + it->second + ": " + t.Describe() + ", expected " +
                   ir::HostTensor(p.dtype, p.shape).Describe());
    out.push_back(std::move(t));
  }
  return out;
}

int Run(const ValidateCommandOptions& o) {
  validate::ValidateOptions options;
  std::optional<runtime::FaultSpec> fault;
  ir::relax::IRModule module;
  std::string entry;
  std::vector<ir::HostTensor> inputs;
  std::string note;
  try {
    KILN_CHECK(o.coordinator.empty(), ErrorKind::kUnsupported,
               "--coordinator: a running coordinator's workers cannot be borrowed yet; "
               "--listen ADDR makes tune validate the coordinator that the device's worker "
               "joins (kiln-worker --coordinator ADDR --device KIND)");
    KILN_CHECK(o.reference == "interp" || o.reference == "llvm", ErrorKind::kParse,
               "--reference " + o.reference +
                   ": interp (the TensorIR interpreter) or llvm (the loops as written, built "
                   "for this CPU) expected");
    std::error_code ec;
    KILN_CHECK(!std::filesystem::is_directory(o.model, ec), ErrorKind::kUnsupported,
               o.model +
                   " is a directory: validate the model it was compiled from (ONNX or "
                   "Relax text); an artifact holds no TensorIR to run elsewhere");
    std::optional<validate::Mode> mode = validate::ParseMode(o.mode);
    KILN_CHECK(mode.has_value(), ErrorKind::kParse,
               "--mode " + o.mode + ": replay, offload or both expected");
    options.mode = *mode;
    validate::Tolerances::Parse(o.rtol, "--rtol", options.tolerances.rtol);
    validate::Tolerances::Parse(o.atol, "--atol", options.tolerances.atol);
    options.carve_cap_bytes = static_cast<uint64_t>(o.carve_cap_mb * (1 << 20));
    if (!o.fault.empty()) {
      std::optional<runtime::FaultKind> kind = runtime::ParseFaultKind(o.fault);
      KILN_CHECK(kind.has_value(), ErrorKind::kParse,
                 "--fault " + o.fault + ": wrong, nan, drift, crash or hang expected");
      fault = runtime::FaultSpec{*kind, o.fault_task};
    }
    ir::model::ModelTaskOptions m;
    m.dims = ParseDims(o.dims);
    m.default_dim = o.default_dim;
    m.func = o.func;
    m.keep_modules = true;
    ir::model::ModelTasks tasks = ir::model::ExtractModelTasks(o.model, ReadFile(o.model), m);
    module = tasks.buckets.at(0).module;
    entry = tasks.entry;
    if (!tasks.defaulted.empty()) {
      note = "symbolic dims bound to " + tasks.DefaultedText() + " (--dim NAME=VALUE to choose)";
    }
    inputs = ModelInputs(validate::EntryParams(module, entry), o.inputs, o.seed);
    options.carve_dir = o.carve_dir;
    if (options.carve_dir.empty()) {
      // In the cache, one folder per model file (by its absolute path): examples share names.
      std::filesystem::path model = std::filesystem::absolute(o.model);
      StableHasher path_hash;
      path_hash.String(model.string());
      char suffix[17];
      std::snprintf(suffix, sizeof suffix, "%08llx",
                    static_cast<unsigned long long>(path_hash.value() & 0xffffffffull));
      options.carve_dir =
          (std::filesystem::path(o.cache_dir.empty() ? runtime::DefaultCacheDir() : o.cache_dir) /
           "carves" / (model.filename().string() + "-" + suffix))
              .string();
    }
  } catch (const Error& e) {
    throw InputError{e};
  }
  if (!note.empty()) std::cerr << "tune validate: " << note << "\n";
  if (fault) std::cerr << "tune validate: " << runtime::DescribeFault(*fault) << "\n";

  std::unique_ptr<validate::ValidationService> service;
  std::unique_ptr<validate::TargetDevice> device, reference;
  std::unique_ptr<database::SqliteDatabase> db;
  if (!o.db.empty()) {
    database::SqliteDatabaseOptions open;
    open.create = false;
    try {
      db = std::make_unique<database::SqliteDatabase>(o.db, open);
    } catch (const Error& e) {
      throw InputError{Error(e.kind(), std::string("--db: ") + e.what())};
    }
  }
  try {
    validate::TargetOptions target;
    target.target = o.target;
    target.cache_dir = o.cache_dir;
    target.threads = o.threads;
    target.fault = fault;
    target.db = db.get();
    if (!o.listen.empty()) {
      KILN_CHECK(!fault, ErrorKind::kParse,
                 "--fault: with --listen the fault is the worker's (kiln-worker --fault)");
      runtime::DeviceKindOfTarget(o.target);  // a target some device runs
      service = std::make_unique<validate::ValidationService>(
          validate::ValidationServiceOptions{o.listen, o.target, o.device_key});
      std::cerr << "tune validate: waiting for a worker of target " << o.target << " at "
                << service->endpoint() << "\n";
      std::cerr << "tune validate: worker " << service->WaitForWorker(o.wait_worker_s) << "\n";
      target.remote = &service->dispatcher();
    }
    if (db) {
      // The records of the device the kernels run on: given, the worker's that joined, or this
      // machine's device of the target's kind.
      target.device_key = !o.device_key.empty() ? o.device_key
                          : service
                              ? service->dispatcher().MatchingWorkers(o.target, "").at(0).device_key
                              : worker::ProbeDevice(runtime::DeviceKindOfTarget(o.target)).key;
    }
    device = std::make_unique<validate::TargetDevice>(target);
  } catch (const Error& e) {
    throw InputError{Error(
        e.kind(),
        (o.listen.empty() ? "--target " + o.target : "--listen " + o.listen) + ": " + e.what())};
  }
  if (o.reference == "llvm") {
    validate::TargetOptions trusted;
    trusted.cache_dir = o.cache_dir;
    trusted.threads = o.threads;
    trusted.loops_as_written = true;
    reference = std::make_unique<validate::TargetDevice>(trusted);
    options.reference = reference.get();
  }
  validate::ValidationReport report =
      validate::Validate(module, entry, o.model, inputs, *device, options);
  if (fault) {
    bool matched = false;
    for (const validate::CarvedCall& c : report.carve.calls) {
      matched |= runtime::FaultApplies(*fault, c.prim_func);
    }
    if (!matched) {
      std::cerr << "tune validate: --fault-task " << fault->task_pattern
                << " matched no kernel of the model\n";
    }
  }
  std::cout << validate::SummaryText(report);
  if (!o.html.empty()) {
    runtime::WriteFileAtomically(o.html, cli::report::RenderValidationHtml(report));
    std::cout << "wrote " << o.html << "\n";
  }
  if (!o.report_json.empty()) {
    runtime::WriteFileAtomically(o.report_json, validate::ReportToJson(report).dump(1) + "\n");
    std::cout << "wrote " << o.report_json << "\n";
  }
  if (o.json) std::cout << validate::SummaryJson(report).dump() << "\n";
  return report.ok() ? 0 : 1;
}

}  // namespace

Command RegisterValidateCommand(CLI::App& parent) {
  auto o = std::make_shared<ValidateCommandOptions>();
  CLI::App* app = parent.add_subcommand(
      "validate",
      "Validate a model on a device: carve every kernel call on the reference, replay each on "
      "the device, offload the model call by call to the first that makes it disagree");
  app->add_option("model", o->model, "an ONNX file or a Relax TVMScript module")->required();
  app->add_option("--target", o->target,
                  "the device's codegen target: llvm or c (this CPU), opencl, vulkan, cuda");
  app->add_option("--reference", o->reference,
                  "the trusted device: interp (the TensorIR interpreter, default) or llvm (the "
                  "loops as written built for this CPU: much faster on large models)");
  app->add_option("--coordinator", o->coordinator,
                  "a running coordinator whose worker has the device (not yet: use --listen)");
  app->add_option("--listen", o->listen,
                  "run the device's kernels on a worker that joins this address "
                  "(kiln-worker --coordinator ADDR --device KIND), e.g. tcp://127.0.0.1:7071");
  app->add_option("--device-key", o->device_key,
                  "the device key whose records --db gives and, with --listen, that the worker "
                  "must have (default: this machine's device of the target; with --listen, any)");
  app->add_option("--db", o->db,
                  "a tuning database: each kernel on the device is its task's best record for "
                  "the device that replays, else the default schedule");
  app->add_option("--wait-worker-s", o->wait_worker_s,
                  "with --listen: how long to wait for the worker to join")
      ->check(CLI::PositiveNumber);
  app->add_option("--dim", o->dims, "bind a named dimension of the model's inputs, NAME=VALUE");
  app->add_option("--default-dim", o->default_dim, "value of symbolic dims not bound by --dim")
      ->check(CLI::PositiveNumber);
  app->add_option("--func", o->func, "the Relax function that is the model");
  app->add_option("--input", o->inputs,
                  "an input's values, NAME=FILE.npy (default: seeded random values)");
  app->add_option("--seed", o->seed, "seed of the random inputs");
  app->add_option("--mode", o->mode, "replay, offload or both (default)");
  app->add_option("--rtol", o->rtol,
                  "relative tolerance of a dtype, DTYPE=VALUE (default: float32 1e-4, float16 "
                  "1e-2, bfloat16 2e-2, integers exact)");
  app->add_option("--atol", o->atol,
                  "absolute tolerance of a dtype, DTYPE=VALUE (default: the dtype's, raised to "
                  "rtol / 10 of the largest expected magnitude)");
  app->add_option("--carve-dir", o->carve_dir,
                  "where the carve is kept and reused (default: the cache's "
                  "carves/MODEL_FILE-PATHHASH)");
  app->add_option("--carve-cap-mb", o->carve_cap_mb,
                  "tensors above this keep a digest and a sample (a call reading one is not "
                  "replayed; an output is compared on its sample); default 256")
      ->check(CLI::PositiveNumber);
  app->add_option("-o,--output", o->html, "write the report as an HTML page");
  app->add_option("--report-json", o->report_json, "write the whole report as JSON");
  app->add_option("--threads", o->threads, "a CPU kernel's threads (0: every core)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--cache-dir", o->cache_dir, "build cache (default ~/.cache/kiln)");
  app->add_option("--fault", o->fault,
                  "for testing validation only: break the device's results for matching "
                  "tasks: wrong, nan, drift, crash or hang");
  app->add_option("--fault-task", o->fault_task, "the tasks --fault breaks (a glob, default *)");
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() { return ExitTwoOnInputError([&] { return Run(*o); }); }};
}

}  // namespace kiln::cli
