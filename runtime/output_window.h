// A window of a workload's output: the workload with the outer loops of its output blocks
// restricted to a sub-range, and its producers restricted to what that sub-range reads, so
// that the reference interpreter computes a slice of the output at a fraction of the cost.
// The measurement pipeline uses it to check, once per workload, that a trusted build (the
// unscheduled workload through the plain C path) agrees with the interpreter when the whole
// function is too large to interpret.
//
// Why this is sound whatever the restriction: the interpreter fills fresh storage with NaN
// (integers with a fixed garbage pattern). A producer restricted too narrowly leaves part of
// an intermediate unwritten, the window's outputs then read garbage and disagree with the
// full build, and the check fails; it can never pass because of a wrong restriction. Only
// the compared region, computed here from the restricted loops, is trusted.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/host_tensor.h"

namespace kiln::runtime {

// [begin, end) along one dimension.
struct IndexRange {
  int64_t begin = 0;
  int64_t end = 0;
};

// The part of one parameter buffer that a windowed run computes.
struct ParamRegion {
  int param_index = 0;
  std::string name;                // the buffer's name
  std::vector<IndexRange> ranges;  // one per dimension
};

struct OutputWindow {
  ir::PrimFunc windowed;  // the workload with some loops restricted
  // One per parameter buffer the workload writes: what the windowed run computes of it.
  std::vector<ParamRegion> regions;
  int64_t cost = 0;  // EstimateInterpreterCost of `windowed`
  // The compared regions, "relu[40:48, 0:24]", for messages and records.
  std::string description;
};

// Plans a window of `f` whose interpreter cost is at most `budget` stores, as wide as the
// budget allows, at an offset drawn from `seed`. When even the narrowest window costs more,
// that window is returned (its `cost` says so; the caller decides). nullopt when `f` admits
// no window: no output written by a single block whose store index on some dimension is a
// spatial iteration variable bound directly to a loop, or loops whose bounds are not
// constant once `dims` are bound.
std::optional<OutputWindow> PlanOutputWindow(const ir::PrimFunc& f,
                                             const std::map<std::string, int64_t>& dims,
                                             int64_t budget, uint64_t seed);

// "C[40:48, 0:24]".
std::string DescribeRegion(const ParamRegion& region);

// A compact copy of the elements of `tensor` inside `ranges` (one per dimension, within the
// shape; kiln::Error(kInternal) otherwise).
ir::HostTensor ExtractRegion(const ir::HostTensor& tensor, const std::vector<IndexRange>& ranges);

}  // namespace kiln::runtime
