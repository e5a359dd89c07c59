// `tune infer MODEL.kiln --input NAME=FILE.npy ... --output DIR [--json]`: runs a compiled
// model once on inputs read from .npy files (one per model input, by name) and writes one .npy
// per output into DIR (output_0.npy, output_1.npy, ...). Symbolic dims are bound from the
// inputs' shapes.
//
// Exit codes: 0 ran; 1 the run failed; 2 the artifact, an input file or the options were
// unusable.
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/command_util.h"
#include "cli/commands/commands.h"
#include "cli/commands/model_runner.h"
#include "runtime/model/npy.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

struct InferOptions {
  std::string model;
  std::vector<std::string> inputs;
  std::string output;
  int threads = 0;
  bool json = false;
};

int Run(const InferOptions& o) {
  std::unique_ptr<runtime::model::Executor> executor;
  std::vector<ir::HostTensor> inputs;
  try {
    executor = LoadModelArtifact(o.model, o.threads);
    inputs = ReadInputFiles(*executor, o.inputs);
    std::error_code ec;
    std::filesystem::create_directories(o.output, ec);
    KILN_CHECK(!ec, ErrorKind::kIO, "--output " + o.output + ": " + ec.message());
  } catch (const Error& e) {
    throw InputError{e};
  }
  std::vector<ir::HostTensor> outputs;
  try {
    outputs = executor->Run(inputs);
  } catch (const Error& e) {
    // Inputs that do not fit the model are the user's, not a failure of the run.
    if (e.kind() == ErrorKind::kRuntime && std::string(e.what()).rfind("input ", 0) == 0) {
      throw InputError{e};
    }
    throw;
  }
  json written = json::array();
  for (size_t i = 0; i < outputs.size(); ++i) {
    std::string path =
        (std::filesystem::path(o.output) / ("output_" + std::to_string(i) + ".npy")).string();
    runtime::model::WriteNpy(path, outputs[i]);
    std::cout << path << ": " << outputs[i].Describe() << "\n";
    written.push_back(
        {{"path", path}, {"dtype", outputs[i].dtype().ToString()}, {"shape", outputs[i].shape()}});
  }
  if (o.json) std::cout << json{{"model", o.model}, {"outputs", written}}.dump() << "\n";
  return 0;
}

}  // namespace

Command RegisterInferCommand(CLI::App& parent) {
  auto o = std::make_shared<InferOptions>();
  CLI::App* app =
      parent.add_subcommand("infer", "Run a compiled model on .npy inputs, write .npy outputs");
  app->add_option("model", o->model, "a model artifact directory (MODEL.kiln)")->required();
  app->add_option("--input", o->inputs, "NAME=FILE.npy, one per model input")->required();
  app->add_option("--output", o->output, "the directory to write output_N.npy into")->required();
  app->add_option("--threads", o->threads, "threads of the kernels (0: every core)")
      ->check(CLI::NonNegativeNumber);
  app->add_flag("--json", o->json, "print one JSON object on the last line");
  return {app, [o]() { return ExitTwoOnInputError([&] { return Run(*o); }); }};
}

}  // namespace kiln::cli
