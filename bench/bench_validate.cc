// bench_validate: what validating a model on a device costs, per model (the MLP at batch 128,
// the transformer block and the BERT-base layer at 128 tokens, the ResNet-18 stage at 56x56):
// validate/validation.h run twice on the same device, first carving into a fresh directory,
// then reusing that carve (what a second validation of the same model and inputs costs).
// Printed per model: calls and kernels, seconds of the carve (the reference run), of the
// replay and of the offload, the whole first and second validations; what the carve stores
// (bytes and tensors) against what its calls read and write (referenced_bytes: each tensor of
// each call counted), and the verdict.
//   bench_validate [--target vulkan] [--reference llvm|interp] [--models a,b] [--json]
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "ir/model/model_tasks.h"
#include "support/error.h"
#include "support/file.h"
#include "validate/model_inputs.h"
#include "validate/validation.h"

namespace kiln::bench {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ModelSpec {
  std::string name;
  std::string path;
  std::map<std::string, int64_t> dims;
};

std::vector<ModelSpec> AllModels() {
  std::string examples = std::string(KILN_SOURCE_DIR) + "/examples/models/";
  std::string generated = std::string(KILN_MODELS_DIR) + "/";
  return {{"mlp", examples + "mlp/model.onnx", {{"batch", 128}}},
          {"transformer_block", examples + "transformer_block/model.onnx", {{"seq_len", 128}}},
          {"bert_layer", generated + "bert_layer/model.onnx", {{"seq_len", 128}}},
          {"resnet_stage", examples + "resnet_stage/model.onnx", {}}};
}

json RunModel(const ModelSpec& spec, validate::TargetDevice& device,
              validate::TargetDevice* reference, const fs::path& work) {
  ir::model::ModelTaskOptions options;
  options.dims = spec.dims;
  options.keep_modules = true;
  ir::model::ModelTasks tasks =
      ir::model::ExtractModelTasks(spec.path, ReadFile(spec.path), options);
  const ir::relax::IRModule& module = tasks.buckets.at(0).module;
  std::vector<ir::HostTensor> inputs =
      validate::SeededInputs(validate::EntryParams(module, tasks.entry), 1);
  validate::ValidateOptions v;
  v.carve_dir = (work / spec.name).string();
  v.reference = reference;
  validate::ValidationReport first =
      validate::Validate(module, tasks.entry, spec.name, inputs, device, v);
  validate::ValidationReport second =
      validate::Validate(module, tasks.entry, spec.name, inputs, device, v);
  json j = {{"ok", first.ok() && second.ok()},
            {"calls", first.carve.calls.size()},
            {"carve_seconds", first.carve.seconds},
            {"replay_seconds", first.replay->seconds},
            {"offload_seconds", first.offload->seconds},
            {"offload_runs", first.offload->runs.size()},
            {"validate_seconds", first.seconds},
            {"validate_reusing_carve_seconds", second.seconds},
            {"carve_reused", second.carve_reused},
            {"stored_bytes", first.carve.stored_bytes},
            {"stored_tensors", first.carve.stored_tensors},
            {"referenced_bytes", first.carve.referenced_bytes}};
  std::printf(
      "%-18s %5zu calls  carve %7.1f s  replay %6.1f s  offload %6.1f s (%zu runs)  "
      "total %7.1f s, reusing the carve %6.1f s  carve %6.1f MB of %6.1f MB referenced  "
      "%s\n",
      spec.name.c_str(), first.carve.calls.size(), first.carve.seconds, first.replay->seconds,
      first.offload->seconds, first.offload->runs.size(), first.seconds, second.seconds,
      first.carve.stored_bytes / 1e6, first.carve.referenced_bytes / 1e6,
      first.ok() ? "ok" : "DISAGREES");
  std::fflush(stdout);
  return j;
}

int Main(int argc, char** argv) {
  CLI::App app{"bench_validate: the cost of validating each model on a device"};
  std::string target = "vulkan";
  std::string reference = "llvm";
  std::vector<std::string> models;
  bool as_json = false;
  app.add_option("--target", target, "the device's codegen target (vulkan, opencl, llvm, cuda)");
  app.add_option("--reference", reference, "llvm (the trusted CPU build) or interp");
  app.add_option("--models", models, "which models (default: all)")->delimiter(',');
  app.add_flag("--json", as_json, "print one JSON object on the last line");
  CLI11_PARSE(app, argc, argv);

  validate::TargetOptions device_options;
  device_options.target = target;
  validate::TargetDevice device(device_options);
  std::unique_ptr<validate::TargetDevice> trusted;
  if (reference == "llvm") {
    validate::TargetOptions t;
    t.loops_as_written = true;
    trusted = std::make_unique<validate::TargetDevice>(t);
  } else if (reference != "interp") {
    std::cerr << "bench_validate: --reference " << reference << ": llvm or interp expected\n";
    return 2;
  }
  fs::path work = fs::temp_directory_path() / ("kiln-bench-validate-" + std::to_string(getpid()));
  fs::create_directories(work);
  std::printf("device %s, reference %s\n", device.Describe().c_str(),
              trusted ? trusted->Describe().c_str() : "interpreter");
  json out = {{"device", device.Describe()}, {"reference", reference}};
  for (const ModelSpec& spec : AllModels()) {
    if (!models.empty() && std::find(models.begin(), models.end(), spec.name) == models.end()) {
      continue;
    }
    out[spec.name] = RunModel(spec, device, trusted.get(), work);
  }
  std::error_code ec;
  fs::remove_all(work, ec);
  if (as_json) std::cout << out.dump() << "\n";
  return 0;
}

}  // namespace
}  // namespace kiln::bench

int main(int argc, char** argv) {
  try {
    return kiln::bench::Main(argc, argv);
  } catch (const kiln::Error& e) {
    std::cerr << "bench_validate: " << e.what() << "\n";
    return 1;
  }
}
