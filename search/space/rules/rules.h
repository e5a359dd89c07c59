// The schedule rules, one per file in this folder, each made by a factory with its
// configuration (defaults: MetaSchedule's for the llvm target, and for the GPU rules its cuda
// target's; see BACKGROUND.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "search/space/schedule_rule.h"

namespace kiln::search {

// auto_inline.cc: inlines a spatial, non-output block into its consumers (ComputeInline),
// unless it calls an expensive intrinsic (exp, tanh, ...) or selects (padding).
std::unique_ptr<ScheduleRule> MakeAutoInline();

// add_rfactor.cc: for a reduction block with little spatial parallelism (less than the
// cores, or less than its reduction), fuses its reduction loops, splits them in two with a
// sampled tile and adds one sketch per split loop with that loop factored out (RFactor);
// keeps the sketch without rfactor too.
struct AddRFactorConfig {
  int max_jobs_per_core = 16;
  int64_t max_innermost_factor = 64;
};
std::unique_ptr<ScheduleRule> MakeAddRFactor(AddRFactorConfig config = {});

// multi_level_tiling.cc: tiles a reduction block with data reuse by `structure` (S: a
// spatial level, R: a reduction level), each loop split by SamplePerfectTile; optionally
// (and as alternatives) adds a write cache computed at the end of a spatial tile level, and
// a packed read cache of the operand reused across the outer tiles.
struct MultiLevelTilingConfig {
  std::string structure = "SSRSRS";
  int64_t max_innermost_factor = 64;
  // The write cache ("may": one sketch without it, one per level with it), by spatial level
  // and scope. At the second level the tile is the register tile: "local", which the C
  // emitter keeps in variables; at the first it may be large, so "global" as MetaSchedule.
  std::vector<std::pair<int, std::string>> write_caches = {{1, "global"}, {2, "local"}};
  // The read cache of the operand indexed by the innermost spatial iteration but not by
  // every spatial one (a GEMM's B): "may", computed at the end of this spatial level.
  bool read_cache = true;
  int read_level = 1;
  std::string read_scope = "global";
  // The channel-last sketch (see multi_level_tiling.cc) for blocks whose innermost spatial
  // iteration indexes no operand contiguously (conv2d NCHW), with its write cache here.
  bool channel_last = true;
  std::pair<int, std::string> channel_last_write_cache = {2, "local"};
};
std::unique_ptr<ScheduleRule> MakeMultiLevelTiling(MultiLevelTilingConfig config = {});

// parallel_vectorize_unroll.cc: annotates the root block with the parallel extent (jobs per
// core times cores), the widest vectorized extent and a sampled unroll step; the
// rewrite_parallel_vectorize_unroll postprocessor turns them into loop kinds.
struct ParallelVectorizeUnrollConfig {
  int max_jobs_per_core = 16;
  int max_vectorize_extent = 64;
  std::vector<int64_t> unroll_max_steps = {0, 16, 64, 512};
  bool unroll_explicit = true;
};
std::unique_ptr<ScheduleRule> MakeParallelVectorizeUnroll(
    ParallelVectorizeUnrollConfig config = {});

// random_compute_location.cc: moves a producer that sits alone at the top of the root
// scope under a sampled loop of its consumers (SampleComputeLocation, then ComputeAt).
std::unique_ptr<ScheduleRule> MakeRandomComputeLocation();

// multi_level_tiling_gpu.cc: tiles a reduction block with data reuse by `structure`, binds
// the loops of the first spatial levels to `tile_binds` (each level's loops fused into one;
// an empty tag fuses that level into the next bound one), reads every operand through a
// `read_scope` copy computed at the end of the first reduction level and annotated for a
// cooperative fetch with a sampled vector length, and writes through a `write_scope` cache
// (or the elementwise consumer) computed at the end of the last bound level.
struct MultiLevelTilingGpuConfig {
  std::string structure = "SSSRRSRS";
  // MetaSchedule binds "blockIdx.x", "vthread.x", "threadIdx.x". Kiln's GPU lowering has no
  // virtual threads, so the presets fuse the vthread level into the threads.
  std::vector<std::string> tile_binds = {"blockIdx.x", "", "threadIdx.x"};
  int64_t max_innermost_factor = 64;
  std::vector<int64_t> vector_load_lens = {1, 2, 4};
  std::string read_scope = "shared";
  std::string write_scope = "local";
};
std::unique_ptr<ScheduleRule> MakeMultiLevelTilingGpu(MultiLevelTilingGpuConfig config = {});

// cross_thread_reduction.cc: for a reduction with little spatial work for a block's threads
// (the context's max_threads_per_block and warp_size), fuses its reduction loops, splits them
// by a sampled thread count and binds the inner part to threadIdx.x; keeps the sketch
// without too.
struct CrossThreadReductionConfig {
  std::vector<int64_t> thread_extents = {4, 8, 16, 32, 64, 128, 256, 512};
};
std::unique_ptr<ScheduleRule> MakeCrossThreadReduction(CrossThreadReductionConfig config = {});

// auto_bind.cc: binds every block at the top of the root scope that has no blockIdx loop yet
// (search/space/thread_binding.h), the thread count sampled from `thread_extents`.
struct AutoBindConfig {
  std::vector<int64_t> thread_extents = {32, 64, 128, 256, 512, 1024};
  int64_t max_threadblocks = 256;
};
std::unique_ptr<ScheduleRule> MakeAutoBind(AutoBindConfig config = {});

// sparse_tiling.cc: the schedule of a stage-III sparse kernel (loops over a row's nonzeros
// with data-dependent extents): parallel rows; SpMM's feature loop split into a tile above the
// nonzero loop, accumulated in registers, a sampled number of vectors unrolled and one vector
// (a dot product is left whole to the emitter's SIMD reduction); one sketch with the nonzero
// loop unrolled, one without. Blocks with constant loops only get parallel and vectorized
// loops.
std::unique_ptr<ScheduleRule> MakeSparseTiling();

// sparse_gpu_binding.cc: the GPU schedule of a stage-III sparse kernel: the rows to blockIdx.x
// (or row groups, the rows of a group to threadIdx.y); SpMM's feature loop split by a sampled
// tile, one part to threadIdx.x (interleaved or contiguous columns), the nonzero loop serial
// per thread, the row's outputs accumulated in registers; SDDMM one thread per nonzero (the
// nonzero loop split by a sampled thread count), its dot product serial; and one sketch with
// one thread per row. Each output has one owner thread: no atomics, no cross-thread
// reduction. Blocks without a data-dependent loop get the usual binding (thread_binding.h).
struct SparseGpuBindingConfig {
  std::vector<int64_t> thread_extents = {32, 64, 128, 256, 512, 1024};  // dense blocks, rows
  std::vector<int64_t> nonzero_threads = {8, 16, 32, 64, 128, 256};     // SDDMM's nonzeros
  std::vector<int64_t> row_groups = {2, 4, 8};                          // ascending
  int64_t max_threads_per_block = 1024;  // the context's, when it names one
};
std::unique_ptr<ScheduleRule> MakeSparseGpuBinding(SparseGpuBindingConfig config = {});

// Root block annotations the rules leave for the postprocessors (MetaSchedule's keys).
inline constexpr char kParallelAnnotation[] = "meta_schedule.parallel";
inline constexpr char kVectorizeAnnotation[] = "meta_schedule.vectorize";
inline constexpr char kUnrollExplicitAnnotation[] = "meta_schedule.unroll_explicit";
inline constexpr char kUnrollImplicitAnnotation[] = "meta_schedule.unroll_implicit";
// On a block whose producer (an rfactor block) random_compute_location should place.
inline constexpr char kRandomComputeProducer[] = "meta_schedule.random_compute_producer";
// On the fused loop of a shared-memory copy: the vector length of its cooperative fetch.
inline constexpr char kCooperativeFetchAnnotation[] = "meta_schedule.cooperative_fetch";

}  // namespace kiln::search
