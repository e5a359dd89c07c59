// SparseTIR's part of the TVMScript printer (ir/text/printer.cc): which handle parameters are
// printed bare, the arguments of an axis declaration, and the axes of a `T.sp_iter`. The
// printer owns the names; these functions take the names it gives.
#pragma once

#include <functional>
#include <string>
#include <unordered_set>

#include "ir/function.h"

namespace kiln::ir {

// The handle parameters printed bare: those of matched sparse buffers, and those whose buffer
// is the indptr or indices of an axis exactly as the parser makes one from a handle (1-D, the
// axis's idtype, the extent ParseSparseDecl gives it).
std::unordered_set<const void*> SparseHandleParams(const PrimFuncNode& f);

// The printed names and expressions an axis declaration refers to.
struct AxisDeclNames {
  std::function<std::string(const Axis&)> axis;
  std::function<std::string(const Buffer&)> buffer;
  std::function<std::string(const Expr&)> expr;
};

// The arguments of `T.dense_fixed(...)`, `T.sparse_variable(...)`, ... for `axis`: the length,
// or the parent, (length, nnz) and the axis's buffers; then idtype and sorted where they are
// not the defaults.
std::string AxisDeclArgs(const Axis& axis, const AxisDeclNames& names);

// The `[axes], "SR..."` of `T.sp_iter` for `op`, with T.fuse groups and T.attach.
std::string SpIterAxes(const SparseIterationNode& op,
                       const std::function<std::string(const Axis&)>& axis_name);

}  // namespace kiln::ir
