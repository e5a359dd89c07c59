// Fuzzes the ONNX front end: any bytes must import or fail with kiln::Error (a malformed model,
// an unsupported op); a crash, a sanitizer report, a hang or another exception is a bug. The
// same bytes also go through the TensorProto reader, which the backend test runner uses.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "ir/frontend/onnx/import.h"
#include "ir/frontend/onnx/tensor_proto.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace onnx = kiln::ir::frontend::onnx;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  // TryImportOnnxBytes must not throw: it reports everything in its result.
  onnx::OnnxImportResult result = onnx::TryImportOnnxBytes(bytes, "<fuzz>.onnx");
  if (!result.ok()) (void)result.ToError();
  try {
    onnx::ReadTensorProtoBytes(bytes, "<fuzz>.pb");
  } catch (const kiln::Error&) {
  }
  return 0;
}
