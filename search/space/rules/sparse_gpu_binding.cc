// Sparse GPU binding: the GPU schedule of a stage-III sparse kernel (compiler/sparse/), whose
// loop over a row's nonzeros has a data-dependent extent (indptr[i + 1] - indptr[i]) that the
// dense GPU rules refuse. No thread ever shares an output with another, so no atomics and no
// cross-thread reduction are needed. Per block:
//  - the rows (the outermost loop, spatial and constant) go to blockIdx.x, one row per block;
//    or, as a second sketch, split by a sampled row-group size, the groups to blockIdx.x and
//    the rows of a group to threadIdx.y (short rows leave fewer threads idle);
//  - SpMM (a spatial feature loop under the nonzero loop): the feature loop is split by a
//    sampled perfect tile, one part bound to threadIdx.x, so that each thread owns the
//    outputs c[row, k] of its columns and walks the row's nonzeros serially, accumulating
//    them in registers (a "local" write cache); threads interleaved over the columns
//    (coalesced reads of B, one accumulator at a time) or each on a contiguous run of columns
//    (the row walked once): one sketch each;
//  - SDDMM (a reduction feature loop, the dot product): one thread per nonzero. The nonzero
//    loop is split by a sampled thread count, the inner part bound to threadIdx.x and the outer
//    one serial, so that consecutive threads take consecutive nonzeros of the row (coalesced
//    writes of out[p]); each thread computes its dot product serially over the features (in
//    global memory: cache_write refuses `out`, which the scaling block writes too). A
//    split of the dot product across threads would need a block-wide reduction of a
//    data-dependent number of partial sums, which the GPU lowering does not provide;
//  - one thread per row, as a further sketch (the default GPU schedule's shape, with the
//    accumulation in registers): GPUs emulated on a CPU (PoCL, lavapipe), where a work-group
//    is a loop over its work-items, run it best;
//  - a block with no data-dependent loop (SDDMM's scaling) gets the usual
//    binding (search/space/thread_binding.h) with a sampled thread count.
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"
#include "search/space/thread_binding.h"

namespace kiln::search {

namespace {

bool ConstantExtent(const Schedule& sch, LoopRV loop) {
  return ir::AsConstInt(sch.Get(loop)->extent).has_value();
}

std::vector<double> Uniform(size_t n) {
  return std::vector<double>(n, 1.0 / static_cast<double>(n));
}

class SparseGpuBinding : public ScheduleRule {
 public:
  explicit SparseGpuBinding(SparseGpuBindingConfig config) : config_(std::move(config)) {}
  std::string Name() const override { return "sparse_gpu_binding"; }
  void Initialize(const TuneContext& context) override {
    max_threads_ = config_.max_threads_per_block;
    if (context.max_threads_per_block > 0) max_threads_ = context.max_threads_per_block;
  }
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<SparseGpuBinding>(*this);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    const ScheduleState& state = sch.state();
    int index = state.FindBlock(sch.Get(block)->name);
    if (IsRootBlock(state, index) || !state.ChildBlocks(index).empty()) return {sch};
    Schedule base = sch;
    std::vector<LoopRV> loops = base.GetLoops(block);
    if (loops.empty()) return {sch};
    int dynamic = -1;
    for (size_t i = 0; i < loops.size(); ++i) {
      if (!ConstantExtent(base, loops[i])) dynamic = static_cast<int>(i);
    }
    if (dynamic < 0) return {BindDense(std::move(base), block)};

    std::vector<LoopUseKind> uses = LoopUseKinds(state, index);
    // The rows: one constant spatial loop above the nonzero loop. Anything else is no
    // stage-III kernel this rule knows; rewrite_unbound_block and verify_gpu_code decide.
    if (dynamic != 1 || uses[0] != LoopUseKind::kSpatial || !ConstantExtent(base, loops[0])) {
      return {sch};
    }
    int feature = -1;
    for (int i = static_cast<int>(loops.size()) - 1; i > dynamic; --i) {
      if (ConstantExtent(base, loops[i])) {
        feature = i;
        break;
      }
    }
    // Threads per block within the limit in both sketches: a row group of g rows leaves
    // max_threads / g threads to each row.
    std::vector<int64_t> groups = Within(config_.row_groups, max_threads_);
    const int64_t group_cap = groups.empty() ? 0 : max_threads_ / groups.back();
    const bool spmm = feature >= 0 && uses[feature] == LoopUseKind::kSpatial;
    std::vector<Schedule> variants;
    try {
      for (bool grouped : {false, true}) {
        if (grouped && (groups.empty() || group_cap < 1)) continue;
        const int64_t cap = grouped ? group_cap : max_threads_;
        if (spmm) {
          for (bool chunked : {false, true}) {
            Schedule s = base;
            BindFeatures(s, block, loops[dynamic], loops[feature], chunked, cap);
            BindRows(s, loops[0], grouped ? groups : std::vector<int64_t>{});
            variants.push_back(std::move(s));
          }
        } else {
          Schedule s = base;
          BindNonzeros(s, loops[dynamic], cap);
          BindRows(s, loops[0], grouped ? groups : std::vector<int64_t>{});
          variants.push_back(std::move(s));
        }
      }
      variants.push_back(RowPerThread(base, block, loops, spmm));
    } catch (const Error&) {
      return {sch};  // a primitive refused the loops: not the kernel this rule knows
    }
    return variants;
  }

 private:
  // The feature loop split in two by a sampled tile (the thread count at most `cap`), one part
  // to threadIdx.x above the nonzero loop. Each thread accumulates its outputs of the row in
  // registers (a "local" write cache, written back after the nonzero loop and zeroed before
  // it: the reduction is decomposed there), so the nonzero loop writes no global memory.
  //  - interleaved (`chunked` false): the inner part to threads, so that neighbouring threads
  //    read neighbouring elements of B's rows (coalesced); each thread walks the row once per
  //    output it owns, one accumulator at a time;
  //  - chunked: the outer part to threads, each owning a contiguous run of columns that it
  //    accumulates together while walking the row once (each nonzero's column and value read
  //    once per thread).
  // The cache must cover a dense box, so the interleaved form caches one element per output.
  void BindFeatures(Schedule& s, BlockRV block, LoopRV nonzeros, LoopRV feature, bool chunked,
                    int64_t cap) const {
    std::vector<ExprRV> tile = s.SamplePerfectTile(feature, 2, cap);
    LoopRV thread, serial;
    if (chunked) {
      std::vector<LoopRV> split = s.Split(feature, {tile[1], tile[0]});
      thread = split[0];
      serial = split[1];
      s.Reorder({thread, nonzeros});
    } else {
      std::vector<LoopRV> split = s.Split(feature, {tile[0], tile[1]});
      thread = split[1];
      serial = split[0];
      s.Reorder({thread, serial, nonzeros});
    }
    BlockRV cache = s.CacheWrite(block, 0, "local");
    s.ReverseComputeAt(cache, chunked ? thread : serial);
    s.DecomposeReduction(block, nonzeros);
    s.Bind(thread, "threadIdx.x");
  }

  // One thread per row (the default GPU schedule's shape, which suits GPUs emulated on a CPU,
  // where a work-group is a loop): the rows split by a sampled thread count, the inner part
  // to threadIdx.x, the outer to blockIdx.x; the nonzero and feature loops serial, the row's
  // outputs accumulated in registers (SpMM).
  Schedule RowPerThread(const Schedule& base, BlockRV block, const std::vector<LoopRV>& loops,
                        bool spmm) const {
    Schedule s = base;
    std::vector<int64_t> counts = Within(config_.thread_extents, max_threads_);
    KILN_CHECK(!counts.empty(), ErrorKind::kUnsupported,
               "sparse_gpu_binding: no thread count within " + std::to_string(max_threads_));
    ExprRV threads = s.SampleCategorical(counts, Uniform(counts.size()));
    std::vector<LoopRV> rows = s.Split(loops[0], {std::nullopt, threads});
    if (spmm) AccumulateInRegisters(s, block, rows[1], loops[1]);
    s.Bind(rows[0], "blockIdx.x");
    s.Bind(rows[1], "threadIdx.x");
    return s;
  }

  // A "local" write cache of `block` written back at the end of loop `at` and zeroed before
  // `decompose_at`, where the schedule allows (else `s` unchanged): the reduction then reads
  // and writes registers, not global memory, in its inner loop.
  static void AccumulateInRegisters(Schedule& s, BlockRV block, LoopRV at, LoopRV decompose_at) {
    Schedule copy = s;
    try {
      BlockRV cache = copy.CacheWrite(block, 0, "local");
      copy.ReverseComputeAt(cache, at);
      copy.DecomposeReduction(block, decompose_at);
    } catch (const Error&) {
      return;
    }
    s = std::move(copy);
  }

  // The nonzero loop split by a sampled thread count (at most `cap`), the inner part (above
  // the outer one) to threadIdx.x.
  void BindNonzeros(Schedule& s, LoopRV nonzeros, int64_t cap) const {
    std::vector<int64_t> counts = Within(config_.nonzero_threads, cap);
    KILN_CHECK(!counts.empty(), ErrorKind::kUnsupported,
               "sparse_gpu_binding: no nonzero thread count within " + std::to_string(cap));
    ExprRV threads = s.SampleCategorical(counts, Uniform(counts.size()));
    std::vector<LoopRV> split = s.Split(nonzeros, {std::nullopt, threads});
    s.Reorder({split[1], split[0]});
    s.Bind(split[1], "threadIdx.x");
  }

  // The rows to blockIdx.x, one row per block (no `groups`); or split by a group size sampled
  // from `groups`, the groups to blockIdx.x and the rows of a group to threadIdx.y.
  static void BindRows(Schedule& s, LoopRV rows, const std::vector<int64_t>& groups) {
    if (groups.empty()) {
      s.Bind(rows, "blockIdx.x");
      return;
    }
    ExprRV size = s.SampleCategorical(groups, Uniform(groups.size()));
    std::vector<LoopRV> split = s.Split(rows, {std::nullopt, size});
    s.Bind(split[0], "blockIdx.x");
    s.Bind(split[1], "threadIdx.y");
  }

  Schedule BindDense(Schedule s, BlockRV block) const {
    ThreadBindConfig bind;
    bind.thread_extents = Within(config_.thread_extents, max_threads_);
    bind.max_threads_per_block = max_threads_;
    try {
      Schedule copy = s;
      BindBlockThreads(copy, block, bind);
      return copy;
    } catch (const Error&) {
      return s;  // rewrite_unbound_block tries again
    }
  }

  static std::vector<int64_t> Within(std::vector<int64_t> values, int64_t limit) {
    std::erase_if(values, [&](int64_t v) { return v > limit; });
    return values;
  }

  SparseGpuBindingConfig config_;
  int64_t max_threads_ = 1024;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeSparseGpuBinding(SparseGpuBindingConfig config) {
  return std::make_unique<SparseGpuBinding>(std::move(config));
}

}  // namespace kiln::search
