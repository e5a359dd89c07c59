// LoadModel: picks the front end by the file's extension.
#include "cli/commands/model_input.h"

#include <filesystem>

#include "cli/commands/command_util.h"
#include "ir/frontend/onnx/import.h"
#include "ir/relax/text/parser.h"
#include "support/error.h"

namespace kiln::cli {

ModelInput LoadModel(const std::string& path, const std::map<std::string, int64_t>& dims) {
  std::string extension = std::filesystem::path(path).extension().string();
  if (extension == ".onnx") {
    ir::frontend::onnx::ImportOptions options;
    options.dim_values = dims;
    return {ir::frontend::onnx::ImportOnnx(path, options), "onnx"};
  }
  if (extension == ".relax" || extension == ".py") {
    KILN_CHECK(dims.empty(), ErrorKind::kUnsupported,
          path + ": --dim binds ONNX dim_params; a Relax module keeps its symbolic dims");
    return {ir::relax::ParseModule(ReadFile(path), path), "relax"};
  }
  throw Error(ErrorKind::kParse, path + ": expected a model file ending in .onnx (ONNX) or " +
                                     ".relax / .py (Relax TVMScript), got '" + extension + "'");
}

}  // namespace kiln::cli
