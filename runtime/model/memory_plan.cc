// Greedy-by-size offset assignment and the live-bytes lower bound.
#include "runtime/model/memory_plan.h"

#include <algorithm>
#include <map>
#include <numeric>

#include "support/error.h"

namespace kiln::runtime::model {
namespace {

uint64_t AlignUp(uint64_t bytes, uint64_t alignment) {
  uint64_t aligned = 0;
  KILN_CHECK(!__builtin_add_overflow(bytes, alignment - 1, &aligned), ErrorKind::kRuntime,
             "memory plan: a tensor of " + std::to_string(bytes) + " bytes is too large");
  return aligned & ~(alignment - 1);
}

}  // namespace

MemoryPlan PlanMemory(const std::vector<BufferRequest>& requests, uint64_t alignment) {
  KILN_CHECK(alignment > 0 && (alignment & (alignment - 1)) == 0, ErrorKind::kInternal,
             "memory plan: alignment must be a power of two");
  MemoryPlan plan;
  plan.offsets.assign(requests.size(), 0);
  std::vector<uint64_t> sizes(requests.size());
  for (size_t i = 0; i < requests.size(); ++i) {
    sizes[i] = AlignUp(requests[i].bytes, alignment);
    KILN_CHECK(!__builtin_add_overflow(plan.unshared_bytes, sizes[i], &plan.unshared_bytes),
               ErrorKind::kRuntime, "memory plan: the tensors' sizes overflow 64 bits");
  }
  // The lower bound: sweep the step boundaries, adding a buffer at `first` and dropping it
  // after `last`.
  std::map<int64_t, uint64_t> add, drop;
  for (size_t i = 0; i < requests.size(); ++i) {
    add[requests[i].first] += sizes[i];
    drop[requests[i].last + 1] += sizes[i];
  }
  std::vector<int64_t> points;
  for (const auto& [t, b] : add) points.push_back(t);
  for (const auto& [t, b] : drop) points.push_back(t);
  std::sort(points.begin(), points.end());
  points.erase(std::unique(points.begin(), points.end()), points.end());
  uint64_t live = 0;
  for (int64_t t : points) {
    live -= drop.count(t) ? drop[t] : 0;
    live += add.count(t) ? add[t] : 0;
    plan.lower_bound_bytes = std::max(plan.lower_bound_bytes, live);
  }

  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (sizes[a] != sizes[b]) return sizes[a] > sizes[b];
    return requests[a].first < requests[b].first;
  });
  std::vector<size_t> placed;
  for (size_t i : order) {
    // Buffers already placed whose lifetime meets this one's, by offset.
    std::vector<size_t> conflicts;
    for (size_t j : placed) {
      if (requests[j].first <= requests[i].last && requests[i].first <= requests[j].last) {
        conflicts.push_back(j);
      }
    }
    std::sort(conflicts.begin(), conflicts.end(),
              [&](size_t a, size_t b) { return plan.offsets[a] < plan.offsets[b]; });
    uint64_t offset = 0;
    for (size_t j : conflicts) {
      if (plan.offsets[j] >= offset && plan.offsets[j] - offset >= sizes[i]) break;
      offset = std::max(offset, plan.offsets[j] + sizes[j]);
    }
    plan.offsets[i] = offset;
    plan.arena_bytes = std::max(plan.arena_bytes, offset + sizes[i]);
    placed.push_back(i);
  }
  return plan;
}

}  // namespace kiln::runtime::model
