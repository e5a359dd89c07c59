// The workload and the hand-written schedule of bench_matmul_manual: a plain float32 matmul
// C[M, N] = A[M, K] * B[K, N] (TVMScript), and the schedule a BLAS author would write for it
// with Kiln's Schedule API (panel packing of B, a register-tiled micro-kernel with the
// accumulator in a local cache, vectorized and unrolled, parallel over column panels). The
// trace this records is the artifact the benchmark replays (bench/traces/matmul_1024.json).
#pragma once

#include <cstdint>
#include <string>

#include "ir/function.h"
#include "search/schedule/schedule.h"
#include "search/schedule/trace.h"

namespace kiln::bench {

// The TVMScript text of the workload, named "matmul".
std::string MatmulScript(int64_t m, int64_t n, int64_t k);
ir::PrimFunc MatmulWorkload(int64_t m, int64_t n, int64_t k);

// The register tile of the micro-kernel and the vector width (floats) it is written in.
struct MatmulTiles {
  int64_t rows = 8;    // rows of C per micro-kernel (register tile height)
  int64_t cols = 32;   // columns of C per micro-kernel and width of a packed B panel
  int64_t lanes = 16;  // floats per vector (AVX-512)
};

// Schedules `workload` (MatmulWorkload or the same function at another size) by hand and
// returns the recorded trace. Throws kiln::Error(kSchedule) when the tiles do not fit.
search::Trace ManualMatmulTrace(const ir::PrimFunc& workload, const MatmulTiles& tiles = {});

// Splits `loop` into vectors of `lanes`: the outer part unrolled, the inner vectorized (the
// hand-written schedules' micro-kernels and copies).
void VectorizeByLanes(search::Schedule& sch, search::LoopRV loop, int64_t lanes);

// The trace's JSON (search::Trace::ToJSON) with one instruction per line, as committed in
// bench/traces/: diffable, and read back by Trace::FromJSON like any JSON.
std::string FormatTraceJson(const search::Trace& trace);

}  // namespace kiln::bench
