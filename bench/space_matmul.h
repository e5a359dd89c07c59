// The cpu design space's answer to the hand-written GEMM schedule: the multi-level tiling
// sketch with a packed panel of B (read cache at the outer spatial level) and a register
// tile of C (write cache at the second level), with the tile decisions the hand-written
// schedule makes. bench_space_matmul times it against bench/traces/matmul_1024.json, and
// tests/search/space/space_build_test.cc checks it structurally and numerically.
#pragma once

#include <optional>

#include "bench/matmul_manual.h"
#include "search/space/candidate.h"

namespace kiln::bench {

// The candidate for `workload` (MatmulWorkload(m, n, k) with m a multiple of tiles.rows and
// n of tiles.cols) tuned for `num_cores`: i tiled [1, m / rows, 1, rows], j tiled
// [n / cols, 1, 1, cols], k [k, 1], unroll step 512. nullopt when the space has no such
// sketch or the decisions do not replay.
std::optional<search::Candidate> HandLikeGemmCandidate(const ir::PrimFunc& workload,
                                                       const MatmulTiles& tiles, int num_cores);

}  // namespace kiln::bench
