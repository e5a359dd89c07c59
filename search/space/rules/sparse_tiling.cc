// Sparse tiling: the schedule of a stage-III sparse kernel (compiler/sparse/), whose loop over
// a row's nonzeros has a data-dependent extent (indptr[i + 1] - indptr[i]) that the dense
// rules refuse. Per block:
//  - the outermost loop, when it is spatial and constant (the rows), runs in parallel;
//  - the innermost constant loop under the data-dependent one (the feature dimension) is split;
//    when it is spatial (SpMM's columns of C) into an outer part moved above the nonzero loop (so
//    each nonzero's value and column are read once per tile), a sampled number of vectors
//    unrolled, and one vector; the tile accumulates in registers (cache_write "local" at the
//    outer part, its zeroing moved before the nonzero loop by decompose_reduction); when it is
//    a reduction (SDDMM's dot product) it stays whole and innermost, where the C emitter folds
//    it into a SIMD reduction;
//  - the nonzero loop is unrolled or not: one sketch each;
//  - a block with no data-dependent loop but a constant reduction loop between its spatial
//    outermost and innermost loops (the slot loop of an ELL kernel or a hyb part) takes that
//    loop as its nonzero loop, as above;
//  - any other block with no data-dependent loop (the initialization of C, SDDMM's scaling)
//    gets its outermost loop parallel and its innermost spatial loop split and vectorized;
//  - a function with the attribute "kiln.sparse_rows_repeat" (a hyb part whose long rows are
//    split into several stored rows adding to one row of C, compiler/sparse/formats/) keeps
//    its row loops serial: two threads would add to the same row of C at once.
#include "search/space/block_info.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

constexpr int64_t kMaxInnermost = 64;
// Vectors of a row's accumulator tile: 8 AVX-512 registers at most.
constexpr int64_t kMaxVectorsPerTile = 8;

bool ConstantExtent(const Schedule& sch, LoopRV loop) {
  return ir::AsConstInt(sch.Get(loop)->extent).has_value();
}

class SparseTiling : public ScheduleRule {
 public:
  std::string Name() const override { return "sparse_tiling"; }
  std::unique_ptr<ScheduleRule> Clone() const override {
    return std::make_unique<SparseTiling>(*this);
  }

  void Initialize(const TuneContext& context) override {
    lanes_ = std::max(1, context.vector_bytes / 4);
  }

  std::vector<Schedule> Apply(const Schedule& sch, BlockRV block) override {
    int index = sch.state().FindBlock(sch.Get(block)->name);
    if (IsRootBlock(sch.state(), index)) return {sch};
    Schedule base = sch;
    std::vector<LoopRV> loops = base.GetLoops(block);
    if (loops.empty()) return {sch};
    std::vector<LoopUseKind> uses = LoopUseKinds(base.state(), index);
    int dynamic = -1;
    for (size_t i = 0; i < loops.size(); ++i) {
      if (!ConstantExtent(base, loops[i])) dynamic = static_cast<int>(i);
    }
    // ELL and hyb parts (compiler/sparse/formats/): the constant slot loop plays the nonzero
    // loop.
    if (dynamic < 0) dynamic = ConstantSlotLoop(base, loops, uses);
    if (dynamic < 0) return {Plain(std::move(base), loops, uses)};

    // The innermost constant loop under the nonzero loop.
    int inner = -1;
    for (int i = static_cast<int>(loops.size()) - 1; i > dynamic; --i) {
      if (ConstantExtent(base, loops[i])) {
        inner = i;
        break;
      }
    }
    bool parallel_rows = dynamic > 0 && uses[0] == LoopUseKind::kSpatial &&
                         ConstantExtent(base, loops[0]) && !RowsRepeat(base);
    // A reduction (SDDMM's dot product) stays whole and innermost: the C emitter folds it into
    // a SIMD reduction, which a split would break.
    if (inner >= 0 && uses[inner] == LoopUseKind::kSpatial) {
      TileSpatialFeature(base, block, loops[dynamic], loops[inner]);
    }
    if (parallel_rows) {
      base.Parallel(loops[0]);
      // Rows by equal shares of the nonzeros or of the rows: a decision, where the function
      // names its row offsets (the C emitter balances over them; a skewed graph's long rows
      // otherwise land on one thread).
      if (HasRowOffsets(base)) {
        ExprRV balance = base.SampleCategorical({0, 1}, {0.5, 0.5});
        base.Annotate(loops[0], "kiln.parallel_balance", balance);
      }
    }
    Schedule unrolled = base;
    unrolled.Unroll(loops[dynamic]);
    return {std::move(base), std::move(unrolled)};
  }

 private:
  // SpMM's feature loop: split into [outer, unrolled, one vector of lanes] (a sampled number of
  // vectors per tile), the outer part moved above the nonzero loop. A reduction block (with
  // T.init) accumulates its tile in a local buffer the C emitter keeps in registers, zeroed
  // before the nonzero loop for every row, and written back after it.
  void TileSpatialFeature(Schedule& sch, BlockRV block, LoopRV nonzeros, LoopRV feature) const {
    int64_t extent = *ir::AsConstInt(sch.Get(feature)->extent);
    LoopRV outer, unrolled, vector;
    bool unroll = false;
    if (extent % lanes_ == 0 && extent > lanes_) {
      std::vector<LoopRV> split = sch.Split(feature, {std::nullopt, int64_t{lanes_}});
      std::vector<ExprRV> tile = sch.SamplePerfectTile(split[0], 2, kMaxVectorsPerTile);
      std::vector<LoopRV> tiled = sch.Split(split[0], {tile[0], tile[1]});
      outer = tiled[0];
      unrolled = tiled[1];
      vector = split[1];
      unroll = true;
    } else {
      std::vector<ExprRV> tile = sch.SamplePerfectTile(feature, 2, kMaxInnermost);
      std::vector<LoopRV> split = sch.Split(feature, {tile[0], tile[1]});
      outer = split[0];
      vector = split[1];
    }
    sch.Reorder({outer, nonzeros});
    if (sch.Get(block)->init.defined()) {
      BlockRV cache = sch.CacheWrite(block, 0, "local");
      sch.ReverseComputeAt(cache, outer);
      sch.DecomposeReduction(block, nonzeros);
    }
    if (unroll) sch.Unroll(unrolled);
    sch.Vectorize(vector);
  }

  // Without a data-dependent loop: a constant reduction loop between a spatial outermost loop
  // and a constant spatial innermost loop (the slots of an ELL kernel), else -1.
  static int ConstantSlotLoop(const Schedule& sch, const std::vector<LoopRV>& loops,
                              const std::vector<LoopUseKind>& uses) {
    const int last = static_cast<int>(loops.size()) - 1;
    if (last < 2 || uses[0] != LoopUseKind::kSpatial || uses[last] != LoopUseKind::kSpatial ||
        !ConstantExtent(sch, loops[last])) {
      return -1;
    }
    for (int i = 1; i < last; ++i) {
      if (uses[i] == LoopUseKind::kReduce && ConstantExtent(sch, loops[i])) return i;
    }
    return -1;
  }

  // The function names the offsets of its rows ("kiln.sparse_row_offsets", sparse_workloads.h).
  static bool HasRowOffsets(const Schedule& sch) {
    return sch.func()->attrs.count("kiln.sparse_row_offsets") != 0;
  }

  // The function's "kiln.sparse_rows_repeat" attribute (format_workloads.h) is set.
  static bool RowsRepeat(const Schedule& sch) {
    auto it = sch.func()->attrs.find("kiln.sparse_rows_repeat");
    if (it == sch.func()->attrs.end()) return false;
    std::optional<int64_t> value = ir::AsConstInt(it->second);
    return value && *value != 0;
  }

  static Schedule Plain(Schedule sch, const std::vector<LoopRV>& loops,
                        const std::vector<LoopUseKind>& uses) {
    LoopRV last = loops.back();
    const bool parallel = uses[0] == LoopUseKind::kSpatial && !RowsRepeat(sch);
    if (uses.back() != LoopUseKind::kSpatial || !ConstantExtent(sch, last)) {
      if (parallel && ConstantExtent(sch, loops[0])) {
        sch.Parallel(loops[0]);
      }
      return sch;
    }
    std::vector<ExprRV> tile = sch.SamplePerfectTile(last, 2, kMaxInnermost);
    std::vector<LoopRV> split = sch.Split(last, {tile[0], tile[1]});
    sch.Vectorize(split[1]);
    LoopRV outer = loops.size() > 1 ? loops[0] : split[0];
    if (parallel) sch.Parallel(outer);
    return sch;
  }

  int lanes_ = 16;
};

}  // namespace

std::unique_ptr<ScheduleRule> MakeSparseTiling() { return std::make_unique<SparseTiling>(); }

}  // namespace kiln::search
