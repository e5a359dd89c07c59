// Reading TVM's JSON object graph, as tvm.ir.save_json writes it and tvm.ir.load_json reads it
// (also the text inside `metadata = tvm.ir.load_json("""...""")` of printed modules).
//
// Two shapes exist:
//   legacy (TVM up to 0.23): {"root": i, "nodes": [{"type_key": k, "attrs": {name: "text"}} |
//       {"type_key": "Array", "data": [i...]} | {"type_key": "Map", "keys": [...], "data": [...]}
//       | {"type_key": "runtime.String", "repr_str": s} ...], "b64ndarrays": [base64...],
//       "attrs": {"tvm_version": v}}. Every attr value is a string: a node index, a number, a
//       dtype, or an index into b64ndarrays, depending on the field. Node 0 is null.
//   ffi (TVM 0.24+): {"root_index": i, "nodes": [{"type": k, "data": d}], "metadata":
//       {"tvm_version": v}}. Containers and boxed scalars are nodes ("ffi.Array", "ffi.Map",
//       "int", "ffi.String", "ffi.Tensor" with base64 data); an object's data maps field names
//       to inline values (fields TVM declares bool, int, float or dtype) or node indices.
//
// Graph::Parse reads either into one model: nodes walked by index, each with a NodeKind for the
// containers and scalars, and typed field accessors for objects. Which fields are references
// and which are inline values is TVM's schema, not written in the file, so the caller says what
// it expects by the accessor it uses; the accessor checks and names node, type and field when the
// file disagrees. Legacy map keys and b64ndarrays become extra nodes after the file's own, so
// both shapes are walked alike.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/host_tensor.h"

namespace kiln::ir::tvm_json {

enum class GraphFormat { kLegacy, kFfi };

enum class NodeKind {
  kNull,    // "None" / legacy ""
  kBool,    // "bool" / runtime.BoxBool
  kInt,     // "int" / runtime.BoxInt
  kFloat,   // "float" / runtime.BoxFloat
  kString,  // "ffi.String", "DataType", "ffi.Bytes" (decoded) / runtime.String
  kArray,   // "ffi.Array", "ffi.List" / Array: elements are node indices
  kMap,     // "ffi.Map", "ffi.Dict" / Map: entries are (key, value) node indices
  kShape,   // "ffi.Shape", "Device": inline integers
  kTensor,  // "ffi.Tensor" / an entry of b64ndarrays: base64 of TVM's tensor record
  kObject,  // everything else: fields by name (or a string payload, as "ir.Op")
};

// An inline value as written in the file.
struct FieldValue {
  enum class Kind { kNull, kBool, kInt, kFloat, kString, kOther };
  Kind kind = Kind::kNull;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  std::string string_value;  // kString; kOther holds the JSON text
};

struct Node {
  std::string type_key;  // as written ("" for legacy null)
  NodeKind kind = NodeKind::kObject;
  bool bool_value = false;
  int64_t int_value = 0;
  double float_value = 0;
  // kString: the string; kTensor: the base64 record; kObject: a string payload ("ir.Op" name,
  // legacy repr_str or global_key), else empty.
  std::string string_value;
  std::vector<int64_t> elements;                           // kArray (node indices), kShape (values)
  std::vector<std::pair<int64_t, int64_t>> entries;        // kMap
  std::vector<std::pair<std::string, FieldValue>> fields;  // kObject, in file order
};

class Graph {
 public:
  // Throws kiln::Error (kParse) naming `source` and, for a malformed node, its index and field.
  static Graph Parse(std::string_view json_text, std::string_view source = "TVM JSON graph");

  GraphFormat format() const { return format_; }
  const std::string& tvm_version() const { return tvm_version_; }
  const std::string& source() const { return source_; }
  int64_t root() const { return root_; }
  // Nodes of the file, then the synthesized ones (legacy map keys and b64ndarrays).
  int64_t size() const { return static_cast<int64_t>(nodes_.size()); }
  const Node& node(int64_t index) const;
  bool IsNull(int64_t index) const { return node(index).kind == NodeKind::kNull; }

  // Values of whole nodes. IntValue also reads IntImm objects ("ir.IntImm", legacy "IntImm")
  // and FloatValue FloatImm ones; StringValue reads kString nodes and string payloads.
  int64_t IntValue(int64_t index) const;
  double FloatValue(int64_t index) const;
  bool BoolValue(int64_t index) const;
  const std::string& StringValue(int64_t index) const;
  const std::vector<int64_t>& Elements(int64_t index) const;                     // kArray
  const std::vector<std::pair<int64_t, int64_t>>& Entries(int64_t index) const;  // kMap
  // The value of the entry whose key is the string `key`, or -1.
  int64_t Lookup(int64_t map_index, std::string_view key) const;
  HostTensor TensorValue(int64_t index) const;  // kTensor, decoded

  // Fields of object nodes, by what TVM's schema declares them to be.
  bool HasField(int64_t index, std::string_view field) const;
  // A reference to another node (checked to be a node index).
  int64_t Ref(int64_t index, std::string_view field) const;
  // An inline value (legacy: its decimal or text form).
  int64_t Int(int64_t index, std::string_view field) const;
  double Float(int64_t index, std::string_view field) const;
  bool Bool(int64_t index, std::string_view field) const;
  const std::string& Str(int64_t index, std::string_view field) const;
  // An integer TVM stores boxed: a reference to an "int" or "bool" node in the ffi shape, inline
  // in the legacy one (IntImm's value).
  int64_t BoxedInt(int64_t index, std::string_view field) const;
  // A tensor field: a reference to an "ffi.Tensor" node, or a b64ndarrays index (legacy). The
  // node index of the tensor; TensorValue decodes it.
  int64_t TensorRef(int64_t index, std::string_view field) const;

  // "<source>: node 5 (ir.IntImm)": the start of every error message about a node.
  std::string Where(int64_t index) const;

 private:
  const FieldValue& Field(int64_t index, std::string_view field) const;
  int64_t CheckIndex(int64_t target, int64_t from, std::string_view field) const;

  GraphFormat format_ = GraphFormat::kFfi;
  std::string source_;
  std::string tvm_version_;
  int64_t root_ = 0;
  int64_t file_nodes_ = 0;
  int64_t first_b64_node_ = 0;  // legacy: node index of b64ndarrays[0]
  int64_t num_b64_ = 0;
  std::vector<Node> nodes_;
};

}  // namespace kiln::ir::tvm_json
