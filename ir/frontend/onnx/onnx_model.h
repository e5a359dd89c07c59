// An ONNX model as plain Kiln structs: the graph's nodes, attributes, value types and
// initializers, read once from the protobuf ModelProto (model_reader.cc). The converters and
// the graph importer work on these, so only the reader and the TensorProto decoder include
// protobuf headers. Internal to ir/frontend/onnx.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "support/error.h"

namespace kiln::ir::frontend::onnx {

// TensorProto.DataType numbers, fixed by the ONNX specification.
enum OnnxDType : int32_t {
  kOnnxUndefined = 0,
  kOnnxFloat = 1,
  kOnnxUInt8 = 2,
  kOnnxInt8 = 3,
  kOnnxUInt16 = 4,
  kOnnxInt16 = 5,
  kOnnxInt32 = 6,
  kOnnxInt64 = 7,
  kOnnxString = 8,
  kOnnxBool = 9,
  kOnnxFloat16 = 10,
  kOnnxDouble = 11,
  kOnnxUInt32 = 12,
  kOnnxUInt64 = 13,
  kOnnxComplex64 = 14,
  kOnnxComplex128 = 15,
  kOnnxBFloat16 = 16,
  // Types of opsets 19 and later (float8, 4-, 2- and 6-bit types): ONNX dtypes that Kiln has
  // no DataType for, so a tensor of one is unsupported rather than malformed.
  kOnnxFloat8E4M3FN = 17,
  kOnnxFloat8E4M3FNUZ = 18,
  kOnnxFloat8E5M2 = 19,
  kOnnxFloat8E5M2FNUZ = 20,
  kOnnxUInt4 = 21,
  kOnnxInt4 = 22,
  kOnnxFloat4E2M1 = 23,
  kOnnxFloat8E8M0 = 24,
  kOnnxUInt2 = 25,
  kOnnxInt2 = 26,
  kOnnxFloat6E2M3 = 27,
  kOnnxFloat6E3M2 = 28,
};

// "FLOAT", "INT64", ..., or "<unknown dtype 42>".
std::string OnnxDTypeName(int32_t elem_type);
// True for a dtype ONNX defines (whether Kiln supports it or not).
bool IsOnnxDType(int32_t elem_type);
// The Kiln dtype of an ONNX element type; nullopt for strings, complex numbers and unknown
// numbers.
std::optional<DataType> ToKilnDType(int32_t elem_type);
// The ONNX element type of a Kiln dtype (kOnnxUndefined when there is none).
int32_t ToOnnxDType(DataType dtype);

// One dim of a declared tensor type: a number, a named parameter, or neither (unknown; a dim
// written as -1 reads as unknown too).
struct OnnxDim {
  std::optional<int64_t> value;
  std::string param;
};

enum class OnnxTypeKind : uint8_t { kTensor, kSequence, kOptional, kMap, kSparseTensor, kNone };
const char* OnnxTypeKindName(OnnxTypeKind kind);

// A graph input or output: its name and declared type.
struct OnnxValueInfo {
  std::string name;
  OnnxTypeKind kind = OnnxTypeKind::kNone;
  int32_t elem_type = kOnnxUndefined;
  std::optional<std::vector<OnnxDim>> shape;  // nullopt: rank unknown
};

// A tensor read from a TensorProto, or why it could not be read (kept so that a node whose
// attribute holds a bad tensor is reported as that node's problem).
struct OnnxTensor {
  std::string name;
  std::optional<HostTensor> value;
  ErrorKind error_kind = ErrorKind::kParse;
  std::string error;
};

struct OnnxAttribute {
  enum class Type : uint8_t {
    kUndefined,
    kFloat,
    kInt,
    kString,
    kTensor,
    kGraph,
    kFloats,
    kInts,
    kStrings,
    kOther,  // tensors, graphs, sparse tensors, type protos: never used by supported ops
  };
  std::string name;
  Type type = Type::kUndefined;
  float f = 0;
  int64_t i = 0;
  std::string s;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::optional<OnnxTensor> tensor;
  std::string ref_attr_name;  // set inside function bodies only
};
const char* OnnxAttributeTypeName(OnnxAttribute::Type type);

struct OnnxNode {
  int index = 0;  // position in the graph's node list
  std::string name;
  std::string op_type;
  std::string domain;                // "" for the default ai.onnx domain
  std::vector<std::string> inputs;   // "" for an omitted optional input
  std::vector<std::string> outputs;  // "" for an omitted optional output
  std::vector<OnnxAttribute> attributes;

  // "node 3 'conv1' (Conv)", or "node 3 (Conv)" when the node has no name.
  std::string Describe() const;
};

struct OnnxModel {
  std::string source;  // the file name or the name given with the bytes, for messages
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain ("" for ai.onnx) -> version
  std::string producer;
  std::string graph_name;
  std::vector<OnnxNode> nodes;
  std::vector<OnnxValueInfo> inputs;
  std::vector<OnnxValueInfo> outputs;
  std::vector<OnnxTensor> initializers;
  std::vector<std::string> sparse_initializers;  // names; not supported
  std::vector<std::string> local_functions;      // "domain:name" of model-local functions
};

}  // namespace kiln::ir::frontend::onnx
