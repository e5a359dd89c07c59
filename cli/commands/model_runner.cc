// The artifact checked against this machine, then the executor.
#include "cli/commands/model_runner.h"

#include <set>

#include "runtime/measurer.h"
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

}  // namespace kiln::cli
