// Reading ONNX TensorProto files (the backend tests' input_0.pb and output_0.pb, initializers
// saved alone) into HostTensors: raw_data and the typed fields, every dtype Kiln has. External
// data, strings and complex numbers are rejected with a message naming the tensor. No
// protobuf header is needed to call this.
#pragma once

#include <string>
#include <string_view>

#include "ir/host_tensor.h"
#include "support/error.h"

namespace kiln::ir::frontend::onnx {

struct NamedTensor {
  std::string name;  // the TensorProto's name (often the graph input or output it is for)
  HostTensor value;
};

// Throws kIO when the file cannot be read, kParse when it is not a valid TensorProto (naming
// the file and what is wrong), kUnsupported for a dtype Kiln does not have.
NamedTensor ReadTensorProtoFile(const std::string& path);
NamedTensor ReadTensorProtoBytes(std::string_view bytes, const std::string& source_name);

// ONNX's backend test data (1.12) stores bfloat16 tensors as uint16 bit patterns; this views
// such a tensor as `dtype` (same element size, bits unchanged). Throws kType otherwise.
HostTensor BitcastTensor(const HostTensor& t, DataType dtype);

}  // namespace kiln::ir::frontend::onnx
