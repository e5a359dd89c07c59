// IndexMap: a function from a buffer's indices to new indices, as TVM's tir.IndexMap, written
// and read as a Python lambda ("lambda k, j: (j // 16, k, j % 16)"). transform_layout uses it
// to give a buffer a new shape and rewrite every access; the trace stores it as that text.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "ir/expr.h"

namespace kiln::search {

struct IndexMap {
  std::vector<ir::Var> params;    // one per index of the source buffer
  std::vector<ir::Expr> results;  // the new indices, over `params`

  // Reads the lambda text; a malformed one is a kiln::Error(kParse) naming line and column.
  static IndexMap Parse(std::string_view text, ir::DataType dtype = ir::DataType::Int(32));
  // A map over `ndim` new index variables (named i0, i1, ...) built by `fn`.
  static IndexMap FromFunction(
      size_t ndim, const std::function<std::vector<ir::Expr>(const std::vector<ir::Var>&)>& fn,
      ir::DataType dtype = ir::DataType::Int(32));

  // The lambda text; Parse(ToText()) gives an equal map.
  std::string ToText() const;
  // The new indices of the element at `indices` (one per parameter), not simplified.
  std::vector<ir::Expr> Apply(const std::vector<ir::Expr>& indices) const;
};

}  // namespace kiln::search
