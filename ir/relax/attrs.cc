// Typed attribute values and their text form.
#include "ir/relax/attrs.h"

#include <cstdio>

#include "support/error.h"

namespace kiln::ir::relax {

const char* AttrTypeName(AttrType type) {
  switch (type) {
    case AttrType::kBool:
      return "bool";
    case AttrType::kInt:
      return "int";
    case AttrType::kFloat:
      return "float";
    case AttrType::kString:
      return "string";
    case AttrType::kIntList:
      return "int list";
    case AttrType::kDType:
      return "dtype";
  }
  return "?";
}

AttrType TypeOf(const AttrValue& value) { return static_cast<AttrType>(value.index()); }

std::string AttrValueToString(const AttrValue& value) {
  switch (TypeOf(value)) {
    case AttrType::kBool:
      return std::get<bool>(value) ? "True" : "False";
    case AttrType::kInt:
      return std::to_string(std::get<int64_t>(value));
    case AttrType::kFloat: {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", std::get<double>(value));
      std::string s = buf;
      if (s.find_first_of(".einf") == std::string::npos) s += ".0";
      return s;
    }
    case AttrType::kString:
      return "\"" + std::get<std::string>(value) + "\"";
    case AttrType::kIntList: {
      std::string s = "[";
      const auto& v = std::get<std::vector<int64_t>>(value);
      for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
      return s + "]";
    }
    case AttrType::kDType:
      return "\"" + std::get<DataType>(value).ToString() + "\"";
  }
  return "?";
}

Attrs& Attrs::Set(const std::string& name, bool value) { return Set(name, AttrValue(value)); }
Attrs& Attrs::Set(const std::string& name, int value) {
  return Set(name, AttrValue(static_cast<int64_t>(value)));
}
Attrs& Attrs::Set(const std::string& name, int64_t value) { return Set(name, AttrValue(value)); }
Attrs& Attrs::Set(const std::string& name, double value) { return Set(name, AttrValue(value)); }
Attrs& Attrs::Set(const std::string& name, const char* value) {
  return Set(name, AttrValue(std::string(value)));
}
Attrs& Attrs::Set(const std::string& name, std::string value) {
  return Set(name, AttrValue(std::move(value)));
}
Attrs& Attrs::Set(const std::string& name, std::vector<int64_t> value) {
  return Set(name, AttrValue(std::move(value)));
}
Attrs& Attrs::Set(const std::string& name, std::initializer_list<int64_t> value) {
  return Set(name, AttrValue(std::vector<int64_t>(value)));
}
Attrs& Attrs::Set(const std::string& name, DataType value) { return Set(name, AttrValue(value)); }
Attrs& Attrs::Set(const std::string& name, AttrValue value) {
  values_[name] = std::move(value);
  return *this;
}

const AttrValue* Attrs::Find(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

namespace {

template <typename T>
const T& Get(const Attrs& attrs, const std::string& name, AttrType type) {
  const AttrValue* v = attrs.Find(name);
  KILN_CHECK(v != nullptr, ErrorKind::kInternal, "attribute '" + name + "' is missing");
  const T* p = std::get_if<T>(v);
  KILN_CHECK(
      p != nullptr, ErrorKind::kInternal,
      "attribute '" + name + "' is " + AttrTypeName(TypeOf(*v)) + ", not " + AttrTypeName(type));
  return *p;
}

}  // namespace

bool Attrs::GetBool(const std::string& name) const {
  return Get<bool>(*this, name, AttrType::kBool);
}
int64_t Attrs::GetInt(const std::string& name) const {
  return Get<int64_t>(*this, name, AttrType::kInt);
}
double Attrs::GetFloat(const std::string& name) const {
  const AttrValue* v = Find(name);
  if (v != nullptr && TypeOf(*v) == AttrType::kInt)
    return static_cast<double>(std::get<int64_t>(*v));
  return Get<double>(*this, name, AttrType::kFloat);
}
const std::string& Attrs::GetString(const std::string& name) const {
  return Get<std::string>(*this, name, AttrType::kString);
}
const std::vector<int64_t>& Attrs::GetInts(const std::string& name) const {
  return Get<std::vector<int64_t>>(*this, name, AttrType::kIntList);
}
DataType Attrs::GetDType(const std::string& name) const {
  return Get<DataType>(*this, name, AttrType::kDType);
}
std::optional<std::vector<int64_t>> Attrs::GetOptionalInts(const std::string& name) const {
  if (!Has(name)) return std::nullopt;
  return GetInts(name);
}

std::string Attrs::ToString() const {
  std::string s;
  for (const auto& [name, value] : values_) {
    if (!s.empty()) s += ", ";
    s += name + "=" + AttrValueToString(value);
  }
  return s;
}

}  // namespace kiln::ir::relax
