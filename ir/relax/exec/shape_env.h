// What the reference executor knows about symbolic shapes at a point of a run: the value of
// every shape variable bound so far (from arguments, match_cast and results), the evaluation of
// dims (integer expressions over shape variables) to numbers, and the run-time check of a
// value against struct info, which binds the variables it introduces. This is where a Relax
// program's static shape claims are tested against what actually flows through it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/relax/exec/value.h"
#include "ir/relax/struct_info.h"

namespace kiln::ir::relax::exec {

class ShapeEnv {
 public:
  std::optional<int64_t> Lookup(const PrimVar& var) const;
  // Binds `var` (which must not be bound yet).
  void Bind(const PrimVar& var, int64_t value);
  // `dim` with every shape variable replaced by its value; throws kiln::Error(kRuntime) naming
  // the first unbound variable, or when the expression is not an integer (a division by zero).
  int64_t Eval(const PrimExpr& dim) const;
  std::vector<int64_t> Eval(const std::vector<PrimExpr>& dims) const;

 private:
  std::unordered_map<const ir::VarNode*, int64_t> values_;
  std::vector<PrimVar> order_;  // keeps the bound variables alive while their nodes are keys
};

// Checks `value` against `sinfo` (kind, dtype, rank, every dim), first binding each unbound
// shape variable that appears as a whole dim of `sinfo` to the value's dim there. Returns an
// empty string when the value matches, else what differs ("dim 1 is 5, expected n = 4").
// Bindings made before a mismatch stay in `env`; callers turn a mismatch into an error.
std::string MatchValue(const StructInfo& sinfo, const Value& value, ShapeEnv& env);
// The two passes of MatchValue, for matching several values at once (a function's parameters:
// a dim n * 4 of one parameter may rely on n bound by a later one): BindValue binds the unbound
// whole-dim variables; CheckValue compares everything and returns what differs, or "".
void BindValue(const StructInfo& sinfo, const Value& value, ShapeEnv& env);
std::string CheckValue(const StructInfo& sinfo, const Value& value, const ShapeEnv& env);

// A tensor of `sinfo`'s dtype and dims evaluated in `env`, filled with NaN (floats) or a
// recognizable garbage pattern (integers), so that reading an output the kernel never wrote
// gives a visibly wrong result. Throws kRuntime when `sinfo` is not a tensor of known shape and
// dtype, or a dim is negative.
HostTensor AllocateOutput(const StructInfo& sinfo, const ShapeEnv& env);

}  // namespace kiln::ir::relax::exec
