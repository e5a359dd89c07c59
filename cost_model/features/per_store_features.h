// Per-store features in the Ansor / MetaSchedule layout: one row of 172 numbers for every
// buffer store of a scheduled function, describing the store in the context of its loops.
//   [0, 57)    arithmetic counts by kind (16, times the loops around the store); vectorize,
//              unroll and parallel loops (11 each: number, extent product, innermost extent,
//              position one-hot of 8); GPU thread bindings (8).
//   [57, 147)  per-buffer access features of up to 5 buffers (18 each: access type one-hot,
//              bytes, unique bytes, cache lines, unique lines, reuse type one-hot, reuse
//              distance in iterations and bytes, reuse count, four of the above per reuse,
//              stride), buffers ordered by cache lines touched.
//   [147, 157) arithmetic intensity curve: flops per byte touched, sampled at 10 points of
//              the loop nest from inner to outer.
//   [157, 161) allocation of the stored buffer (size, size times outer loops, outer and inner
//              loop products).
//   [161, 164) outer loops: extent product, count, auto-unroll maximum step.
//   [164, 172) the GPU kernel around the store (zero on a CPU): shared and local memory bytes
//              allocated around it, threads per block, blocks, warps per block (of 32), and
//              the stored buffer's scope one-hot (global, shared, local).
// Every value is log-scaled: log2(x + 1). StoreFeatureNames() names each column.
// A loop whose extent is not a constant counts as DataDependentExtent(function) iterations: a
// sparse kernel's loop over a row's nonzeros as the matrix's mean row length (the function's
// kiln.sparse_nnz / kiln.sparse_rows attributes), so that its stores' counts, footprints and
// intensity reflect the structure; 1 in any other function.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "ir/function.h"

namespace kiln::cost_model {

inline constexpr int kNumStoreFeatures = 172;
using FeatureRow = std::array<float, kNumStoreFeatures>;

struct StoreFeatureOptions {
  int cache_line_bytes = 64;
};

// The scheduled function lowered as far as the features need: allocations placed and
// compacted, blocks turned into loops; loop kinds (vectorize, unroll, parallel) and
// multi-dimensional buffer accesses still explicit.
ir::PrimFunc LowerForFeatures(const ir::PrimFunc& scheduled);

// round(kiln.sparse_nnz / kiln.sparse_rows) of a sparse kernel, at least 1; else 1.
int64_t DataDependentExtent(const ir::PrimFunc& func);

// One row per BufferStore of `lowered` (the result of LowerForFeatures), in program order.
std::vector<FeatureRow> ExtractStoreFeatures(const ir::PrimFunc& lowered,
                                             const StoreFeatureOptions& options = {});

// LowerForFeatures then ExtractStoreFeatures.
std::vector<FeatureRow> PerStoreFeatures(const ir::PrimFunc& scheduled,
                                         const StoreFeatureOptions& options = {});

// The name of each column ("float_mad", "B0.bytes", "arith_intensity_curve_3", ...).
const std::vector<std::string>& StoreFeatureNames();

}  // namespace kiln::cost_model
