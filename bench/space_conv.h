// The cpu design space's answer to the hand-written conv2d schedule (bench/conv_manual.h): the
// multi-level tiling rule's channel-last sketch (weights packed at the root with the output
// channel innermost, a local register tile of columns x channels laid out channels-last) with
// the tile decisions the hand-written schedule makes. bench_conv_manual times it beside the
// hand-written trace, and tests/search/space/space_build_test.cc checks it structurally and
// numerically.
#pragma once

#include <optional>

#include "bench/conv_manual.h"
#include "search/space/candidate.h"

namespace kiln::bench {

// The candidate for `workload` (Conv2dWorkload with the output width a multiple of
// tiles.cols, the filters of tiles.channels and tiles.channels of tiles.lanes, the vector
// width of the space's context) tuned for `num_cores`: output channels split by the lanes and
// the rest tiled [K / channels, 1, 1, channels / lanes], rows [H, 1, 1, 1], columns
// [1, W / cols, 1, cols], the reduction [C, 1] [3, 1] [3, 1], the padding left at the root,
// unroll step `unroll_step`.
// nullopt when the space has no such sketch or the decisions do not replay.
std::optional<search::Candidate> HandLikeConvCandidate(const ir::PrimFunc& workload,
                                                       const ConvTiles& tiles, int num_cores,
                                                       int64_t unroll_step = 512);

}  // namespace kiln::bench
