// Interval analysis: the set of values an expression takes when some variables range over
// intervals, as an inclusive interval with symbolic endpoints [min, max]. This is how a
// block's accessed region is found when the loops inside it (or the loops a schedule moves
// around it) are relaxed.
#pragma once

#include <unordered_map>

#include "ir/arith/analyzer.h"

namespace kiln::ir::arith {

struct IntervalSet {
  Expr min, max;  // inclusive; undefined means unbounded on that side
  bool is_single_point() const;
  static IntervalSet SinglePoint(const Expr& e);
  static IntervalSet FromRange(const Range& r);
  Range ToRange() const;  // [min, max - min + 1); both ends must be bounded
};

using VarIntervals = std::unordered_map<const VarNode*, IntervalSet>;

// The interval of `e` when each var in `dom` ranges over its interval (other vars fixed).
// Endpoints are simplified with `analyzer`.
IntervalSet EvalSet(const Expr& e, const VarIntervals& dom, Analyzer& analyzer);
// The smallest interval holding both.
IntervalSet Union(const IntervalSet& a, const IntervalSet& b, Analyzer& analyzer);

}  // namespace kiln::ir::arith
