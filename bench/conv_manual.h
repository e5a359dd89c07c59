// The workload and the hand-written schedule of bench_conv_manual: a float32 2-D convolution,
// NCHW input, OIHW weights, zero padding in a separate "pad" block (as bench_tune's conv2d
// and TVM's topi write it), and the schedule a library author would write for it with Kiln's
// Schedule API: the weights packed once so that a tile of output channels is contiguous, a
// register tile of output columns x output channels whose local accumulator is laid out with
// the channels innermost (vectorized along them, the input broadcast), parallel over rows.
// The trace this records is the artifact the benchmark replays (bench/traces/conv2d_56.json).
#pragma once

#include <cstdint>
#include <string>

#include "bench/baselines.h"
#include "ir/function.h"
#include "search/schedule/trace.h"

namespace kiln::bench {

// The TVMScript text of the workload, named "conv2d" (blocks "pad" and "conv"); stride 1.
std::string Conv2dScript(const Conv2dShape& shape);
ir::PrimFunc Conv2dWorkload(const Conv2dShape& shape);

// The register tile of the micro-kernel and the vector width (floats) it is written in.
struct ConvTiles {
  int64_t cols = 7;       // output columns per micro-kernel (each a broadcast of the input)
  int64_t channels = 32;  // output channels per micro-kernel and per packed weight panel
  int64_t lanes = 16;     // floats per vector (AVX-512)
};

// Schedules `workload` (Conv2dWorkload at any shape whose output width is a multiple of
// tiles.cols and output channels of tiles.channels) by hand and returns the recorded trace.
// Throws kiln::Error(kSchedule) when the tiles do not fit.
search::Trace ManualConvTrace(const ir::PrimFunc& workload, const ConvTiles& tiles = {});

}  // namespace kiln::bench
