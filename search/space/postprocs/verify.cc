// Verify: the last postprocessor, rejecting candidates that the code generator would build
// badly or not at all: a parallel loop inside another (nested thread pools), a vectorized
// loop that holds another loop or is not of constant extent (it cannot become one vector
// statement), or a "local" buffer whose tile is too large for a thread's stack (a register
// tile sampled as big as the matrix). Cheap structural checks, so that no build and no
// sandbox crash is spent on such a candidate.
#include <algorithm>
#include <unordered_set>

#include "ir/expr.h"
#include "ir/substitute.h"
#include "search/space/postprocs/postprocs.h"

namespace kiln::search {

namespace {

class Verify : public Postproc {
 public:
  std::string Name() const override { return "verify"; }
  void Initialize(const TuneContext&) override {}
  std::unique_ptr<Postproc> Clone() const override { return std::make_unique<Verify>(*this); }
  bool Apply(Schedule& sch) override {
    const ScheduleState& state = sch.state();
    for (int i = 0; i < static_cast<int>(state.size()); ++i) {
      const ir::ForNode* loop = state.entry(i).loop();
      if (loop == nullptr) continue;
      if (loop->for_kind == ir::ForKind::kVectorized) {
        if (!ir::AsConstInt(loop->extent)) return false;
        for (int j = i + 1; j < state.entry(i).end; ++j) {
          if (state.entry(j).loop()) return false;
        }
      }
      if (loop->for_kind == ir::ForKind::kParallel) {
        for (int p = state.entry(i).parent; p >= 0; p = state.entry(p).parent) {
          const ir::ForNode* outer = state.entry(p).loop();
          if (outer && outer->for_kind == ir::ForKind::kParallel) return false;
        }
      }
    }
    return LocalTilesFit(state);
  }

 private:
  // Beyond this a "local" tile is neither registers nor a reasonable stack array.
  static constexpr int64_t kMaxLocalTileBytes = 256 << 10;

  // Each block reading a "local" buffer reads it under the loops it does not share with the
  // block writing it: the iterations of those that index the buffer are the tile it is
  // compacted to (a loop that only repeats the reads, as a reduction loop around the update
  // of an accumulator, does not enlarge it).
  static bool LocalTilesFit(const ScheduleState& state) {
    for (int p = 0; p < static_cast<int>(state.size()); ++p) {
      const ir::BlockNode* producer = state.entry(p).block();
      if (producer == nullptr) continue;
      for (const ir::BufferRegion& write : producer->writes) {
        if (write.buffer->scope != "local") continue;
        std::unordered_set<int> above;
        for (int a = state.entry(p).parent; a >= 0; a = state.entry(a).parent) above.insert(a);
        for (int q = 0; q < static_cast<int>(state.size()); ++q) {
          const ir::BlockNode* consumer = state.entry(q).block();
          if (consumer == nullptr || q == p) continue;
          std::vector<const ir::BufferRegion*> reads;
          for (const ir::BufferRegion& r : consumer->reads) {
            if (r.buffer.same_as(write.buffer)) reads.push_back(&r);
          }
          if (reads.empty()) continue;
          // The bindings of the iter vars that index the buffer.
          std::vector<ir::Expr> indexing;
          const ir::BlockRealizeNode* realize = state.entry(q).realize();
          for (size_t v = 0; v < consumer->iter_vars.size(); ++v) {
            bool used = false;
            for (const ir::BufferRegion* r : reads) {
              for (const ir::Range& range : r->region) {
                used |= ir::UsesVar(range.min, consumer->iter_vars[v].var.get()) ||
                        ir::UsesVar(range.extent, consumer->iter_vars[v].var.get());
              }
            }
            if (used) indexing.push_back(realize->iter_values[v]);
          }
          int64_t bytes = std::max(1, write.buffer->dtype.bits() / 8);
          for (int loop : state.LoopsAbove(q)) {
            if (above.count(loop)) continue;
            const ir::ForNode* node = state.entry(loop).loop();
            bool indexes = false;
            for (const ir::Expr& value : indexing)
              indexes |= ir::UsesVar(value, node->loop_var.get());
            if (!indexes) continue;
            auto extent = ir::AsConstInt(node->extent);
            if (!extent) break;
            bytes *= *extent;
            if (bytes > kMaxLocalTileBytes) return false;
          }
        }
      }
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<Postproc> MakeVerify() { return std::make_unique<Verify>(); }

}  // namespace kiln::search
