// The mutators, one per file in this folder, with MetaSchedule's CPU probabilities in the
// cpu preset (tile size 0.90, compute location 0.05, unroll 0.03, parallel 0.02).
#pragma once

#include <memory>

#include "search/space/mutator.h"

namespace kiln::search {

// mutate_tile_size.cc: moves a divisor of one factor of a SamplePerfectTile decision to
// another factor (the product kept, the innermost cap respected).
std::unique_ptr<Mutator> MakeMutateTileSize();
// mutate_compute_location.cc: another location for a SampleComputeLocation decision, among
// those valid where the instruction runs.
std::unique_ptr<Mutator> MakeMutateComputeLocation();
// mutate_unroll.cc: another unroll step for the SampleCategorical that feeds the root
// block's unroll annotation.
std::unique_ptr<Mutator> MakeMutateUnroll();
// mutate_parallel.cc: another parallel budget (cores times a power of two up to the rule's)
// for the root block's parallel annotation.
std::unique_ptr<Mutator> MakeMutateParallel();
// mutate_thread_binding.cc: another thread count for a SampleCategorical that feeds a split
// (auto-bind's and cross-thread reduction's thread extents). GPU presets: tile size 0.90,
// unroll 0.08, thread binding 0.02.
std::unique_ptr<Mutator> MakeMutateThreadBinding();

}  // namespace kiln::search
