// Hand-set default schedules for the two convolutions of mobile networks (MobileNet, PP-LCNet,
// SVTR) in NCHW, where the "cpu" design space's generic tiling does poorly: a pointwise (1x1)
// convolution scheduled as the matmul it is (output channels x output pixels, the pixels as
// the vector lanes, the output written in place, the epilogue vectorized along the pixels),
// and a depthwise convolution scheduled per channel plane (the padded plane made in cache,
// each output row accumulated in registers over the unrolled window, vectorized along the
// row). Each returns the trace to replay, or nullopt when the workload is not that shape.
#pragma once

#include <cstdint>
#include <optional>

#include "ir/function.h"
#include "search/schedule/trace.h"

namespace kiln::search {

// A workload whose one reduction block is an NCHW convolution with a 1x1 window, stride 1 and
// no padding (loops n, f, y, x, c, ry, rx; reads the input as [n, c, y, x]), every other block
// after it and elementwise (an epilogue, inlined into the stage that writes the output). The
// register tile: up to 8 output channels (unrolled) by a run of one output row of up to 3
// vectors of `lanes` floats (vectorized: each input channel's run is loaded once and reused by
// every channel, each weight broadcast once), accumulated in a local tile over the input
// channels and written back per tile, the epilogue on the tile while it is in cache; parallel
// over (n, channel tile).
// kWholeRows instead tiles the fewest output rows whose pixels are whole vectors (2 rows of 40:
// 5 vectors of 16) by as many output channels as keep 28 vector accumulators; nullopt where a
// row is already whole vectors or no such rows exist.
enum class PointwiseTile { kRowRun, kWholeRows };
std::optional<Trace> PointwiseConvTrace(const ir::PrimFunc& workload, int64_t lanes,
                                        PointwiseTile tile = PointwiseTile::kRowRun);

// A workload whose one reduction block is an NCHW depthwise convolution (loops n, f, y, x,
// c, ry, rx with c of extent 1 and a window of more than one tap; weight [f, 1, kh, kw]),
// reading a padding block or the input, every block after it elementwise. Parallel over
// (n, f); the padded plane of the channel computed under that loop (in cache); each output
// row accumulated in a local row over the unrolled window and vectorized along x; the
// epilogue under the row loop.
std::optional<Trace> DepthwiseConvTrace(const ir::PrimFunc& workload);

}  // namespace kiln::search
