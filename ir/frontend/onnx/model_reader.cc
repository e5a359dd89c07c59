// ModelProto -> OnnxModel, with the structural checks that need no op semantics.
#include "ir/frontend/onnx/model_reader.h"

#include <limits>
#include <set>

#include "ir/frontend/onnx/proto_util.h"

namespace kiln::ir::frontend::onnx {

namespace {

namespace pb = ::onnx;

// Larger dims are not meaningful and would overflow shape arithmetic.
constexpr int64_t kMaxDim = int64_t{1} << 40;

[[noreturn]] void Fail(const std::string& source, const std::string& message) {
  throw Error(ErrorKind::kParse, source + ": " + message);
}

OnnxValueInfo ReadValueInfo(const pb::ValueInfoProto& proto, const std::string& source,
                            const char* what) {
  OnnxValueInfo info;
  info.name = proto.name();
  if (info.name.empty()) Fail(source, std::string(what) + " without a name");
  if (!proto.has_type()) return info;
  const pb::TypeProto& type = proto.type();
  switch (type.value_case()) {
    case pb::TypeProto::kTensorType: {
      info.kind = OnnxTypeKind::kTensor;
      const pb::TypeProto::Tensor& t = type.tensor_type();
      info.elem_type = t.elem_type();
      if (!t.has_shape()) break;
      std::vector<OnnxDim> dims;
      for (int i = 0; i < t.shape().dim_size(); ++i) {
        const pb::TensorShapeProto::Dimension& d = t.shape().dim(i);
        OnnxDim dim;
        if (d.has_dim_value() && d.dim_value() == -1) {
          // Exporters (PaddlePaddle, old tf2onnx) write -1 for a dim they do not know: an
          // unknown dim, as if it had no value.
        } else if (d.has_dim_value()) {
          if (d.dim_value() < 0) {
            Fail(source, std::string(what) + " '" + info.name + "': dim " + std::to_string(i) +
                             " is negative (" + std::to_string(d.dim_value()) + ")");
          }
          if (d.dim_value() > kMaxDim) {
            throw Error(ErrorKind::kUnsupported, source + ": " + what + " '" + info.name +
                                                     "': dim " + std::to_string(i) + " is " +
                                                     std::to_string(d.dim_value()) +
                                                     ", larger than Kiln supports (2^40)");
          }
          dim.value = d.dim_value();
        } else if (d.has_dim_param()) {
          dim.param = d.dim_param();
        }
        dims.push_back(std::move(dim));
      }
      info.shape = std::move(dims);
      break;
    }
    case pb::TypeProto::kSequenceType:
      info.kind = OnnxTypeKind::kSequence;
      break;
    case pb::TypeProto::kOptionalType:
      info.kind = OnnxTypeKind::kOptional;
      break;
    case pb::TypeProto::kMapType:
      info.kind = OnnxTypeKind::kMap;
      break;
    case pb::TypeProto::kSparseTensorType:
      info.kind = OnnxTypeKind::kSparseTensor;
      break;
    default:
      info.kind = OnnxTypeKind::kNone;
      break;
  }
  return info;
}

// The attribute's type: the declared one, or for old models that leave it UNDEFINED the one
// field that is set.
OnnxAttribute::Type AttributeType(const pb::AttributeProto& a) {
  using T = OnnxAttribute::Type;
  switch (a.type()) {
    case pb::AttributeProto::FLOAT:
      return T::kFloat;
    case pb::AttributeProto::INT:
      return T::kInt;
    case pb::AttributeProto::STRING:
      return T::kString;
    case pb::AttributeProto::TENSOR:
      return T::kTensor;
    case pb::AttributeProto::GRAPH:
      return T::kGraph;
    case pb::AttributeProto::FLOATS:
      return T::kFloats;
    case pb::AttributeProto::INTS:
      return T::kInts;
    case pb::AttributeProto::STRINGS:
      return T::kStrings;
    case pb::AttributeProto::UNDEFINED:
      break;
    default:
      return T::kOther;
  }
  if (a.has_f()) return T::kFloat;
  if (a.has_i()) return T::kInt;
  if (a.has_s()) return T::kString;
  if (a.has_t()) return T::kTensor;
  if (a.has_g()) return T::kGraph;
  if (a.floats_size() > 0) return T::kFloats;
  if (a.ints_size() > 0) return T::kInts;
  if (a.strings_size() > 0) return T::kStrings;
  return T::kUndefined;
}

OnnxAttribute ReadAttribute(const pb::AttributeProto& proto, const std::string& where) {
  OnnxAttribute a;
  a.name = proto.name();
  a.ref_attr_name = proto.ref_attr_name();
  a.type = AttributeType(proto);
  switch (a.type) {
    case OnnxAttribute::Type::kFloat:
      a.f = proto.f();
      break;
    case OnnxAttribute::Type::kInt:
      a.i = proto.i();
      break;
    case OnnxAttribute::Type::kString:
      a.s = proto.s();
      break;
    case OnnxAttribute::Type::kFloats:
      a.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case OnnxAttribute::Type::kInts:
      a.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case OnnxAttribute::Type::kStrings:
      a.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    case OnnxAttribute::Type::kTensor:
      a.tensor = DecodeTensorNoThrow(proto.t(), where + ": attribute '" + a.name + "'");
      break;
    default:
      break;
  }
  return a;
}

OnnxNode ReadNode(const pb::NodeProto& proto, int index, const std::string& source) {
  OnnxNode node;
  node.index = index;
  node.name = proto.name();
  node.op_type = proto.op_type();
  node.domain = proto.domain() == "ai.onnx" ? "" : proto.domain();
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  std::string where = source + ": " + node.Describe();
  if (node.op_type.empty()) Fail(source, node.Describe() + " has no op_type");
  std::set<std::string> names;
  for (const pb::AttributeProto& a : proto.attribute()) {
    if (a.name().empty()) Fail(source, node.Describe() + " has an attribute without a name");
    if (!names.insert(a.name()).second) {
      Fail(source, node.Describe() + " has attribute '" + a.name() + "' twice");
    }
    node.attributes.push_back(ReadAttribute(a, where));
  }
  return node;
}

}  // namespace

OnnxModel ReadOnnxModel(std::string_view bytes, const std::string& source) {
  pb::ModelProto proto;
  if (bytes.empty()) Fail(source, "the file is empty, not an ONNX model");
  if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
      !proto.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    Fail(source, "not a valid ONNX model: the protobuf message is truncated or corrupt");
  }
  if (!proto.has_graph()) {
    Fail(source, "not a valid ONNX model: it has no graph (is it an ONNX file?)");
  }
  if (proto.ir_version() <= 0) {
    Fail(source, "not a valid ONNX model: ir_version is missing or not positive");
  }
  OnnxModel model;
  model.source = source;
  model.ir_version = proto.ir_version();
  model.producer = proto.producer_name();
  for (const pb::OperatorSetIdProto& opset : proto.opset_import()) {
    std::string domain = opset.domain() == "ai.onnx" ? "" : opset.domain();
    std::string shown = domain.empty() ? "ai.onnx" : domain;
    if (opset.version() < 1) {
      Fail(source, "opset_import: version " + std::to_string(opset.version()) + " of " + shown +
                       " is out of range (versions start at 1)");
    }
    if (!model.opsets.emplace(domain, opset.version()).second) {
      Fail(source, "opset_import lists " + shown + " twice");
    }
  }
  for (const pb::FunctionProto& f : proto.functions()) {
    model.local_functions.push_back(f.domain() + ":" + f.name());
  }

  const pb::GraphProto& graph = proto.graph();
  model.graph_name = graph.name();
  std::set<std::string> input_names;
  for (const pb::ValueInfoProto& v : graph.input()) {
    model.inputs.push_back(ReadValueInfo(v, source, "graph input"));
    if (!input_names.insert(v.name()).second) {
      Fail(source, "graph input '" + v.name() + "' is declared twice");
    }
  }
  for (const pb::ValueInfoProto& v : graph.output()) {
    model.outputs.push_back(ReadValueInfo(v, source, "graph output"));
  }
  std::set<std::string> init_names;
  for (const pb::TensorProto& t : graph.initializer()) {
    if (t.name().empty()) Fail(source, "an initializer has no name");
    if (!init_names.insert(t.name()).second) {
      Fail(source, "initializer '" + t.name() + "' is given twice");
    }
    model.initializers.push_back(
        DecodeTensorNoThrow(t, source + ": initializer '" + t.name() + "'"));
  }
  for (const pb::SparseTensorProto& t : graph.sparse_initializer()) {
    model.sparse_initializers.push_back(t.values().name());
  }
  for (int i = 0; i < graph.node_size(); ++i) {
    model.nodes.push_back(ReadNode(graph.node(i), i, source));
  }
  return model;
}

}  // namespace kiln::ir::frontend::onnx
