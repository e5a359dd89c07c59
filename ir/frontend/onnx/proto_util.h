// Protobuf-facing helpers shared by the model reader and the TensorProto reader: decoding a
// TensorProto into a HostTensor with every size checked against the data present (so hostile
// input cannot make it allocate more than it holds), and reading a file into bytes. Internal
// to ir/frontend/onnx: the only header besides the generated one that includes protobuf types.
#pragma once

#include <string>
#include <string_view>

#include "ir/frontend/onnx/onnx_model.h"
#include "onnx/onnx_pb.h"  // defines ONNX_API, then includes onnx-ml.pb.h (ONNX_ML)

namespace kiln::ir::frontend::onnx {

// The tensor `proto`; `where` names it in messages ("model.onnx: initializer 'w'"). Throws
// kParse for inconsistent sizes or an unknown dtype, kUnsupported for external data, strings
// and complex numbers.
HostTensor DecodeTensor(const ::onnx::TensorProto& proto, const std::string& where);
// The same, keeping a failure in the result.
OnnxTensor DecodeTensorNoThrow(const ::onnx::TensorProto& proto, const std::string& where);

// The whole file; kIO naming it when it cannot be read. Files over 2 GiB are rejected (a
// serialized protobuf message cannot be larger).
std::string ReadFileBytes(const std::string& path, const char* what);

}  // namespace kiln::ir::frontend::onnx
