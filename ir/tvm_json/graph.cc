// Parsing both shapes of TVM's JSON object graph into one node table, and the typed accessors.
#include "ir/tvm_json/graph.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "ir/tvm_json/base64.h"
#include "ir/tvm_json/ndarray.h"
#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

using Json = nlohmann::json;

std::string Quote(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string Describe(const Json& j) {
  std::string text = j.dump();
  if (text.size() > 40) text = text.substr(0, 37) + "...";
  return text;
}

FieldValue ToFieldValue(const Json& j) {
  FieldValue v;
  if (j.is_null()) {
    v.kind = FieldValue::Kind::kNull;
  } else if (j.is_boolean()) {
    v.kind = FieldValue::Kind::kBool;
    v.bool_value = j.get<bool>();
  } else if (j.is_number_integer()) {
    v.kind = FieldValue::Kind::kInt;
    // An unsigned value above int64's range is no node index and no TVM integer field.
    if (j.is_number_unsigned() && j.get<uint64_t>() > uint64_t{INT64_MAX}) {
      v.kind = FieldValue::Kind::kOther;
      v.string_value = j.dump();
    } else {
      v.int_value = j.get<int64_t>();
    }
  } else if (j.is_number_float()) {
    v.kind = FieldValue::Kind::kFloat;
    v.float_value = j.get<double>();
  } else if (j.is_string()) {
    v.kind = FieldValue::Kind::kString;
    v.string_value = j.get<std::string>();
  } else {
    v.kind = FieldValue::Kind::kOther;
    v.string_value = j.dump();
  }
  return v;
}

bool ParseInt(std::string_view text, int64_t* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

bool ParseDouble(std::string_view text, double* out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, *out);
  return ec == std::errc() && ptr == end && !text.empty();
}

class Builder {
 public:
  Builder(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void Fail(int64_t index, const std::string& what) const {
    throw Error(ErrorKind::kParse, source_ + ": node " + std::to_string(index) + ": " + what);
  }

  // An integer element of a "data" list.
  int64_t IndexAt(const Json& j, int64_t index, std::string_view where) const {
    if (j.is_number_integer() && !(j.is_number_unsigned() && j.get<uint64_t>() > INT64_MAX)) {
      return j.get<int64_t>();
    }
    if (j.is_string()) {
      int64_t v = 0;
      if (ParseInt(j.get<std::string>(), &v)) return v;
    }
    Fail(index, std::string(where) + ": expected an integer, got " + Describe(j));
  }

  const Json& Member(const Json& node, int64_t index, const char* key, bool (Json::*is)() const,
                     const char* expected) const {
    auto it = node.find(key);
    if (it == node.end()) Fail(index, std::string("missing ") + Quote(key));
    if (!((*it).*is)()) {
      Fail(index, Quote(key) + " must be " + expected + ", got " + Describe(*it));
    }
    return *it;
  }

  void ReadFfiNode(const Json& j, int64_t index, Node& n) const {
    if (!j.is_object()) Fail(index, "expected an object, got " + Describe(j));
    n.type_key = Member(j, index, "type", &Json::is_string, "a string").get<std::string>();
    const std::string& t = n.type_key;
    auto data = j.find("data");
    auto need = [&](bool (Json::*is)() const, const char* expected) -> const Json& {
      return Member(j, index, "data", is, expected);
    };
    if (t == "None") {
      n.kind = NodeKind::kNull;
    } else if (t == "bool") {
      n.kind = NodeKind::kBool;
      const Json& d = need(&Json::is_primitive, "a boolean");
      if (d.is_boolean()) {
        n.bool_value = d.get<bool>();
      } else {
        n.bool_value = IndexAt(d, index, "\"data\"") != 0;
      }
      n.int_value = n.bool_value;
    } else if (t == "int") {
      n.kind = NodeKind::kInt;
      n.int_value = IndexAt(need(&Json::is_number_integer, "an integer"), index, "\"data\"");
      n.float_value = static_cast<double>(n.int_value);
    } else if (t == "float") {
      n.kind = NodeKind::kFloat;
      n.float_value = need(&Json::is_number, "a number").get<double>();
    } else if (t == "ffi.String" || t == "DataType") {
      n.kind = NodeKind::kString;
      n.string_value = need(&Json::is_string, "a string").get<std::string>();
    } else if (t == "ffi.Bytes") {
      n.kind = NodeKind::kString;
      std::vector<uint8_t> bytes =
          Base64Decode(need(&Json::is_string, "a string").get<std::string>(),
                       source_ + ": node " + std::to_string(index));
      n.string_value.assign(bytes.begin(), bytes.end());
    } else if (t == "ffi.Array" || t == "ffi.List") {
      n.kind = NodeKind::kArray;
      for (const Json& e : need(&Json::is_array, "a list")) {
        n.elements.push_back(IndexAt(e, index, "\"data\""));
      }
    } else if (t == "ffi.Map" || t == "ffi.Dict") {
      n.kind = NodeKind::kMap;
      const Json& d = need(&Json::is_array, "a list");
      if (d.size() % 2 != 0) Fail(index, "map data has an odd number of entries");
      for (size_t i = 0; i < d.size(); i += 2) {
        n.entries.emplace_back(IndexAt(d[i], index, "\"data\""),
                               IndexAt(d[i + 1], index, "\"data\""));
      }
    } else if (t == "ffi.Shape" || t == "Device") {
      n.kind = NodeKind::kShape;
      for (const Json& e : need(&Json::is_array, "a list")) {
        n.elements.push_back(IndexAt(e, index, "\"data\""));
      }
    } else if (t == "ffi.Tensor") {
      n.kind = NodeKind::kTensor;
      n.string_value = need(&Json::is_string, "a base64 string").get<std::string>();
    } else {
      n.kind = NodeKind::kObject;
      if (data == j.end() || data->is_null()) return;
      if (data->is_object()) {
        for (const auto& [name, value] : data->items())
          n.fields.emplace_back(name, ToFieldValue(value));
      } else if (data->is_string()) {
        n.string_value = data->get<std::string>();
      } else if (data->is_number_integer()) {
        n.int_value = IndexAt(*data, index, "\"data\"");
      }
    }
  }

  void ReadLegacyNode(const Json& j, int64_t index, Node& n, std::vector<Node>& extra,
                      int64_t first_extra) const {
    if (!j.is_object()) Fail(index, "expected an object, got " + Describe(j));
    n.type_key = Member(j, index, "type_key", &Json::is_string, "a string").get<std::string>();
    const std::string& t = n.type_key;
    auto string_member = [&](const char* key) -> std::string {
      auto it = j.find(key);
      if (it == j.end()) return "";
      if (!it->is_string()) Fail(index, Quote(key) + " must be a string, got " + Describe(*it));
      return it->get<std::string>();
    };
    auto attr_text = [&](const char* key) -> std::string {
      auto attrs = j.find("attrs");
      if (attrs == j.end() || !attrs->is_object()) Fail(index, "missing \"attrs\"");
      auto it = attrs->find(key);
      if (it == attrs->end()) Fail(index, std::string("missing attr ") + Quote(key));
      return it->is_string() ? it->get<std::string>() : it->dump();
    };
    auto data_list = [&]() -> const Json& {
      return Member(j, index, "data", &Json::is_array, "a list");
    };
    if (t.empty()) {
      n.kind = NodeKind::kNull;
    } else if (t == "Array" || t == "runtime.Array") {
      n.kind = NodeKind::kArray;
      for (const Json& e : data_list()) n.elements.push_back(IndexAt(e, index, "\"data\""));
    } else if (t == "Map" || t == "runtime.Map" || t == "StrMap") {
      n.kind = NodeKind::kMap;
      const Json& d = data_list();
      auto keys = j.find("keys");
      if (keys != j.end()) {
        if (!keys->is_array() || keys->size() != d.size()) {
          Fail(index, "\"keys\" must be a list as long as \"data\"");
        }
        for (size_t i = 0; i < d.size(); ++i) {
          if (!(*keys)[i].is_string()) Fail(index, "\"keys\" must hold strings");
          Node key;
          key.type_key = "runtime.String";
          key.kind = NodeKind::kString;
          key.string_value = (*keys)[i].get<std::string>();
          n.entries.emplace_back(first_extra + static_cast<int64_t>(extra.size()),
                                 IndexAt(d[i], index, "\"data\""));
          extra.push_back(std::move(key));
        }
      } else {
        if (d.size() % 2 != 0) Fail(index, "map data has an odd number of entries");
        for (size_t i = 0; i < d.size(); i += 2) {
          n.entries.emplace_back(IndexAt(d[i], index, "\"data\""),
                                 IndexAt(d[i + 1], index, "\"data\""));
        }
      }
    } else if (t == "runtime.String") {
      n.kind = NodeKind::kString;
      if (j.contains("repr_b64")) {
        std::vector<uint8_t> bytes =
            Base64Decode(string_member("repr_b64"), source_ + ": node " + std::to_string(index));
        n.string_value.assign(bytes.begin(), bytes.end());
      } else {
        n.string_value = string_member("repr_str");
      }
    } else if (t == "runtime.BoxInt" || t == "runtime.BoxBool") {
      n.kind = t == "runtime.BoxInt" ? NodeKind::kInt : NodeKind::kBool;
      std::string text = attr_text("value");
      if (text == "true" || text == "false") {
        n.int_value = text == "true";
      } else if (!ParseInt(text, &n.int_value)) {
        Fail(index, "attr \"value\": expected an integer, got " + Quote(text));
      }
      n.bool_value = n.int_value != 0;
      n.float_value = static_cast<double>(n.int_value);
    } else if (t == "runtime.BoxFloat") {
      n.kind = NodeKind::kFloat;
      std::string text = attr_text("value");
      if (!ParseDouble(text, &n.float_value)) {
        Fail(index, "attr \"value\": expected a number, got " + Quote(text));
      }
    } else {
      n.kind = NodeKind::kObject;
      auto attrs = j.find("attrs");
      if (attrs != j.end()) {
        if (!attrs->is_object())
          Fail(index, "\"attrs\" must be an object, got " + Describe(*attrs));
        for (const auto& [name, value] : attrs->items())
          n.fields.emplace_back(name, ToFieldValue(value));
      }
      n.string_value = string_member("global_key");
      if (n.string_value.empty()) n.string_value = string_member("repr_str");
    }
  }

 private:
  std::string source_;
};

// TVM's graphs are flat (a node's data nests a few levels at most); deeper input is refused
// before parsing, since printing or walking a deep value recurses.
constexpr int kMaxJsonDepth = 64;

// The deepest bracket nesting of `text`, outside strings.
int JsonDepth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      deepest = std::max(deepest, ++depth);
      if (deepest > kMaxJsonDepth) break;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace

Graph Graph::Parse(std::string_view json_text, std::string_view source) {
  Graph g;
  g.source_ = std::string(source);
  KILN_CHECK(JsonDepth(json_text) <= kMaxJsonDepth, ErrorKind::kParse,
             g.source_ + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                 " levels (TVM's graphs are flat)");
  Json doc;
  try {
    doc = Json::parse(json_text.begin(), json_text.end());
  } catch (const Json::exception& e) {
    throw Error(ErrorKind::kParse, g.source_ + ": not JSON: " + e.what());
  }
  KILN_CHECK(doc.is_object(), ErrorKind::kParse,
             g.source_ + ": expected a JSON object with \"nodes\", got " + Describe(doc));
  Builder builder(g.source_);
  auto nodes = doc.find("nodes");
  KILN_CHECK(nodes != doc.end() && nodes->is_array(), ErrorKind::kParse,
             g.source_ + ": expected a \"nodes\" list");
  g.file_nodes_ = static_cast<int64_t>(nodes->size());
  g.nodes_.resize(nodes->size());
  auto read_root = [&](const char* key) {
    const Json& r = doc[key];
    KILN_CHECK(r.is_number_integer() || r.is_string(), ErrorKind::kParse,
               g.source_ + ": \"" + key + "\" must be a node index, got " + Describe(r));
    g.root_ = builder.IndexAt(r, -1, key);
  };
  auto version_of = [&](const char* key) {
    auto meta = doc.find(key);
    if (meta == doc.end() || !meta->is_object()) return;
    auto v = meta->find("tvm_version");
    if (v != meta->end() && v->is_string()) g.tvm_version_ = v->get<std::string>();
  };
  if (doc.contains("root_index")) {
    g.format_ = GraphFormat::kFfi;
    read_root("root_index");
    version_of("metadata");
    for (size_t i = 0; i < nodes->size(); ++i) {
      builder.ReadFfiNode((*nodes)[i], static_cast<int64_t>(i), g.nodes_[i]);
    }
  } else {
    KILN_CHECK(doc.contains("root"), ErrorKind::kParse,
               g.source_ + ": expected \"root_index\" (TVM 0.24+) or \"root\" (older TVM)");
    g.format_ = GraphFormat::kLegacy;
    read_root("root");
    version_of("attrs");
    std::vector<Node> extra;
    for (size_t i = 0; i < nodes->size(); ++i) {
      builder.ReadLegacyNode((*nodes)[i], static_cast<int64_t>(i), g.nodes_[i], extra,
                             g.file_nodes_);
    }
    for (Node& n : extra) g.nodes_.push_back(std::move(n));
    g.first_b64_node_ = static_cast<int64_t>(g.nodes_.size());
    auto b64 = doc.find("b64ndarrays");
    if (b64 != doc.end()) {
      KILN_CHECK(b64->is_array(), ErrorKind::kParse,
                 g.source_ + ": \"b64ndarrays\" must be a list of base64 strings");
      for (const Json& e : *b64) {
        KILN_CHECK(
            e.is_string(), ErrorKind::kParse,
            g.source_ + ": \"b64ndarrays\" must be a list of base64 strings, got " + Describe(e));
        Node t;
        t.type_key = "runtime.NDArray";
        t.kind = NodeKind::kTensor;
        t.string_value = e.get<std::string>();
        g.nodes_.push_back(std::move(t));
        ++g.num_b64_;
      }
    }
  }
  KILN_CHECK(g.root_ >= 0 && g.root_ < g.file_nodes_, ErrorKind::kParse,
             g.source_ + ": root " + std::to_string(g.root_) +
                 " is not a node index (the graph has " + std::to_string(g.file_nodes_) +
                 " nodes)");
  // Container elements are references by definition: check them once here.
  // Legacy map keys are synthesized nodes after the file's; b64ndarrays are reached by fields only.
  int64_t limit = g.format_ == GraphFormat::kLegacy ? g.first_b64_node_ : g.file_nodes_;
  for (int64_t i = 0; i < g.size(); ++i) {
    const Node& n = g.nodes_[i];
    auto check = [&](int64_t target) {
      KILN_CHECK(target >= 0 && target < limit, ErrorKind::kParse,
                 g.Where(i) + ": element " + std::to_string(target) + " is not a node index");
    };
    if (n.kind == NodeKind::kArray) {
      for (int64_t e : n.elements) check(e);
    } else if (n.kind == NodeKind::kMap) {
      for (auto [k, v] : n.entries) {
        check(k);
        check(v);
      }
    }
  }
  return g;
}

const Node& Graph::node(int64_t index) const {
  KILN_CHECK(index >= 0 && index < size(), ErrorKind::kParse,
             source_ + ": node " + std::to_string(index) + " does not exist (the graph has " +
                 std::to_string(file_nodes_) + " nodes)");
  return nodes_[index];
}

std::string Graph::Where(int64_t index) const {
  std::string out = source_ + ": node " + std::to_string(index);
  if (index >= 0 && index < size()) out += " (" + nodes_[index].type_key + ")";
  return out;
}

int64_t Graph::IntValue(int64_t index) const {
  const Node& n = node(index);
  if (n.kind == NodeKind::kInt || n.kind == NodeKind::kBool) return n.int_value;
  if (n.kind == NodeKind::kObject && HasField(index, "value") &&
      (n.type_key == "ir.IntImm" || n.type_key == "IntImm" || n.type_key == "tir.IntImm")) {
    return BoxedInt(index, "value");
  }
  throw Error(ErrorKind::kParse, Where(index) + ": expected an integer node");
}

double Graph::FloatValue(int64_t index) const {
  const Node& n = node(index);
  if (n.kind == NodeKind::kFloat) return n.float_value;
  if (n.kind == NodeKind::kInt || n.kind == NodeKind::kBool)
    return static_cast<double>(n.int_value);
  if (n.kind == NodeKind::kObject && HasField(index, "value") &&
      (n.type_key == "ir.FloatImm" || n.type_key == "FloatImm" || n.type_key == "tir.FloatImm")) {
    return Float(index, "value");
  }
  if (n.kind == NodeKind::kObject && HasField(index, "value") &&
      (n.type_key == "ir.IntImm" || n.type_key == "IntImm" || n.type_key == "tir.IntImm")) {
    return static_cast<double>(BoxedInt(index, "value"));
  }
  throw Error(ErrorKind::kParse, Where(index) + ": expected a number node");
}

bool Graph::BoolValue(int64_t index) const {
  const Node& n = node(index);
  if (n.kind == NodeKind::kBool || n.kind == NodeKind::kInt) return n.int_value != 0;
  return IntValue(index) != 0;
}

const std::string& Graph::StringValue(int64_t index) const {
  const Node& n = node(index);
  KILN_CHECK(
      n.kind == NodeKind::kString || (n.kind == NodeKind::kObject && !n.string_value.empty()),
      ErrorKind::kParse, Where(index) + ": expected a string node");
  return n.string_value;
}

const std::vector<int64_t>& Graph::Elements(int64_t index) const {
  const Node& n = node(index);
  KILN_CHECK(n.kind == NodeKind::kArray, ErrorKind::kParse, Where(index) + ": expected an array");
  return n.elements;
}

const std::vector<std::pair<int64_t, int64_t>>& Graph::Entries(int64_t index) const {
  const Node& n = node(index);
  KILN_CHECK(n.kind == NodeKind::kMap, ErrorKind::kParse, Where(index) + ": expected a map");
  return n.entries;
}

int64_t Graph::Lookup(int64_t map_index, std::string_view key) const {
  for (auto [k, v] : Entries(map_index)) {
    if (node(k).kind == NodeKind::kString && node(k).string_value == key) return v;
  }
  return -1;
}

HostTensor Graph::TensorValue(int64_t index) const {
  const Node& n = node(index);
  KILN_CHECK(n.kind == NodeKind::kTensor, ErrorKind::kParse, Where(index) + ": expected a tensor");
  return DecodeTensorBase64(n.string_value, Where(index));
}

bool Graph::HasField(int64_t index, std::string_view field) const {
  for (const auto& [name, value] : node(index).fields) {
    if (name == field) return true;
  }
  return false;
}

const FieldValue& Graph::Field(int64_t index, std::string_view field) const {
  const Node& n = node(index);
  for (const auto& [name, value] : n.fields) {
    if (name == field) return value;
  }
  throw Error(ErrorKind::kParse, Where(index) + ": missing field " + Quote(field));
}

int64_t Graph::CheckIndex(int64_t target, int64_t from, std::string_view field) const {
  KILN_CHECK(target >= 0 && target < file_nodes_, ErrorKind::kParse,
             Where(from) + ", field " + Quote(field) + ": " + std::to_string(target) +
                 " is not a node index (the graph has " + std::to_string(file_nodes_) + " nodes)");
  return target;
}

namespace {

std::string FieldText(const FieldValue& v) {
  switch (v.kind) {
    case FieldValue::Kind::kNull:
      return "null";
    case FieldValue::Kind::kBool:
      return v.bool_value ? "true" : "false";
    case FieldValue::Kind::kInt:
      return std::to_string(v.int_value);
    case FieldValue::Kind::kFloat:
      return std::to_string(v.float_value);
    case FieldValue::Kind::kString:
      return Quote(v.string_value);
    case FieldValue::Kind::kOther:
      return v.string_value.size() > 40 ? v.string_value.substr(0, 37) + "..." : v.string_value;
  }
  return "?";
}

}  // namespace

int64_t Graph::Int(int64_t index, std::string_view field) const {
  const FieldValue& v = Field(index, field);
  int64_t out = 0;
  if (v.kind == FieldValue::Kind::kInt) return v.int_value;
  if (v.kind == FieldValue::Kind::kBool) return v.bool_value;
  if (v.kind == FieldValue::Kind::kString && ParseInt(v.string_value, &out)) return out;
  throw Error(ErrorKind::kParse, Where(index) + ", field " + Quote(field) +
                                     ": expected an integer, got " + FieldText(v));
}

double Graph::Float(int64_t index, std::string_view field) const {
  const FieldValue& v = Field(index, field);
  double out = 0;
  if (v.kind == FieldValue::Kind::kFloat) return v.float_value;
  if (v.kind == FieldValue::Kind::kInt) return static_cast<double>(v.int_value);
  if (v.kind == FieldValue::Kind::kString && ParseDouble(v.string_value, &out)) return out;
  throw Error(ErrorKind::kParse, Where(index) + ", field " + Quote(field) +
                                     ": expected a number, got " + FieldText(v));
}

bool Graph::Bool(int64_t index, std::string_view field) const {
  const FieldValue& v = Field(index, field);
  if (v.kind == FieldValue::Kind::kBool) return v.bool_value;
  if (v.kind == FieldValue::Kind::kInt) return v.int_value != 0;
  if (v.kind == FieldValue::Kind::kString) {
    if (v.string_value == "1" || v.string_value == "true") return true;
    if (v.string_value == "0" || v.string_value == "false") return false;
  }
  throw Error(ErrorKind::kParse, Where(index) + ", field " + Quote(field) +
                                     ": expected a boolean, got " + FieldText(v));
}

const std::string& Graph::Str(int64_t index, std::string_view field) const {
  const FieldValue& v = Field(index, field);
  KILN_CHECK(v.kind == FieldValue::Kind::kString, ErrorKind::kParse,
             Where(index) + ", field " + Quote(field) + ": expected a string, got " + FieldText(v));
  return v.string_value;
}

int64_t Graph::Ref(int64_t index, std::string_view field) const {
  return CheckIndex(Int(index, field), index, field);
}

int64_t Graph::BoxedInt(int64_t index, std::string_view field) const {
  if (format_ == GraphFormat::kLegacy) return Int(index, field);
  int64_t target = Ref(index, field);
  const Node& n = nodes_[target];
  KILN_CHECK(n.kind == NodeKind::kInt || n.kind == NodeKind::kBool, ErrorKind::kParse,
             Where(index) + ", field " + Quote(field) + ": expected a reference to an int node, " +
                 "got " + Where(target));
  return n.int_value;
}

int64_t Graph::TensorRef(int64_t index, std::string_view field) const {
  if (format_ == GraphFormat::kLegacy) {
    int64_t k = Int(index, field);
    KILN_CHECK(k >= 0 && k < num_b64_, ErrorKind::kParse,
               Where(index) + ", field " + Quote(field) + ": " + std::to_string(k) +
                   " is not an index of b64ndarrays (it has " + std::to_string(num_b64_) +
                   " entries)");
    return first_b64_node_ + k;
  }
  int64_t target = Ref(index, field);
  KILN_CHECK(nodes_[target].kind == NodeKind::kTensor, ErrorKind::kParse,
             Where(index) + ", field " + Quote(field) + ": expected a reference to a tensor, got " +
                 Where(target));
  return target;
}

}  // namespace kiln::ir::tvm_json
