// LoadModel: picks the front end by the file's extension; ChooseEntryFunction: the model's entry.
#include "ir/model/model_file.h"

#include <filesystem>

#include "ir/frontend/onnx/import.h"
#include "ir/relax/text/parser.h"
#include "support/error.h"
#include "support/file.h"

namespace kiln::ir::model {

std::string ModelFormatOf(const std::string& name) {
  std::string extension = std::filesystem::path(name).extension().string();
  if (extension == ".onnx") return "onnx";
  if (extension == ".relax" || extension == ".py") return "relax";
  throw Error(ErrorKind::kParse, name + ": expected a model file ending in .onnx (ONNX) or " +
                                     ".relax / .py (Relax TVMScript), got '" + extension + "'");
}

namespace {

ModelInput Load(const std::string& name, const std::string* bytes,
                const std::map<std::string, int64_t>& dims) {
  std::string format = ModelFormatOf(name);
  if (format == "onnx") {
    frontend::onnx::ImportOptions options;
    options.dim_values = dims;
    return {bytes ? frontend::onnx::ImportOnnxBytes(*bytes, name, options)
                  : frontend::onnx::ImportOnnx(name, options),
            format, ""};
  }
  KILN_CHECK(dims.empty(), ErrorKind::kUnsupported,
             name + ": --dim binds ONNX dim_params; a Relax module keeps its symbolic dims");
  return {relax::ParseModule(bytes ? *bytes : ReadFile(name), name), format, ""};
}

}  // namespace

std::string ChooseEntryFunction(const relax::IRModule& module, const std::string& requested,
                                const std::string& source) {
  std::vector<std::string> relax_functions, public_functions;
  for (const std::string& name : module.names()) {
    const relax::Function* f = module.LookupFunction(name);
    if (f == nullptr) continue;
    relax_functions.push_back(name);
    if ((*f)->attrs.Has("global_symbol")) public_functions.push_back(name);
  }
  auto listing = [&] {
    std::string out;
    for (const std::string& name : relax_functions) {
      const relax::Function* f = module.LookupFunction(name);
      out += (out.empty() ? "" : ", ") + name +
             ((*f)->attrs.Has("global_symbol") ? std::string() : std::string(" (private)"));
    }
    return out.empty() ? std::string("none") : out;
  };
  if (!requested.empty()) {
    KILN_CHECK(module.LookupFunction(requested) != nullptr, ErrorKind::kInvalidIR,
               source + ": --func " + requested + ": the module has no Relax function '" +
                   requested + "' (its Relax functions: " + listing() + ")");
    return requested;
  }
  if (public_functions.size() == 1) return public_functions[0];
  for (const std::string& name : public_functions) {
    if (name == "main") return name;
  }
  throw Error(ErrorKind::kInvalidIR,
              source + ": " +
                  (public_functions.empty() ? "no public Relax function"
                                            : std::to_string(public_functions.size()) +
                                                  " public Relax functions and none named main") +
                  ": name the model's entry with --func NAME (the module's Relax functions: " +
                  listing() + ")");
}

ModelInput LoadModel(const std::string& path, const std::map<std::string, int64_t>& dims,
                     const std::string& func) {
  ModelInput input = Load(path, nullptr, dims);
  input.entry = ChooseEntryFunction(input.module, func, path);
  return input;
}

ModelInput LoadModelBytes(const std::string& name, const std::string& bytes,
                          const std::map<std::string, int64_t>& dims, const std::string& func) {
  ModelInput input = Load(name, &bytes, dims);
  input.entry = ChooseEntryFunction(input.module, func, name);
  return input;
}

}  // namespace kiln::ir::model
