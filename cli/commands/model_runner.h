// What `tune bench` and `tune infer` share: loading a model artifact for this machine (its
// target must be a CPU one and its device key this CPU's) into an executor, and binding the
// symbolic dims of its inputs or reading them from .npy files.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/model/executor.h"

namespace kiln::cli {

// Loads `path` for this CPU. kiln::Error(kUnsupported) for an artifact of another target,
// device or a newer format; kParse for a corrupted one; kIO for a missing one.
std::unique_ptr<runtime::model::Executor> LoadModelArtifact(const std::string& path, int threads);

// The concrete shape of each input: dims from `dims` (NAME=VALUE), the others `default_dim`
// (their names added to `defaulted`).
std::vector<std::vector<int64_t>> InputShapes(const runtime::model::Executor& executor,
                                              const std::map<std::string, int64_t>& dims,
                                              int64_t default_dim,
                                              std::vector<std::string>* defaulted);

// The model's inputs read from .npy files, one `--input NAME=FILE.npy` per input, in the
// executor's order. kiln::Error(kParse) naming the option for a malformed one, an unknown or
// repeated name, a missing input; kIO/kParse from the .npy reader.
std::vector<ir::HostTensor> ReadInputFiles(const runtime::model::Executor& executor,
                                           const std::vector<std::string>& options);

}  // namespace kiln::cli
