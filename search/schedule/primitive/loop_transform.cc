// Loop transformations: split, fuse, reorder and add_unit_loop. Each rewrites the loops and
// substitutes the old loop variables in the block bindings below, so blocks keep computing
// the same iteration space.
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include "ir/functor.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

// Adds `condition` to the predicate of every block realize directly under a statement.
class PredicateAdder : public IRMutator {
 public:
  explicit PredicateAdder(Expr condition) : condition_(std::move(condition)) {}
  Expr VisitExpr(const Expr& e) override { return e; }
  Stmt VisitStmt_(const BlockRealizeNode* op) override {
    return BlockRealize(op->iter_values, AndFold(op->predicate, condition_), op->block);
  }

 private:
  Expr condition_;
};

// Beyond any loop extent worth splitting; keeps products of factors far from overflow.
constexpr int64_t kMaxSplitProduct = int64_t{1} << 40;

}  // namespace

std::vector<Var> SplitLoop(ScheduleState& state, int loop_index, std::vector<int64_t> factors,
                           bool preserve_unit_iters) {
  // As in TVM, a loop of any kind may be split or fused and the new loops are serial: the
  // postprocessors of a MetaSchedule trace fuse loops they have made parallel, then make the
  // fused loop parallel again.
  const ForNode* loop = state.entry(loop_index).loop();
  KILN_CHECK(!factors.empty(), ErrorKind::kSchedule,
             "split: no factors given for " + LoopLabel(loop));
  int inferred = -1;
  int64_t known = 1;
  for (size_t i = 0; i < factors.size(); ++i) {
    if (factors[i] == -1) {
      KILN_CHECK(inferred < 0, ErrorKind::kSchedule,
                 "split: more than one factor of " + LoopLabel(loop) + " is to be inferred");
      inferred = static_cast<int>(i);
      continue;
    }
    KILN_CHECK(factors[i] >= 1, ErrorKind::kSchedule,
               "split: factor " + std::to_string(factors[i]) + " of " + LoopLabel(loop) +
                   " is not positive");
    KILN_CHECK(factors[i] <= kMaxSplitProduct / known, ErrorKind::kSchedule,
               "split: the factors of " + LoopLabel(loop) + " multiply to more than 2^40");
    known *= factors[i];
  }
  const DataType dtype = loop->loop_var.dtype();
  std::vector<Expr> extents(factors.size());
  bool need_predicate = false;
  if (auto extent = AsConstInt(loop->extent)) {
    if (inferred >= 0) factors[inferred] = (*extent + known - 1) / known;
    int64_t product = inferred >= 0 ? known * factors[inferred] : known;
    KILN_CHECK(product >= *extent, ErrorKind::kSchedule,
               "split: the factors of " + LoopLabel(loop) + " multiply to " +
                   std::to_string(product) + ", less than its extent " + std::to_string(*extent));
    need_predicate = product != *extent;
    for (size_t i = 0; i < factors.size(); ++i) extents[i] = IntImm(dtype, factors[i]);
  } else {
    KILN_CHECK(
        inferred >= 0, ErrorKind::kSchedule,
        "split: " + LoopLabel(loop) + " has a non-constant extent; one factor must be inferred");
    for (size_t i = 0; i < factors.size(); ++i) {
      extents[i] = static_cast<int>(i) == inferred
                       ? (known == 1 ? loop->extent
                                     : FloorDiv(loop->extent + IntImm(dtype, known - 1),
                                                IntImm(dtype, known)))
                       : IntImm(dtype, factors[i]);
    }
    need_predicate = known != 1;
  }
  // The old index is min + sum of new_k * (product of the factors inside k).
  std::vector<Var> vars;
  for (size_t i = 0; i < factors.size(); ++i) {
    vars.emplace_back(loop->loop_var.name() + "_" + std::to_string(i), dtype);
  }
  std::vector<Expr> strides(factors.size());
  Expr stride = IntImm(dtype, 1);
  for (size_t i = factors.size(); i-- > 0;) {
    strides[i] = stride;
    stride = FoldMul(extents[i], stride);
  }
  Expr index;
  for (size_t i = 0; i < factors.size(); ++i) {
    // A unit loop contributes 0 to the old index when its iteration is not preserved.
    if (!preserve_unit_iters && IsConstInt(extents[i], 1)) continue;
    Expr term = FoldMul(vars[i], strides[i]);
    index = index.defined() ? FoldAdd(index, term) : term;
  }
  if (!index.defined()) index = IntImm(dtype, 0);
  Expr old_index = FoldAdd(loop->min, index);
  Stmt body = Substitute(loop->body, VarMap{{loop->loop_var.get(), old_index}});
  if (need_predicate) body = PredicateAdder(LT(index, loop->extent)).VisitStmt(body);
  for (size_t i = factors.size(); i-- > 0;) {
    body = For(vars[i], IntImm(dtype, 0), extents[i], ForKind::kSerial, body);
  }
  state.Replace(loop, SimplifyBindings(state, loop_index, body));
  return vars;
}

Var FuseLoops(ScheduleState& state, const std::vector<int>& loop_indices,
              bool preserve_unit_iters) {
  KILN_CHECK(!loop_indices.empty(), ErrorKind::kSchedule, "fuse: no loops given");
  std::vector<const ForNode*> loops;
  for (int index : loop_indices) loops.push_back(state.entry(index).loop());
  for (size_t i = 0; i < loops.size(); ++i) {
    if (i + 1 < loops.size()) {
      KILN_CHECK(loops[i]->body.get() == loops[i + 1], ErrorKind::kSchedule,
                 "fuse: " + LoopLabel(loops[i + 1]) +
                     " is not the only statement directly inside " + LoopLabel(loops[i]) +
                     "; only perfectly nested loops can be fused");
    }
  }
  std::unordered_set<const VarNode*> vars;
  for (const ForNode* loop : loops) vars.insert(loop->loop_var.get());
  for (const ForNode* loop : loops) {
    KILN_CHECK(!UsesAnyVar(loop->extent, vars) && !UsesAnyVar(loop->min, vars),
               ErrorKind::kSchedule,
               "fuse: the extent of " + LoopLabel(loop) + " depends on another fused loop");
  }
  const DataType dtype = loops[0]->loop_var.dtype();
  std::string name;
  for (const ForNode* loop : loops) name += loop->loop_var.name() + "_";
  Var fused(name + "fused", dtype);
  VarMap map;
  Expr stride = IntImm(dtype, 1);
  for (size_t i = loops.size(); i-- > 0;) {
    Expr value = IsConstInt(stride, 1) ? Expr(fused) : FloorDiv(fused, stride);
    if (i > 0) value = FloorMod(value, loops[i]->extent);
    // A fused unit loop's iteration is its min when unit iterations are not preserved.
    if (!preserve_unit_iters && IsConstInt(loops[i]->extent, 1)) value = IntImm(dtype, 0);
    map[loops[i]->loop_var.get()] = FoldAdd(loops[i]->min, value);
    stride = FoldMul(loops[i]->extent, stride);
  }
  Stmt body = Substitute(loops.back()->body, map);
  Stmt nest = For(fused, IntImm(dtype, 0), stride, ForKind::kSerial, body);
  state.Replace(loops[0], SimplifyBindings(state, loop_indices[0], nest));
  return fused;
}

void ReorderLoops(ScheduleState& state, const std::vector<int>& loop_indices) {
  if (loop_indices.size() <= 1) return;
  std::vector<int> sorted = loop_indices;
  std::sort(sorted.begin(), sorted.end());
  for (size_t i = 0; i + 1 < sorted.size(); ++i) {
    const SRef& outer = state.entry(sorted[i]);
    KILN_CHECK(sorted[i] != sorted[i + 1], ErrorKind::kSchedule,
               "reorder: " + LoopLabel(outer.loop()) + " appears twice");
    KILN_CHECK(sorted[i + 1] < outer.end, ErrorKind::kSchedule,
               "reorder: " + LoopLabel(state.entry(sorted[i + 1]).loop()) +
                   " is not nested inside " + LoopLabel(outer.loop()) +
                   "; the loops must lie on one chain");
  }
  // The chain of loops from the outermost to the innermost given one.
  std::vector<const ForNode*> chain;
  const ForNode* bottom = state.entry(sorted.back()).loop();
  for (const ForNode* loop = state.entry(sorted.front()).loop();;) {
    chain.push_back(loop);
    if (loop == bottom) break;
    const ForNode* next = loop->body.as<ForNode>();
    KILN_CHECK(next != nullptr, ErrorKind::kSchedule,
               "reorder: " + LoopLabel(loop) +
                   " holds more than a single loop; the loops between the reordered ones must be "
                   "perfectly nested");
    loop = next;
  }
  std::vector<const ForNode*> wanted;
  for (int index : loop_indices) wanted.push_back(state.entry(index).loop());
  std::vector<const ForNode*> order = chain;
  size_t k = 0;
  std::unordered_set<const ForNode*> moved(wanted.begin(), wanted.end());
  for (auto& slot : order) {
    if (moved.count(slot)) slot = wanted[k++];
  }
  // A loop bound to both spatial and reduction iterations of a block (a fusion of such loops)
  // visits the iterations of an element in an order that only the loop order keeps: swapping
  // two of them could run an update of an element before its init.
  {
    std::unordered_map<const ForNode*, size_t> old_pos, new_pos;
    for (size_t i = 0; i < chain.size(); ++i) old_pos[chain[i]] = i;
    for (size_t i = 0; i < order.size(); ++i) new_pos[order[i]] = i;
    for (int b : state.BlocksUnder(sorted.front())) {
      const BlockRealizeNode* realize = state.entry(b).realize();
      const BlockNode* block = realize->block_node();
      std::vector<const ForNode*> mixed;
      for (const ForNode* loop : chain) {
        IterUse use = IterKindsUsing(realize, loop->loop_var.get());
        if (use.spatial && use.reduce) mixed.push_back(loop);
      }
      for (size_t a = 0; a < mixed.size(); ++a) {
        for (size_t c = a + 1; c < mixed.size(); ++c) {
          bool before = old_pos[mixed[a]] < old_pos[mixed[c]];
          KILN_CHECK(
              before == (new_pos[mixed[a]] < new_pos[mixed[c]]), ErrorKind::kSchedule,
              "reorder: " + LoopLabel(mixed[a]) + " and " + LoopLabel(mixed[c]) +
                  " are both bound to spatial and reduction iterations of " + BlockLabel(block) +
                  " (parts of a fused loop); swapping them could run an update of an element "
                  "before its init");
        }
      }
    }
  }
  // A loop whose bounds use an outer loop variable cannot move above that loop.
  for (size_t i = 0; i < order.size(); ++i) {
    std::unordered_set<const VarNode*> inner;
    for (size_t j = i; j < order.size(); ++j) inner.insert(order[j]->loop_var.get());
    KILN_CHECK(!UsesAnyVar(order[i]->min, inner) && !UsesAnyVar(order[i]->extent, inner),
               ErrorKind::kSchedule,
               "reorder: the bounds of " + LoopLabel(order[i]) +
                   " depend on a loop that would be outside it");
  }
  Stmt body = bottom->body;
  for (size_t i = order.size(); i-- > 0;) body = ForWithBody(order[i], body);
  state.Replace(chain.front(), body);
}

Var AddUnitLoopAround(ScheduleState& state, int entry) {
  const SRef& ref = state.entry(entry);
  DataType dtype = ref.loop() ? ref.loop()->loop_var.dtype() : DataType::Int(32);
  Var unit("u", dtype);
  state.Replace(ref.stmt.get(),
                For(unit, IntImm(dtype, 0), IntImm(dtype, 1), ForKind::kSerial, ref.stmt));
  return unit;
}

}  // namespace kiln::search
