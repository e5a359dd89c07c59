// Attributes of a Relax op call: a small map from name to a typed value (int, float, string,
// int list, dtype, bool). Each op declares the attributes it takes in the op registry, which
// checks a call's attributes against that schema and fills in defaults, so shape inference
// reads attributes without re-checking them.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"

namespace kiln::ir::relax {

using AttrValue = std::variant<bool, int64_t, double, std::string, std::vector<int64_t>, DataType>;

// In the order of AttrValue's alternatives.
enum class AttrType : uint8_t { kBool, kInt, kFloat, kString, kIntList, kDType };
const char* AttrTypeName(AttrType type);  // "bool", "int", "float", "string", "int list", "dtype"
AttrType TypeOf(const AttrValue& value);
// TVMScript-like text: True, 3, 0.5, "NCHW", [1, 2], "float32".
std::string AttrValueToString(const AttrValue& value);

class Attrs {
 public:
  Attrs() = default;

  // Overloads keep literals unambiguous: 1 is an int, "x" a string, {1, 2} an int list.
  Attrs& Set(const std::string& name, bool value);
  Attrs& Set(const std::string& name, int value);
  Attrs& Set(const std::string& name, int64_t value);
  Attrs& Set(const std::string& name, double value);
  Attrs& Set(const std::string& name, const char* value);
  Attrs& Set(const std::string& name, std::string value);
  Attrs& Set(const std::string& name, std::vector<int64_t> value);
  Attrs& Set(const std::string& name, std::initializer_list<int64_t> value);
  Attrs& Set(const std::string& name, DataType value);
  Attrs& Set(const std::string& name, AttrValue value);

  bool Has(const std::string& name) const { return values_.count(name) != 0; }
  const AttrValue* Find(const std::string& name) const;
  bool empty() const { return values_.empty(); }
  const std::map<std::string, AttrValue>& values() const { return values_; }

  // Typed reads; throw kInternal when the attribute is missing or of another type (a call's
  // attributes have been checked against its op's schema, so that is a bug).
  bool GetBool(const std::string& name) const;
  int64_t GetInt(const std::string& name) const;
  double GetFloat(const std::string& name) const;  // an int attribute reads as a float too
  const std::string& GetString(const std::string& name) const;
  const std::vector<int64_t>& GetInts(const std::string& name) const;
  DataType GetDType(const std::string& name) const;
  std::optional<std::vector<int64_t>> GetOptionalInts(const std::string& name) const;

  // "axis=1, keepdims=True" in name order.
  std::string ToString() const;

  friend bool operator==(const Attrs&, const Attrs&) = default;

 private:
  std::map<std::string, AttrValue> values_;
};

}  // namespace kiln::ir::relax
