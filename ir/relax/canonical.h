// The canonical token stream behind structural equality and hashing of Relax: struct info,
// dims and expressions written as a prefix-free sequence of tokens in which every variable
// (a Relax Var or a shape variable) is the index of its first appearance, so two values are
// structurally equal exactly when their streams are, whatever their variables are named.
// The hash is StableHasher over the stream: the same on every machine and build.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ir/relax/expr.h"

namespace kiln::ir::relax {

class CanonicalStream {
 public:
  void AddStructInfo(const StructInfo& s);
  void AddDim(const PrimExpr& e);
  void AddDims(const std::optional<std::vector<PrimExpr>>& dims);
  // A Relax expression; a Function's "global_symbol" attribute is left out (it is its name).
  void AddExpr(const Expr& e);

  const std::vector<std::string>& tokens() const { return tokens_; }
  uint64_t Hash() const;
  // The tokens joined by spaces, for reading a hash mismatch.
  std::string Text() const;

 private:
  void Token(std::string t) { tokens_.push_back(std::move(t)); }
  void VarDef(const Var& v);
  void Block(const BindingBlock& block);
  void AttrList(const Attrs& attrs, bool skip_symbol);
  int Index(const void* var);

  std::map<const void*, int> vars_;
  std::vector<std::string> tokens_;
};

}  // namespace kiln::ir::relax
