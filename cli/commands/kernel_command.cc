// `tune kernel FILE.tir [--trace TRACE.json] --target llvm`: looks at one kernel the way the
// tuner measures it. The function (any TVMScript PrimFunc; symbolic dimensions bound with
// --dim) is scheduled by replaying the trace, or by a variant of the default CPU schedule
// (--default-variant N: what an untuned kernel runs; 0 is the one the tuner times), or left
// as written, then goes through the
// measurement pipeline of runtime/measurer.h: lowering, code generation, build, a sandboxed
// run checked against the workload's reference, and timing. It prints the scheduled
// TensorIR, the lowered IR, the generated C and a summary (build time, correctness, median
// time, GFLOP/s), or with --json one JSON object on the last line of stdout.
//
// Exit codes: 0 the kernel built, ran and matched the reference; 1 it did not (the result
// says why) or the machinery failed; 2 the input was unusable (a malformed .tir or trace, a
// trace that does not fit the function, a missing --dim, bad options).
#include <cmath>
#include <cstdio>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "ir/analysis/flop_count.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "runtime/cpu_wait.h"
#include "runtime/host_cpu.h"
#include "runtime/measurer.h"
#include "search/schedule/trace.h"
#include "search/space/default_schedule.h"
#include "support/error.h"
#include "worker/device_probe.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

struct KernelOptions {
  std::string file;
  std::string trace_file;
  int default_variant = -1;  // >= 0: schedule with that variant of the default CPU schedule
  std::string func;
  std::string target = "llvm";
  std::vector<std::string> dims;
  std::vector<std::string> show;
  int number = 3;
  int repeat = 3;
  double min_repeat_ms = 100;
  bool flush_cache = false;
  int threads = 0;
  double time_limit_s = 30;
  double build_time_limit_s = 60;
  uint64_t seed = 1;
  bool json = false;
  std::string dialect;
};

// An input the user gave cannot be used: exit code 2.
const std::set<std::string> kSections = {"scheduled", "lowered", "c"};

std::set<std::string> Sections(const std::vector<std::string>& show) {
  std::set<std::string> sections;
  for (const std::string& item : show) {
    std::stringstream parts(item);
    std::string part;
    while (std::getline(parts, part, ',')) {
      if (part == "all") {
        sections.insert(kSections.begin(), kSections.end());
      } else if (part == "none" || part == "summary") {
        continue;
      } else if (kSections.count(part)) {
        sections.insert(part);
      } else {
        throw InputError{
            Error(ErrorKind::kParse,
                  "--show " + part + ": expected scheduled, lowered, c, all, summary or none")};
      }
    }
  }
  return sections;
}

ir::PrimFunc SelectFunction(const std::vector<ir::PrimFunc>& funcs, const KernelOptions& o) {
  std::string names;
  for (const ir::PrimFunc& f : funcs) names += (names.empty() ? "" : ", ") + f->name;
  if (!o.func.empty()) {
    for (const ir::PrimFunc& f : funcs) {
      if (f->name == o.func) return f;
    }
    throw InputError{Error(ErrorKind::kParse, o.file + ": no function named '" + o.func +
                                                  "' (it has: " + names + ")")};
  }
  if (funcs.size() != 1) {
    throw InputError{Error(ErrorKind::kParse, o.file + " holds " + std::to_string(funcs.size()) +
                                                  " functions (" + names +
                                                  "): choose one with --func NAME")};
  }
  return funcs[0];
}

// Every parameter must have a concrete shape or value once --dim values are bound.
void CheckDims(const ir::PrimFunc& f, const std::map<std::string, int64_t>& dims) {
  for (const ir::Var& param : f->params) {
    if (auto buffer = f->BufferOf(param)) {
      ConcreteShape(*buffer, dims);
    } else if (!dims.count(param.name())) {
      throw Error(ErrorKind::kParse, "scalar parameter '" + param.name() +
                                         "': give it a value with --dim " + param.name() +
                                         "=VALUE");
    }
  }
}

ir::PrimFunc ApplyTrace(const ir::PrimFunc& f, const std::string& path) {
  std::string text = ReadFile(path);
  json document;
  try {
    document = json::parse(text);
  } catch (const json::exception& e) {
    throw InputError{Error(ErrorKind::kParse, path + ": not valid JSON: " + e.what())};
  }
  // A bare trace, or an object holding one (a tuning record's "trace").
  if (document.is_object() && document.contains("trace")) document = document["trace"];
  search::Trace trace;
  try {
    trace = search::Trace::FromJSON(document);
  } catch (const Error& e) {
    throw InputError{Error(e.kind(), path + ": " + e.what())};
  }
  try {
    return search::ReplayTrace(f, trace);
  } catch (const Error& e) {
    throw InputError{
        Error(e.kind(), path + ": the trace does not fit function " + f->name + ": " + e.what())};
  }
}

// The default CPU schedule's variant `index` of the function (a function with symbolic loop
// extents has none).
ir::PrimFunc DefaultVariant(const ir::PrimFunc& f, int index, int threads) {
  search::DefaultScheduleOptions options;
  options.num_cores =
      threads > 0 ? threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.vector_bytes = runtime::HostVectorBytes();
  std::vector<search::Candidate> variants = search::DefaultCpuSchedules(f, options);
  if (index >= static_cast<int>(variants.size())) {
    throw InputError{
        Error(ErrorKind::kParse,
              "--default-variant " + std::to_string(index) + ": function " + f->name + " has " +
                  std::to_string(variants.size()) + " default schedule variant(s)" +
                  (variants.empty() ? " (a symbolic loop extent, or no rule applies)" : ""))};
  }
  return variants[index].scheduled;
}

std::string Seconds(double s) {
  char buf[64];
  if (s >= 1) {
    std::snprintf(buf, sizeof buf, "%.3f s", s);
  } else if (s >= 1e-3) {
    std::snprintf(buf, sizeof buf, "%.3f ms", s * 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.3f us", s * 1e6);
  }
  return buf;
}

std::string Number(double v, const char* format = "%.3g") {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

int Run(const KernelOptions& o, bool show_given) {
  std::set<std::string> sections =
      Sections(o.show.empty() ? std::vector<std::string>{"all"} : o.show);
  std::vector<ir::PrimFunc> funcs;
  try {
    funcs = ir::ParsePrimFuncs(ReadFile(o.file), o.file);
  } catch (const Error& e) {
    throw InputError{e};
  }
  ir::PrimFunc workload = SelectFunction(funcs, o);
  std::map<std::string, int64_t> dims;
  try {
    dims = ParseDims(o.dims);
    CheckDims(workload, dims);
  } catch (const Error& e) {
    throw InputError{Error(e.kind(), "function " + workload->name + ": " + e.what())};
  }
  if (!o.trace_file.empty() && o.default_variant >= 0) {
    throw InputError{Error(ErrorKind::kParse, "--trace and --default-variant: give one of them")};
  }
  ir::PrimFunc scheduled = workload;
  if (!o.trace_file.empty()) scheduled = ApplyTrace(workload, o.trace_file);
  if (o.default_variant >= 0) {
    scheduled = DefaultVariant(workload, o.default_variant, o.threads);
  }

  runtime::MeasureOptions options;
  options.target = o.target;
  options.timing.number = o.number;
  options.timing.repeat = o.repeat;
  options.timing.min_repeat_ms = o.min_repeat_ms;
  options.timing.flush_cache = o.flush_cache;
  options.run_time_limit_s = o.time_limit_s;
  options.build_time_limit_s = o.build_time_limit_s;
  options.num_threads = o.threads;
  options.input_seed = o.seed;
  std::string device;
  try {
    device = runtime::DeviceKindOfTarget(o.target);
  } catch (const Error& e) {
    throw InputError{Error(e.kind(), std::string("--target: ") + e.what())};
  }
  // A GPU target is measured on this machine's device of that kind: one without it says so.
  // What the device is travels in the JSON: an emulation (the Metal CPU shim) says so.
  std::optional<runtime::gpu::DeviceDescription> gpu_device;
  if (device != "cpu") {
    try {
      gpu_device = worker::ProbeDevice(device).gpu;
    } catch (const Error& e) {
      throw InputError{Error(e.kind(), "--target " + o.target + ": " + e.what())};
    }
  }
  std::unique_ptr<runtime::Measurer> measurer = runtime::CreateMeasurer(device, options);
  runtime::MeasureDetails details;
  runtime::MeasureResult result = measurer->Measure({workload, scheduled, dims}, &details);

  double flops = ir::EstimateFlops(workload, dims);
  bool ok = result.ok() && result.correctness_checked;
  double gflops = ok && result.median_seconds > 0 ? flops / result.median_seconds / 1e9 : 0;
  std::string lowered_text, c_text;
  if (details.lowered.defined()) {
    try {
      lowered_text = ir::PrintPrimFunc(details.lowered, DialectPrintOptions(o.dialect));
    } catch (const Error& e) {
      lowered_text = std::string("# (not printable: ") + e.what() + ")\n";
    }
  }
  c_text = details.source.code;

  if (o.json) {
    json out = {
        {"function", workload->name},
        {"hash", ir::StructuralHashHex(workload)},
        {"scheduled_hash", ir::StructuralHashHex(scheduled)},
        {"trace", o.trace_file.empty() ? json(nullptr) : json(o.trace_file)},
        {"default_variant", o.default_variant >= 0 ? json(o.default_variant) : json(nullptr)},
        {"target", o.target},
        {"device", device},
        {"device_name", gpu_device ? json(gpu_device->name) : json(nullptr)},
        {"device_key", gpu_device ? json(gpu_device->key) : json(nullptr)},
        {"emulated", gpu_device && gpu_device->emulated},
        {"correct", ok},
        {"error_kind", runtime::MeasureErrorKindName(result.error_kind)},
        {"message", result.message},
        {"max_rel_error", result.max_rel_error},
        {"max_abs_error", result.max_abs_error},
        {"reference", result.reference},
        {"build_s", result.build_seconds},
        {"build_cache_hit", result.build_cache_hit},
        {"median_s", result.median_seconds},
        {"repeats_s", result.repeat_seconds},
        {"number", result.number},
        {"contention", result.contention},
        {"flops", flops},
        {"gflops", gflops},
        {"threads", o.threads},
        {"seed", o.seed},
    };
    // NaN (a kernel that produced NaN where numbers were expected) is not JSON.
    if (std::isnan(result.max_rel_error)) out["max_rel_error"] = nullptr;
    if (std::isnan(result.max_abs_error)) out["max_abs_error"] = nullptr;
    if (show_given) {
      if (sections.count("scheduled")) {
        out["scheduled"] = ir::PrintPrimFunc(scheduled, DialectPrintOptions(o.dialect));
      }
      if (sections.count("lowered")) out["lowered"] = lowered_text;
      if (sections.count("c")) out["c"] = c_text;
    }
    std::cout << out.dump() << "\n";
    return ok ? 0 : 1;
  }

  std::ostream& os = std::cout;
  if (sections.count("scheduled")) {
    os << "== scheduled TensorIR"
       << (o.default_variant >= 0
               ? " (default schedule, variant " + std::to_string(o.default_variant) + ")"
           : o.trace_file.empty() ? " (no trace: the function as written)"
                                  : " (" + o.trace_file + ")")
       << " ==\n"
       << ir::PrintPrimFunc(scheduled, DialectPrintOptions(o.dialect)) << "\n";
  }
  if (sections.count("lowered") && !lowered_text.empty()) {
    os << "== lowered ==\n" << lowered_text << "\n";
  }
  if (sections.count("c") && !c_text.empty()) {
    os << "== generated C (" << details.source.signature.symbol << ") ==\n" << c_text << "\n";
  }
  os << "== measurement ==\n";
  os << "function     " << workload->name << "  hash " << ir::StructuralHashHex(workload) << "\n";
  if (gpu_device) {
    os << "device       " << gpu_device->name << " (" << gpu_device->key << ")"
       << (gpu_device->emulated ? ": an emulation on the CPU, its times are not the device's" : "")
       << "\n";
  }
  os << "target       " << o.target << " (" << device << ", "
     << (o.threads > 0 ? std::to_string(o.threads) + (o.threads == 1 ? " thread" : " threads")
                       : "default threads")
     << ")\n";
  if (result.build_cache_hit) {
    os << "build        cached (an identical source was built before)\n";
  } else if (result.build_seconds > 0) {
    os << "build        " << Seconds(result.build_seconds) << "\n";
  }
  if (ok) {
    os << "correctness  ok: max rel error " << Number(result.max_rel_error) << ", max abs error "
       << Number(result.max_abs_error) << "\n";
  } else {
    os << "result       " << runtime::MeasureErrorKindName(result.error_kind) << ": "
       << result.message << "\n";
  }
  if (!result.reference.empty()) os << "reference    " << result.reference << "\n";
  if (ok) {
    os << "time         median " << Seconds(result.median_seconds) << " over "
       << result.repeat_seconds.size() << " repeats of " << result.number << " runs:";
    for (double s : result.repeat_seconds) os << " " << Seconds(s);
    os << "\n";
    if (result.contention >= runtime::kContendedShare) {
      os << "contention   " << Number(result.contention, "%.2f")
         << " s waited for a core per second timed: the machine was busy, the time is high\n";
    }
    os << "throughput   " << Number(gflops, "%.2f") << " GFLOP/s (" << Number(flops, "%.4g")
       << " FLOP per call)\n";
  }
  return ok ? 0 : 1;
}

}  // namespace

Command RegisterKernelCommand(CLI::App& parent) {
  auto o = std::make_shared<KernelOptions>();
  CLI::App* app = parent.add_subcommand(
      "kernel",
      "Build, check and time one kernel: a TVMScript function, scheduled by a trace or as "
      "written");
  app->add_option("file", o->file, "a .tir file of one or more @T.prim_func")->required();
  app->add_option("--trace", o->trace_file, "a schedule trace (MetaSchedule JSON) to replay");
  app->add_option("--default-variant", o->default_variant,
                  "schedule with this variant of the default CPU schedule (what an untuned "
                  "kernel runs; 0 is the one the tuner times as untuned)")
      ->check(CLI::NonNegativeNumber);
  app->add_option("--func", o->func, "the function to use when the file holds several");
  app->add_option(
         "--target", o->target,
         "codegen target: llvm or c (the host CPU), vulkan, opencl, cuda, webgpu or metal (this "
         "machine's device; metal runs on the CPU shim where there is no Mac)")
      ->capture_default_str();
  app->add_option("--dim", o->dims, "value of a symbolic dimension or scalar, NAME=VALUE");
  CLI::Option* show =
      app->add_option("--show", o->show,
                      "what to print besides the summary: scheduled, lowered, c, all or none "
                      "(comma-separated; default all, with --json none)");
  app->add_option("--number", o->number, "runs per repeat to start from")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app->add_option("--repeat", o->repeat, "timed repeats; the median is reported")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app->add_option("--min-repeat-ms", o->min_repeat_ms,
                  "grow the runs per repeat until one repeat lasts this long")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app->add_flag("--flush-cache", o->flush_cache, "flush the CPU caches before each repeat");
  app->add_option("--threads", o->threads, "threads of a parallel kernel (0: all cores)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  app->add_option("--time-limit", o->time_limit_s,
                  "seconds the sandboxed run (once, then timing) may take")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app->add_option("--build-time-limit", o->build_time_limit_s, "seconds the compiler may take")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app->add_option("--seed", o->seed, "seed of the random inputs")->capture_default_str();
  app->add_flag("--json", o->json, "print one JSON object on the last line of stdout");
  AddDialectOption(app, &o->dialect);
  return {app, [o, show]() {
            try {
              return Run(*o, show->count() > 0);
            } catch (const InputError& input) {
              std::cerr << "tune: " << ErrorKindName(input.error.kind()) << ": "
                        << input.error.what() << "\n";
              if (o->json) {
                std::cout << json{{"correct", false},
                                  {"error_kind", "input"},
                                  {"message", input.error.what()}}
                                 .dump()
                          << "\n";
              }
              return 2;
            } catch (const Error& e) {
              if (!o->json) throw;
              std::cerr << "tune: " << ErrorKindName(e.kind()) << ": " << e.what() << "\n";
              std::cout
                  << json{{"correct", false}, {"error_kind", "error"}, {"message", e.what()}}.dump()
                  << "\n";
              return 1;
            }
          }};
}

}  // namespace kiln::cli
