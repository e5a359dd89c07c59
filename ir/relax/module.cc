// IRModule storage and naming.
#include "ir/relax/module.h"

#include <algorithm>

namespace kiln::ir::relax {

namespace {

GlobalVar MakeGlobalVar(const std::string& name, const IRModule::BaseFunc& func) {
  if (const auto* f = std::get_if<Function>(&func)) {
    return GlobalVar(name, (*f)->struct_info);
  }
  return GlobalVar(name, ObjectStructInfo());
}

void CheckDefined(const std::string& name, const IRModule::BaseFunc& func) {
  bool defined = std::visit([](const auto& f) { return f.defined(); }, func);
  KILN_CHECK(defined, ErrorKind::kInvalidIR, "IRModule: function '" + name + "' is undefined");
}

}  // namespace

const IRModule::Entry* IRModule::Find(const std::string& name) const {
  for (const Entry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

IRModule::Entry* IRModule::Find(const std::string& name) {
  for (Entry& e : entries_) {
    if (e.name == name) return &e;
  }
  return nullptr;
}

GlobalVar IRModule::AddEntry(const std::string& name, BaseFunc func) {
  KILN_CHECK(!name.empty(), ErrorKind::kInvalidIR, "IRModule: a function needs a name");
  KILN_CHECK(!Contains(name), ErrorKind::kInvalidIR,
             "IRModule: a function named '" + name + "' already exists");
  CheckDefined(name, func);
  GlobalVar gvar = MakeGlobalVar(name, func);
  entries_.push_back(Entry{name, gvar, std::move(func)});
  return gvar;
}

GlobalVar IRModule::Add(const std::string& name, Function func) {
  return AddEntry(name, std::move(func));
}

GlobalVar IRModule::Add(const std::string& name, ir::PrimFunc func) {
  return AddEntry(name, std::move(func));
}

GlobalVar IRModule::Update(const std::string& name, BaseFunc func) {
  Entry* e = Find(name);
  KILN_CHECK(e != nullptr, ErrorKind::kInvalidIR, "IRModule: no function named '" + name + "'");
  CheckDefined(name, func);
  GlobalVar gvar = MakeGlobalVar(name, func);
  if (!StructInfoEqual(gvar.struct_info(), e->gvar.struct_info())) e->gvar = gvar;
  e->func = std::move(func);
  return e->gvar;
}

void IRModule::Remove(const std::string& name) {
  auto it = std::find_if(entries_.begin(), entries_.end(),
                         [&](const Entry& e) { return e.name == name; });
  KILN_CHECK(it != entries_.end(), ErrorKind::kInvalidIR,
             "IRModule: no function named '" + name + "'");
  entries_.erase(it);
}

GlobalVar IRModule::GetGlobalVar(const std::string& name) const {
  const Entry* e = Find(name);
  KILN_CHECK(e != nullptr, ErrorKind::kInvalidIR, "IRModule: no function named '" + name + "'");
  return e->gvar;
}

const Function* IRModule::LookupFunction(const std::string& name) const {
  const Entry* e = Find(name);
  return e == nullptr ? nullptr : std::get_if<Function>(&e->func);
}

const ir::PrimFunc* IRModule::LookupPrimFunc(const std::string& name) const {
  const Entry* e = Find(name);
  return e == nullptr ? nullptr : std::get_if<ir::PrimFunc>(&e->func);
}

std::vector<std::string> IRModule::names() const {
  std::vector<std::string> out;
  for (const Entry& e : entries_) out.push_back(e.name);
  return out;
}

std::string IRModule::UniqueName(const std::string& hint) const {
  if (!Contains(hint)) return hint;
  for (int i = 1;; ++i) {
    std::string name = hint + std::to_string(i);
    if (!Contains(name)) return name;
  }
}

}  // namespace kiln::ir::relax
