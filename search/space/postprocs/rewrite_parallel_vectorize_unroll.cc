// Rewrite-parallel-vectorize-unroll (MetaSchedule's RewriteParallelVectorizeUnroll): the
// parallel-vectorize-unroll rule left budgets on the root block; with the tile sizes of this
// candidate known, each block gets the outer loops that every block under them iterates
// spatially fused into one parallel loop (until the parallel budget is reached), its own
// inner spatial loops fused into one vectorized loop (within the vector budget) and the
// unroll step on its outermost loop, where the unroll pass of the lowering reads it.
#include <algorithm>
#include <optional>

#include "ir/expr.h"
#include "ir/functor.h"
#include "ir/stmt.h"
#include "search/schedule/primitive/utils.h"
#include "search/space/block_info.h"
#include "search/space/postprocs/postprocs.h"
#include "search/space/rules/rules.h"

namespace kiln::search {

namespace {

struct Budgets {
  int64_t parallel = 0;
  int64_t vectorize = 0;
  int64_t unroll = 0;
  bool unroll_explicit = true;
};

int64_t IntAnnotation(const ir::BlockNode* block, const char* key) {
  auto it = block->annotations.find(key);
  if (it == block->annotations.end()) return 0;
  auto value = ir::AsConstInt(it->second);
  return value ? *value : 0;
}

// Below this many block iterations in all, a parallel region stays serial: it costs 1-3 us to
// start and join on these machines, about what so little work takes on one core (an
// 8K-element transpose or layer_norm row pass of a small transformer ran at 1.7-3 us serial
// and at 2.6-4.7 us as every candidate parallelized it, so tuning never beat the untuned
// kernel). The work counted is every block under the loop that would be parallel, so a row
// loop that compute-at gave several row passes (layer_norm's sum, variance and normalize:
// 3 x 8K iterations) is one region worth starting. MetaSchedule parallelizes every nest.
constexpr int64_t kMinParallelIterations = 1 << 14;

// The elements one iteration of `block` stores (at least 1; nested blocks not counted): a block
// that writes a whole tile per iteration (a Winograd transform stores 36 values) is that many
// elements of work.
int64_t StoresPerIteration(const ir::BlockNode* block) {
  struct Counter : ir::IRVisitor {
    using IRVisitor::VisitStmt_;
    void VisitStmt_(const ir::BufferStoreNode* op) override {
      ++stores;
      IRVisitor::VisitStmt_(op);
    }
    void VisitStmt_(const ir::BlockRealizeNode*) override {}
    int64_t stores = 0;
  } counter;
  if (block != nullptr) counter.VisitStmt(block->body);
  return std::max<int64_t>(counter.stores, 1);
}

// How many elements the blocks under `loop` store in all (iterations times the stores of one),
// counting the loops from `loop` inward; nullopt when an extent is not a constant.
std::optional<int64_t> BlockIterationsUnder(const ScheduleState& state, int loop) {
  int64_t total = 0;
  for (int block : state.BlocksUnder(loop)) {
    std::vector<int> loops = state.LoopsAbove(block);
    auto from = std::find(loops.begin(), loops.end(), loop);
    int64_t product = StoresPerIteration(state.entry(block).block());
    for (auto it = from; it != loops.end(); ++it) {
      auto extent = ir::AsConstInt(state.entry(*it).loop()->extent);
      if (!extent) return std::nullopt;
      product *= *extent;
    }
    total += product;
  }
  return total;
}

// Whether the region that parallelizing the outermost of `loops` would start runs its blocks
// fewer than kMinParallelIterations times.
bool TooSmallToParallelize(const ScheduleState& state, const std::vector<int>& loops) {
  std::optional<int64_t> iterations = BlockIterationsUnder(state, loops.front());
  return iterations && *iterations < kMinParallelIterations;
}

// `inner` is the whole body of `outer` (the two can be fused).
bool DirectlyNested(const ScheduleState& state, int outer, int inner) {
  return state.entry(outer).loop()->body.get() == state.entry(inner).stmt.get();
}

class RewriteParallelVectorizeUnroll : public Postproc {
 public:
  std::string Name() const override { return "rewrite_parallel_vectorize_unroll"; }
  void Initialize(const TuneContext& context) override {
    vector_bytes_ = std::max(1, context.vector_bytes);
  }
  std::unique_ptr<Postproc> Clone() const override {
    return std::make_unique<RewriteParallelVectorizeUnroll>(*this);
  }

  bool Apply(Schedule& sch) override {
    std::vector<std::string> blocks = BlocksInPostOrder(sch.state());
    if (blocks.empty()) return true;
    const std::string& root_name = blocks.back();
    const ir::BlockNode* root = sch.state().entry(sch.state().FindBlock(root_name)).block();
    Budgets budgets;
    budgets.parallel = IntAnnotation(root, kParallelAnnotation);
    budgets.vectorize = IntAnnotation(root, kVectorizeAnnotation);
    budgets.unroll = IntAnnotation(root, kUnrollExplicitAnnotation);
    if (!budgets.unroll) {
      budgets.unroll = IntAnnotation(root, kUnrollImplicitAnnotation);
      budgets.unroll_explicit = false;
    }
    bool any = false;
    for (const char* key : {kParallelAnnotation, kVectorizeAnnotation, kUnrollExplicitAnnotation,
                            kUnrollImplicitAnnotation}) {
      any |= root->annotations.count(key) > 0;
    }
    if (!any) return true;
    BlockRV root_rv = sch.GetBlock(root_name);
    for (const char* key : {kParallelAnnotation, kVectorizeAnnotation, kUnrollExplicitAnnotation,
                            kUnrollImplicitAnnotation}) {
      if (sch.Get(root_rv)->annotations.count(key)) sch.Unannotate(root_rv, key);
    }
    // Program order, so that a loop shared by several blocks is decided by the first.
    std::vector<std::string> order;
    for (int b : sch.state().BlocksUnder(sch.state().FindBlock(root_name))) {
      order.push_back(sch.state().entry(b).block()->name);
    }
    for (const std::string& name : order) RewriteBlock(sch, name, budgets);
    return true;
  }

 private:
  void RewriteBlock(Schedule& sch, const std::string& name, const Budgets& budgets) const {
    const ScheduleState& state = sch.state();
    int index = state.FindBlock(name);
    if (index < 0) return;
    std::vector<int> loops = state.LoopsAbove(index);
    if (loops.empty()) return;
    std::vector<LoopUseKind> kinds = LoopUseKinds(state, index);
    // Outer loops to parallelize, unless the whole nest is too small to pay for a parallel
    // region.
    size_t num_parallel = 0;
    if (budgets.parallel > 1 && !TooSmallToParallelize(state, loops)) {
      int64_t product = 1;
      for (size_t i = 0; i < loops.size() && product < budgets.parallel; ++i) {
        const ir::ForNode* loop = state.entry(loops[i]).loop();
        auto extent = ir::AsConstInt(loop->extent);
        if (loop->for_kind != ir::ForKind::kSerial || !extent) break;
        if (i > 0 && !DirectlyNested(state, loops[i - 1], loops[i])) break;
        bool spatial = true;
        for (const LoopUse& use : BlocksUsingLoop(state, loops[i])) {
          spatial &= use.use.only_spatial();
        }
        if (!spatial) break;
        ++num_parallel;
        product *= *extent;
      }
      if (product <= 1) num_parallel = 0;
    }
    // Inner loops to vectorize: this block's alone, spatial, within the vector budget.
    size_t num_vector = 0;
    int64_t vector_extent = 1;
    if (budgets.vectorize > 1) {
      int64_t& product = vector_extent;
      for (size_t i = loops.size(); i-- > num_parallel;) {
        const ir::ForNode* loop = state.entry(loops[i]).loop();
        auto extent = ir::AsConstInt(loop->extent);
        if (loop->for_kind != ir::ForKind::kSerial || !extent) break;
        if (kinds[i] != LoopUseKind::kSpatial &&
            !(kinds[i] == LoopUseKind::kUnused && *extent == 1)) {
          break;
        }
        if (state.BlocksUnder(loops[i]).size() != 1) break;
        if (i + 1 < loops.size() && !DirectlyNested(state, loops[i], loops[i + 1])) break;
        if (product * *extent > budgets.vectorize) break;
        product *= *extent;
        ++num_vector;
      }
      if (product <= 1) num_vector = 0;
    }
    int64_t lanes = Lanes(state.entry(index).block());
    // Fused loops wider than a register are split into unrolled registers below; that needs
    // the fused extent to be whole registers. Else (a register tile of 4 rows by 14 columns)
    // the fused loop would index its rows by a division and a remainder inside one vector:
    // the innermost loop alone is vectorized and the rows stay serial loops to unroll.
    if (num_vector > 1 && vector_extent > lanes && vector_extent % lanes != 0) {
      vector_extent = *ir::AsConstInt(state.entry(loops.back()).loop()->extent);
      num_vector = vector_extent > 1 ? 1 : 0;
    }
    // An innermost spatial loop longer than the budget (a row that compute-at brought under a
    // parallel row loop: softmax's exp and scale over 128 columns) still gets one register's
    // width of it vectorized: split by the lanes, the outer part left serial.
    bool split_innermost = false;
    if (budgets.vectorize >= lanes && lanes > 1 && num_vector == 0 && loops.size() > num_parallel) {
      const ir::ForNode* loop = state.entry(loops.back()).loop();
      auto extent = ir::AsConstInt(loop->extent);
      split_innermost = loop->for_kind == ir::ForKind::kSerial && extent &&
                        *extent > budgets.vectorize && *extent % lanes == 0 &&
                        kinds.back() == LoopUseKind::kSpatial &&
                        state.BlocksUnder(loops.back()).size() == 1;
    }
    if (num_parallel == 0 && num_vector == 0 && !split_innermost && budgets.unroll <= 0) return;
    BlockRV block = sch.GetBlock(name);
    std::vector<LoopRV> rvs = sch.GetLoops(block);
    LoopRV outer = rvs.front();
    if (num_parallel > 0) {
      std::vector<LoopRV> group(rvs.begin(), rvs.begin() + num_parallel);
      outer = group.size() == 1 ? group.front() : sch.Fuse(group);
      sch.Parallel(outer);
    }
    if (num_vector > 0) {
      std::vector<LoopRV> group(rvs.end() - num_vector, rvs.end());
      LoopRV vector_loop = group.size() == 1 ? group.front() : sch.Fuse(group);
      // Wider than a register: the C compiler handles a generic vector of several registers
      // badly, so the loop becomes unrolled copies of one register's width.
      if (vector_extent > lanes && vector_extent % lanes == 0) {
        std::vector<LoopRV> parts = sch.Split(vector_loop, {std::nullopt, lanes});
        sch.Unroll(parts[0]);
        vector_loop = parts[1];
      }
      sch.Vectorize(vector_loop);
    } else if (split_innermost) {
      std::vector<LoopRV> parts = sch.Split(sch.GetLoops(block).back(), {std::nullopt, lanes});
      sch.Vectorize(parts[1]);
    }
    if (budgets.unroll > 0 && !sch.Get(outer)->annotations.count("pragma_auto_unroll_max_step")) {
      sch.Annotate(outer, "pragma_auto_unroll_max_step", budgets.unroll);
      sch.Annotate(outer, "pragma_unroll_explicit", int64_t{budgets.unroll_explicit ? 1 : 0});
    }
  }

  // Elements of the block's output in one vector register.
  int64_t Lanes(const ir::BlockNode* node) const {
    int64_t element_bytes =
        node->writes.empty() ? 4 : std::max(1, node->writes[0].buffer->dtype.bits() / 8);
    return std::max<int64_t>(1, vector_bytes_ / element_bytes);
  }

  int vector_bytes_ = 64;
};

}  // namespace

std::unique_ptr<Postproc> MakeRewriteParallelVectorizeUnroll() {
  return std::make_unique<RewriteParallelVectorizeUnroll>();
}

}  // namespace kiln::search
