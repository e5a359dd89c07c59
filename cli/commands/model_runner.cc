// The artifact checked against this machine, then the executor.
#include "cli/commands/model_runner.h"

#include <set>

#include "runtime/measurer.h"
#include "runtime/model/npy.h"
#include "support/error.h"
#include "worker/device_key.h"

namespace kiln::cli {

std::unique_ptr<runtime::model::Executor> LoadModelArtifact(const std::string& path, int threads) {
  runtime::model::LoadOptions load;
  load.device_key = worker::DetectCpuDeviceKey();
  runtime::model::Artifact artifact = runtime::model::LoadArtifact(path, load);
  std::string kind;
  try {
    kind = runtime::DeviceKindOfTarget(artifact.manifest.target);
  } catch (const Error&) {
  }
  KILN_CHECK(kind == "cpu", ErrorKind::kUnsupported,
             path + " was compiled for target '" + artifact.manifest.target +
                 "'; this executor runs CPU targets (llvm, c)");
  runtime::model::ExecutorOptions options;
  options.threads = threads;
  return std::make_unique<runtime::model::Executor>(std::move(artifact), options);
}

std::vector<std::vector<int64_t>> InputShapes(const runtime::model::Executor& executor,
                                              const std::map<std::string, int64_t>& dims,
                                              int64_t default_dim,
                                              std::vector<std::string>* defaulted) {
  runtime::model::DimEnv env(dims.begin(), dims.end());
  for (const std::string& dim : executor.artifact().graph.dims) {
    if (env.count(dim)) continue;
    env[dim] = default_dim;
    if (defaulted) defaulted->push_back(dim);
  }
  std::vector<std::vector<int64_t>> shapes;
  for (const runtime::model::InputInfo& input : executor.inputs()) {
    std::vector<int64_t> shape;
    for (const runtime::model::DimExpr& d : input.shape) {
      shape.push_back(runtime::model::EvaluateDim(d, env));
    }
    shapes.push_back(shape);
  }
  return shapes;
}

std::vector<ir::HostTensor> ReadInputFiles(const runtime::model::Executor& executor,
                                           const std::vector<std::string>& options) {
  std::vector<runtime::model::InputInfo> infos = executor.inputs();
  std::string names;
  for (const auto& info : infos) names += (names.empty() ? "" : ", ") + info.name;
  std::map<std::string, std::string> files;
  for (const std::string& option : options) {
    size_t eq = option.find('=');
    KILN_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < option.size(), ErrorKind::kParse,
               "--input " + option + ": NAME=FILE.npy expected");
    std::string name = option.substr(0, eq);
    bool known = false;
    for (const auto& info : infos) known = known || info.name == name;
    KILN_CHECK(
        known, ErrorKind::kParse,
        "--input " + option + ": the model has no input " + name + " (its inputs: " + names + ")");
    KILN_CHECK(files.emplace(name, option.substr(eq + 1)).second, ErrorKind::kParse,
               "--input " + name + " given twice");
  }
  std::vector<ir::HostTensor> inputs;
  for (const auto& info : infos) {
    auto it = files.find(info.name);
    KILN_CHECK(
        it != files.end(), ErrorKind::kParse,
        "no --input for the model's input " + info.name + " (" + info.dtype.ToString() + ")");
    inputs.push_back(runtime::model::ReadNpy(it->second));
  }
  return inputs;
}

}  // namespace kiln::cli
