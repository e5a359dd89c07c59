// Setting a hand-written schedule's decisions on a design-space sketch: the tile sizes of its
// SamplePerfectTile instructions in order, the unroll step its SampleCategorical picks, and
// optionally where SampleComputeLocation puts a block. bench/space_matmul.h and
// bench/space_conv.h use it to show that the cpu space holds the hand-written schedules.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "search/schedule/trace.h"

namespace kiln::bench {

struct SketchDecisions {
  std::vector<std::vector<int64_t>> tiles;  // one per SamplePerfectTile, in trace order
  int64_t unroll_step = 512;                // the SampleCategorical candidate of this value
  std::optional<int64_t> compute_location;  // every SampleComputeLocation's decision, if set
};

// `sketch` with `decisions`; nullopt when it has fewer SamplePerfectTile instructions than
// decisions.tiles.
std::optional<search::Trace> WithDecisions(const search::Trace& sketch,
                                           const SketchDecisions& decisions);

}  // namespace kiln::bench
