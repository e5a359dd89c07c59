// IRModule: the unit a model is compiled as. It holds Relax functions (the graph) and
// TensorIR PrimFuncs (the kernels the graph calls with call_tir) together, by name, in the
// order they were added. Each function is named by a GlobalVar; a Relax function's GlobalVar
// carries its FuncStructInfo so that calls to it infer their result.
#pragma once

#include <string>
#include <variant>
#include <vector>

#include "ir/function.h"
#include "ir/relax/expr.h"

namespace kiln::ir::relax {

class IRModule {
 public:
  using BaseFunc = std::variant<Function, ir::PrimFunc>;

  // Adds a function under `name`; throws kInvalidIR when the name is taken or empty.
  GlobalVar Add(const std::string& name, Function func);
  GlobalVar Add(const std::string& name, ir::PrimFunc func);
  // Replaces the function named `name` (which must exist); its GlobalVar is renewed when
  // a Relax function's signature changes.
  GlobalVar Update(const std::string& name, BaseFunc func);
  void Remove(const std::string& name);

  bool Contains(const std::string& name) const { return Find(name) != nullptr; }
  // Throws kInvalidIR naming the missing function.
  GlobalVar GetGlobalVar(const std::string& name) const;
  // nullptr when there is no such function or it is of the other kind.
  const Function* LookupFunction(const std::string& name) const;
  const ir::PrimFunc* LookupPrimFunc(const std::string& name) const;

  // Function names in the order they were added.
  std::vector<std::string> names() const;
  size_t size() const { return entries_.size(); }
  // `hint` if free, else hint1, hint2, ... (as TVM's block builder names functions).
  std::string UniqueName(const std::string& hint) const;

 private:
  struct Entry {
    std::string name;
    GlobalVar gvar;
    BaseFunc func;
  };
  const Entry* Find(const std::string& name) const;
  Entry* Find(const std::string& name);
  GlobalVar AddEntry(const std::string& name, BaseFunc func);

  std::vector<Entry> entries_;
};

}  // namespace kiln::ir::relax
