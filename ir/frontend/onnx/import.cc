// The public entry points of the ONNX front end: read the file, read the model, import the
// graph, and turn the collected issues into one error when the caller wants an exception.
#include "ir/frontend/onnx/import.h"

#include "ir/frontend/onnx/converter.h"
#include "ir/frontend/onnx/graph_importer.h"
#include "ir/frontend/onnx/model_reader.h"
#include "ir/frontend/onnx/proto_util.h"

namespace kiln::ir::frontend::onnx {

std::string OnnxIssue::ToString() const {
  if (node_index < 0) return reason;
  std::string text = "node " + std::to_string(node_index);
  if (!node_name.empty()) text += " '" + node_name + "'";
  return text + " (" + op_type + "): " + reason;
}

Error OnnxImportResult::ToError() const {
  KILN_CHECK(!ok(), ErrorKind::kInternal, "OnnxImportResult::ToError on a successful import");
  auto line = [&](const OnnxIssue& issue) {
    return issue.node_index < 0 ? issue.reason : source + ": " + issue.ToString();
  };
  if (!unsupported.empty()) {
    if (unsupported.size() == 1 && errors.empty()) {
      return Error(ErrorKind::kUnsupported, line(unsupported[0]));
    }
    std::string message = source + ": " + std::to_string(unsupported.size()) +
                          (unsupported.size() == 1 ? " part" : " parts") +
                          " of the model are not supported:";
    for (const OnnxIssue& issue : unsupported) message += "\n  " + issue.ToString();
    for (const OnnxIssue& issue : errors) message += "\n  error: " + issue.ToString();
    return Error(ErrorKind::kUnsupported, message);
  }
  if (!errors.empty()) return Error(errors[0].kind, line(errors[0]));
  return Error(ErrorKind::kInternal, source + ": the import failed without a reason");
}

OnnxImportResult TryImportOnnxBytes(std::string_view bytes, const std::string& source_name,
                                    const ImportOptions& options) {
  OnnxModel model;
  try {
    model = ReadOnnxModel(bytes, source_name);
  } catch (const Error& e) {
    OnnxImportResult result;
    result.source = source_name;
    OnnxIssue issue;
    issue.kind = e.kind();
    issue.reason = e.what();
    (e.kind() == ErrorKind::kUnsupported ? result.unsupported : result.errors).push_back(issue);
    return result;
  }
  return ImportModel(model, options);
}

OnnxImportResult TryImportOnnx(const std::string& path, const ImportOptions& options) {
  std::string bytes;
  try {
    bytes = ReadFileBytes(path, "ONNX model");
  } catch (const Error& e) {
    OnnxImportResult result;
    result.source = path;
    OnnxIssue issue;
    issue.kind = e.kind();
    issue.reason = e.what();
    (e.kind() == ErrorKind::kUnsupported ? result.unsupported : result.errors).push_back(issue);
    return result;
  }
  return TryImportOnnxBytes(bytes, path, options);
}

relax::IRModule ImportOnnxBytes(std::string_view bytes, const std::string& source_name,
                                const ImportOptions& options) {
  OnnxImportResult result = TryImportOnnxBytes(bytes, source_name, options);
  if (!result.ok()) throw result.ToError();
  return std::move(*result.module);
}

relax::IRModule ImportOnnx(const std::string& path, const ImportOptions& options) {
  return ImportOnnxBytes(ReadFileBytes(path, "ONNX model"), path, options);
}

std::vector<std::string> SupportedOnnxOps() { return ConverterTable::Global().OpTypes(); }

}  // namespace kiln::ir::frontend::onnx
