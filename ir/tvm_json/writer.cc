// Printing a graph built with GraphWriter in either of TVM's two JSON shapes.
#include "ir/tvm_json/writer.h"

#include <nlohmann/json.hpp>

#include "ir/tvm_json/ndarray.h"
#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

using Json = nlohmann::ordered_json;

std::string Dump(const Json& j, int indent) {
  return j.dump(indent, ' ', false, Json::error_handler_t::replace);
}

}  // namespace

WriterField WriterField::Ref(std::string name, int64_t node) {
  return {std::move(name), Kind::kRef, node, 0, ""};
}
WriterField WriterField::Int(std::string name, int64_t value) {
  return {std::move(name), Kind::kInt, value, 0, ""};
}
WriterField WriterField::Float(std::string name, double value) {
  return {std::move(name), Kind::kFloat, 0, value, ""};
}
WriterField WriterField::Bool(std::string name, bool value) {
  return {std::move(name), Kind::kBool, value ? 1 : 0, 0, ""};
}
WriterField WriterField::String(std::string name, std::string value) {
  return {std::move(name), Kind::kString, 0, 0, std::move(value)};
}
WriterField WriterField::BoxedInt(std::string name, int64_t value) {
  return {std::move(name), Kind::kBoxedInt, value, 0, ""};
}
WriterField WriterField::Tensor(std::string name, int64_t tensor_node) {
  return {std::move(name), Kind::kTensor, tensor_node, 0, ""};
}

int64_t GraphWriter::Add(Entry entry) {
  entries_.push_back(std::move(entry));
  return static_cast<int64_t>(entries_.size()) - 1;
}

int64_t GraphWriter::AddNull() { return Add(Entry{NodeKind::kNull}); }
int64_t GraphWriter::AddBool(bool value) {
  Entry e{NodeKind::kBool};
  e.bool_value = value;
  e.int_value = value ? 1 : 0;
  return Add(std::move(e));
}
int64_t GraphWriter::AddInt(int64_t value) {
  Entry e{NodeKind::kInt};
  e.int_value = value;
  return Add(std::move(e));
}
int64_t GraphWriter::AddFloat(double value) {
  Entry e{NodeKind::kFloat};
  e.float_value = value;
  return Add(std::move(e));
}
int64_t GraphWriter::AddString(std::string value) {
  Entry e{NodeKind::kString};
  e.string_value = std::move(value);
  return Add(std::move(e));
}
int64_t GraphWriter::AddArray(std::vector<int64_t> elements) {
  Entry e{NodeKind::kArray};
  e.elements = std::move(elements);
  return Add(std::move(e));
}
int64_t GraphWriter::AddMap(std::vector<std::pair<int64_t, int64_t>> entries) {
  Entry e{NodeKind::kMap};
  e.entries = std::move(entries);
  return Add(std::move(e));
}
int64_t GraphWriter::AddTensor(const HostTensor& tensor) {
  Entry e{NodeKind::kTensor};
  e.string_value = EncodeTensorBase64(tensor);
  return Add(std::move(e));
}
int64_t GraphWriter::AddObject(std::string type_key, std::vector<WriterField> fields,
                               std::string legacy_type_key) {
  Entry e{NodeKind::kObject};
  if (legacy_type_key.empty()) legacy_type_key = type_key;
  e.type_key = std::move(type_key);
  e.legacy_type_key = std::move(legacy_type_key);
  e.fields = std::move(fields);
  return Add(std::move(e));
}

int64_t GraphWriter::AddStringObject(std::string type_key, std::string value) {
  Entry e{NodeKind::kObject};
  e.legacy_type_key = type_key;
  e.type_key = std::move(type_key);
  e.string_value = std::move(value);
  e.string_payload = true;
  return Add(std::move(e));
}

std::string GraphWriter::Write(int64_t root, GraphFormat format, std::string_view tvm_version,
                               int indent) const {
  KILN_CHECK(root >= 0 && root < static_cast<int64_t>(entries_.size()), ErrorKind::kInternal,
             "GraphWriter::Write: root " + std::to_string(root) + " is not a node");
  for (const Entry& e : entries_) {
    auto check = [&](int64_t i) {
      KILN_CHECK(i >= 0 && i < static_cast<int64_t>(entries_.size()), ErrorKind::kInternal,
                 "GraphWriter::Write: reference to node " + std::to_string(i) + " out of range");
    };
    for (int64_t i : e.elements) check(i);
    for (auto [k, v] : e.entries) {
      check(k);
      check(v);
    }
    for (const WriterField& f : e.fields) {
      if (f.kind == WriterField::Kind::kRef || f.kind == WriterField::Kind::kTensor) {
        check(f.int_value);
      }
      KILN_CHECK(
          f.kind != WriterField::Kind::kTensor || entries_[f.int_value].kind == NodeKind::kTensor,
          ErrorKind::kInternal, "GraphWriter::Write: field " + f.name + " is no tensor");
    }
  }
  return format == GraphFormat::kFfi ? WriteFfi(root, tvm_version, indent)
                                     : WriteLegacy(root, tvm_version, indent);
}

std::string GraphWriter::WriteFfi(int64_t root, std::string_view tvm_version, int indent) const {
  Json nodes = Json::array();
  // Boxed integers become "int" nodes after the added ones.
  Json boxed = Json::array();
  int64_t next = static_cast<int64_t>(entries_.size());
  for (const Entry& e : entries_) {
    Json n;
    switch (e.kind) {
      case NodeKind::kNull:
        n["type"] = "None";
        break;
      case NodeKind::kBool:
        n["type"] = "bool";
        n["data"] = e.bool_value;
        break;
      case NodeKind::kInt:
        n["type"] = "int";
        n["data"] = e.int_value;
        break;
      case NodeKind::kFloat:
        n["type"] = "float";
        n["data"] = e.float_value;
        break;
      case NodeKind::kString:
        n["type"] = "ffi.String";
        n["data"] = e.string_value;
        break;
      case NodeKind::kArray:
      case NodeKind::kShape:
        n["type"] = e.kind == NodeKind::kArray ? "ffi.Array" : "ffi.Shape";
        n["data"] = e.elements;
        break;
      case NodeKind::kMap: {
        n["type"] = "ffi.Map";
        Json data = Json::array();
        for (auto [k, v] : e.entries) {
          data.push_back(k);
          data.push_back(v);
        }
        n["data"] = data;
        break;
      }
      case NodeKind::kTensor:
        n["type"] = "ffi.Tensor";
        n["data"] = e.string_value;
        break;
      case NodeKind::kObject: {
        n["type"] = e.type_key;
        if (e.string_payload) {
          n["data"] = e.string_value;
          break;
        }
        Json data = Json::object();
        for (const WriterField& f : e.fields) {
          switch (f.kind) {
            case WriterField::Kind::kRef:
            case WriterField::Kind::kInt:
            case WriterField::Kind::kTensor:
              data[f.name] = f.int_value;
              break;
            case WriterField::Kind::kFloat:
              data[f.name] = f.float_value;
              break;
            case WriterField::Kind::kBool:
              data[f.name] = f.int_value != 0;
              break;
            case WriterField::Kind::kString:
              data[f.name] = f.string_value;
              break;
            case WriterField::Kind::kBoxedInt:
              boxed.push_back(Json{{"type", "int"}, {"data", f.int_value}});
              data[f.name] = next++;
              break;
          }
        }
        n["data"] = data;
        break;
      }
    }
    nodes.push_back(std::move(n));
  }
  for (Json& b : boxed) nodes.push_back(std::move(b));
  Json doc;
  doc["root_index"] = root;
  doc["nodes"] = std::move(nodes);
  doc["metadata"] = Json{{"tvm_version", std::string(tvm_version)}};
  return Dump(doc, indent);
}

std::string GraphWriter::WriteLegacy(int64_t root, std::string_view tvm_version, int indent) const {
  // Node 0 is the null node; tensors live in b64ndarrays.
  std::vector<int64_t> index(entries_.size(), 0);
  std::vector<int64_t> tensor_index(entries_.size(), -1);
  Json b64 = Json::array();
  int64_t next = 1;
  for (size_t i = 0; i < entries_.size(); ++i) {
    if (entries_[i].kind == NodeKind::kNull) continue;
    if (entries_[i].kind == NodeKind::kTensor) {
      tensor_index[i] = static_cast<int64_t>(b64.size());
      b64.push_back(entries_[i].string_value);
      continue;
    }
    index[i] = next++;
  }
  auto text = [](int64_t v) { return std::to_string(v); };
  Json nodes = Json::array();
  nodes.push_back(Json{{"type_key", ""}});
  for (size_t i = 0; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    Json n;
    switch (e.kind) {
      case NodeKind::kNull:
      case NodeKind::kTensor:
        continue;
      case NodeKind::kBool:
        n = Json{{"type_key", "runtime.BoxBool"}, {"attrs", {{"value", text(e.int_value)}}}};
        break;
      case NodeKind::kInt:
        n = Json{{"type_key", "runtime.BoxInt"}, {"attrs", {{"value", text(e.int_value)}}}};
        break;
      case NodeKind::kFloat: {
        char buf[64];
        std::snprintf(buf, sizeof(buf), "%.17g", e.float_value);
        n = Json{{"type_key", "runtime.BoxFloat"}, {"attrs", {{"value", buf}}}};
        break;
      }
      case NodeKind::kString:
        n = Json{{"type_key", "runtime.String"}, {"repr_str", e.string_value}};
        break;
      case NodeKind::kArray:
      case NodeKind::kShape: {
        Json data = Json::array();
        for (int64_t el : e.elements) data.push_back(e.kind == NodeKind::kArray ? index[el] : el);
        n = Json{{"type_key", "Array"}, {"data", data}};
        break;
      }
      case NodeKind::kMap: {
        bool string_keys = true;
        for (auto [k, v] : e.entries) string_keys &= entries_[k].kind == NodeKind::kString;
        Json keys = Json::array(), data = Json::array();
        for (auto [k, v] : e.entries) {
          if (string_keys) {
            keys.push_back(entries_[k].string_value);
          } else {
            data.push_back(index[k]);
          }
          data.push_back(index[v]);
        }
        n = Json{{"type_key", "Map"}};
        if (string_keys) n["keys"] = keys;
        n["data"] = data;
        break;
      }
      case NodeKind::kObject: {
        if (e.string_payload) {
          // As the legacy graphs spell an Op: its registry name.
          n = Json{{"type_key", e.legacy_type_key}, {"global_key", e.string_value}};
          break;
        }
        Json attrs = Json::object();
        for (const WriterField& f : e.fields) {
          switch (f.kind) {
            case WriterField::Kind::kRef:
              attrs[f.name] = text(index[f.int_value]);
              break;
            case WriterField::Kind::kInt:
            case WriterField::Kind::kBoxedInt:
            case WriterField::Kind::kBool:
              attrs[f.name] = text(f.int_value);
              break;
            case WriterField::Kind::kFloat: {
              char buf[64];
              std::snprintf(buf, sizeof(buf), "%.17g", f.float_value);
              attrs[f.name] = buf;
              break;
            }
            case WriterField::Kind::kString:
              attrs[f.name] = f.string_value;
              break;
            case WriterField::Kind::kTensor:
              attrs[f.name] = text(tensor_index[f.int_value]);
              break;
          }
        }
        n = Json{{"type_key", e.legacy_type_key}, {"attrs", attrs}};
        break;
      }
    }
    nodes.push_back(std::move(n));
  }
  Json doc;
  doc["root"] = index[root];
  doc["nodes"] = std::move(nodes);
  doc["b64ndarrays"] = std::move(b64);
  doc["attrs"] = Json{{"tvm_version", std::string(tvm_version)}};
  return Dump(doc, indent);
}

}  // namespace kiln::ir::tvm_json
