// ONNX element types and their Kiln dtypes; descriptions of nodes for messages.
#include "ir/frontend/onnx/onnx_model.h"

namespace kiln::ir::frontend::onnx {

std::string OnnxDTypeName(int32_t elem_type) {
  switch (elem_type) {
    case kOnnxUndefined:
      return "UNDEFINED";
    case kOnnxFloat:
      return "FLOAT";
    case kOnnxUInt8:
      return "UINT8";
    case kOnnxInt8:
      return "INT8";
    case kOnnxUInt16:
      return "UINT16";
    case kOnnxInt16:
      return "INT16";
    case kOnnxInt32:
      return "INT32";
    case kOnnxInt64:
      return "INT64";
    case kOnnxString:
      return "STRING";
    case kOnnxBool:
      return "BOOL";
    case kOnnxFloat16:
      return "FLOAT16";
    case kOnnxDouble:
      return "DOUBLE";
    case kOnnxUInt32:
      return "UINT32";
    case kOnnxUInt64:
      return "UINT64";
    case kOnnxComplex64:
      return "COMPLEX64";
    case kOnnxComplex128:
      return "COMPLEX128";
    case kOnnxBFloat16:
      return "BFLOAT16";
    case kOnnxFloat8E4M3FN:
      return "FLOAT8E4M3FN";
    case kOnnxFloat8E4M3FNUZ:
      return "FLOAT8E4M3FNUZ";
    case kOnnxFloat8E5M2:
      return "FLOAT8E5M2";
    case kOnnxFloat8E5M2FNUZ:
      return "FLOAT8E5M2FNUZ";
    case kOnnxUInt4:
      return "UINT4";
    case kOnnxInt4:
      return "INT4";
    case kOnnxFloat4E2M1:
      return "FLOAT4E2M1";
    case kOnnxFloat8E8M0:
      return "FLOAT8E8M0";
    case kOnnxUInt2:
      return "UINT2";
    case kOnnxInt2:
      return "INT2";
    case kOnnxFloat6E2M3:
      return "FLOAT6E2M3";
    case kOnnxFloat6E3M2:
      return "FLOAT6E3M2";
    default:
      return "<unknown dtype " + std::to_string(elem_type) + ">";
  }
}

bool IsOnnxDType(int32_t elem_type) {
  return elem_type > kOnnxUndefined && elem_type <= kOnnxFloat6E3M2;
}

std::optional<DataType> ToKilnDType(int32_t elem_type) {
  switch (elem_type) {
    case kOnnxFloat:
      return DataType::Float(32);
    case kOnnxUInt8:
      return DataType::UInt(8);
    case kOnnxInt8:
      return DataType::Int(8);
    case kOnnxUInt16:
      return DataType::UInt(16);
    case kOnnxInt16:
      return DataType::Int(16);
    case kOnnxInt32:
      return DataType::Int(32);
    case kOnnxInt64:
      return DataType::Int(64);
    case kOnnxBool:
      return DataType::Bool();
    case kOnnxFloat16:
      return DataType::Float(16);
    case kOnnxDouble:
      return DataType::Float(64);
    case kOnnxUInt32:
      return DataType::UInt(32);
    case kOnnxUInt64:
      return DataType::UInt(64);
    case kOnnxBFloat16:
      return DataType::BFloat16();
    default:
      return std::nullopt;
  }
}

int32_t ToOnnxDType(DataType dtype) {
  if (!dtype.is_scalar()) return kOnnxUndefined;
  for (int32_t t = kOnnxFloat; t <= kOnnxBFloat16; ++t) {
    if (auto d = ToKilnDType(t); d && *d == dtype) return t;
  }
  return kOnnxUndefined;
}

const char* OnnxTypeKindName(OnnxTypeKind kind) {
  switch (kind) {
    case OnnxTypeKind::kTensor:
      return "tensor";
    case OnnxTypeKind::kSequence:
      return "sequence";
    case OnnxTypeKind::kOptional:
      return "optional";
    case OnnxTypeKind::kMap:
      return "map";
    case OnnxTypeKind::kSparseTensor:
      return "sparse tensor";
    case OnnxTypeKind::kNone:
      return "value without a type";
  }
  return "?";
}

const char* OnnxAttributeTypeName(OnnxAttribute::Type type) {
  switch (type) {
    case OnnxAttribute::Type::kUndefined:
      return "undefined";
    case OnnxAttribute::Type::kFloat:
      return "float";
    case OnnxAttribute::Type::kInt:
      return "int";
    case OnnxAttribute::Type::kString:
      return "string";
    case OnnxAttribute::Type::kTensor:
      return "tensor";
    case OnnxAttribute::Type::kGraph:
      return "graph";
    case OnnxAttribute::Type::kFloats:
      return "floats";
    case OnnxAttribute::Type::kInts:
      return "ints";
    case OnnxAttribute::Type::kStrings:
      return "strings";
    case OnnxAttribute::Type::kOther:
      return "other";
  }
  return "?";
}

std::string OnnxNode::Describe() const {
  std::string text = "node " + std::to_string(index);
  if (!name.empty()) text += " '" + name + "'";
  text += " (" + (domain.empty() ? op_type : domain + "." + op_type) + ")";
  return text;
}

}  // namespace kiln::ir::frontend::onnx
