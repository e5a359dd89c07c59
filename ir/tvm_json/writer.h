// Writing TVM's JSON object graph (see graph.h for both shapes): nodes are added bottom-up, each
// add returns the node's index, and Write prints the graph in the 0.24+ shape, which TVM 0.24 and
// later load, or in the legacy shape of TVM up to 0.23. Type keys of objects differ between
// versions ("ir.GenericConst" against "relax.expr.Constant"), so AddObject takes both.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/tvm_json/graph.h"

namespace kiln::ir::tvm_json {

// One field of an object, by how TVM's schema stores it (see the accessors of Graph).
struct WriterField {
  enum class Kind { kRef, kInt, kFloat, kBool, kString, kBoxedInt, kTensor };
  std::string name;
  Kind kind = Kind::kRef;
  int64_t int_value = 0;  // kRef and kTensor: the node index
  double float_value = 0;
  std::string string_value;

  static WriterField Ref(std::string name, int64_t node);
  static WriterField Int(std::string name, int64_t value);
  static WriterField Float(std::string name, double value);
  static WriterField Bool(std::string name, bool value);
  static WriterField String(std::string name, std::string value);
  static WriterField BoxedInt(std::string name, int64_t value);
  static WriterField Tensor(std::string name, int64_t tensor_node);
};

class GraphWriter {
 public:
  int64_t AddNull();
  int64_t AddBool(bool value);
  int64_t AddInt(int64_t value);
  int64_t AddFloat(double value);
  int64_t AddString(std::string value);
  int64_t AddArray(std::vector<int64_t> elements);
  int64_t AddMap(std::vector<std::pair<int64_t, int64_t>> entries);
  // Tensors are referenced by WriterField::Tensor only (legacy graphs keep them out of "nodes").
  int64_t AddTensor(const HostTensor& tensor);
  int64_t AddObject(std::string type_key, std::vector<WriterField> fields,
                    std::string legacy_type_key = "");
  // An object whose data is a string rather than fields ("ir.Op": the op's name).
  int64_t AddStringObject(std::string type_key, std::string value);

  // indent < 0: one line; otherwise pretty-printed with that many spaces, as TVM's printer does.
  std::string Write(int64_t root, GraphFormat format, std::string_view tvm_version,
                    int indent = -1) const;

 private:
  struct Entry {
    explicit Entry(NodeKind k) : kind(k) {}
    NodeKind kind;
    std::string type_key, legacy_type_key;
    bool bool_value = false;
    int64_t int_value = 0;
    double float_value = 0;
    std::string string_value;
    std::vector<int64_t> elements;
    std::vector<std::pair<int64_t, int64_t>> entries;
    std::vector<WriterField> fields;
    bool string_payload = false;  // kObject written as {"type": k, "data": string_value}
  };
  int64_t Add(Entry entry);
  std::string WriteFfi(int64_t root, std::string_view tvm_version, int indent) const;
  std::string WriteLegacy(int64_t root, std::string_view tvm_version, int indent) const;

  std::vector<Entry> entries_;
};

}  // namespace kiln::ir::tvm_json
