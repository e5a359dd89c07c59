// compute_at and reverse_compute_at: move a block under a loop of the stage it feeds (or
// is fed by), so that each iteration of the loop computes just the part of the buffer that
// the loop's body needs. The needed region is found by relaxing the other blocks' accesses
// over the loops inside the target loop (interval analysis), and the moved block gets a
// fresh loop nest covering it.
#include <algorithm>
#include <optional>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/int_set.h"
#include "ir/arith/linear_form.h"
#include "ir/text/printer.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

bool InSubtree(const ScheduleState& state, int root, int entry) {
  return entry > root && entry < state.entry(root).end;
}

// A loop whose iterations are the threads of one GPU thread block (threadIdx, vthread).
bool IsThreadLoop(const ForNode* f) {
  return f->for_kind == ForKind::kThreadBinding &&
         (f->thread_tag.rfind("threadIdx", 0) == 0 || f->thread_tag.rfind("vthread", 0) == 0);
}

// The accessed region of `buffer` by `block` under its binding, relaxed over the loops
// between `loop` and the block, and for a buffer shared by a GPU thread block also over the
// thread loops above `loop`: every thread of the block reads the one copy, so it must hold
// what all of them need (TVM relaxes by storage scope the same way). Returns one [min, max]
// interval per dimension.
std::vector<arith::IntervalSet> RelaxedRegion(const ScheduleState& state, int block, int loop,
                                              const Buffer& buffer, bool writes,
                                              arith::Analyzer& analyzer) {
  bool shared = buffer->scope.rfind("shared", 0) == 0;
  const BlockRealizeNode* realize = state.entry(block).realize();
  const BlockNode* node = realize->block_node();
  VarMap binding;
  for (size_t i = 0; i < node->iter_vars.size(); ++i) {
    binding[node->iter_vars[i].var.get()] = realize->iter_values[i];
  }
  arith::VarIntervals dom;
  for (int l : state.LoopsAbove(block)) {
    const ForNode* f = state.entry(l).loop();
    if (!InSubtree(state, loop, l) && !(shared && IsThreadLoop(f))) continue;
    dom[f->loop_var.get()] = arith::IntervalSet::FromRange(RangeFromMinExtent(f->min, f->extent));
  }
  std::vector<arith::IntervalSet> result;
  for (const BufferRegion& r : writes ? node->writes : node->reads) {
    if (!r.buffer.same_as(buffer)) continue;
    for (size_t d = 0; d < r.region.size(); ++d) {
      Expr lo = Substitute(r.region[d].min, binding);
      Expr hi = Substitute(r.region[d].min + r.region[d].extent - 1, binding);
      arith::IntervalSet s = arith::Union(arith::EvalSet(lo, dom, analyzer),
                                          arith::EvalSet(hi, dom, analyzer), analyzer);
      if (result.size() <= d) {
        result.push_back(s);
      } else {
        result[d] = arith::Union(result[d], s, analyzer);
      }
    }
  }
  return result;
}

// Why the part of `buffer` that `block` writes under `loop` is not a dense box (empty when
// it is). Each index must be affine in the loops between `loop` and the block, each such loop
// may feed one dimension only, and their strides must leave no gaps: sorted by stride, each
// stride is at most one more than the span of the smaller ones. A strided part (the inner
// half of a split reordered outside its outer half) has a hull with elements that no
// iteration of `loop` writes.
std::string WhyProducedRegionHasGaps(const ScheduleState& state, int block, int loop,
                                     const Buffer& buffer, arith::Analyzer& analyzer) {
  const BlockRealizeNode* realize = state.entry(block).realize();
  const BlockNode* node = realize->block_node();
  VarMap binding;
  for (size_t i = 0; i < node->iter_vars.size(); ++i) {
    binding[node->iter_vars[i].var.get()] = realize->iter_values[i];
  }
  std::unordered_map<const VarNode*, const ForNode*> inner;
  std::unordered_set<const VarNode*> inner_vars;
  for (int l : state.LoopsAbove(block)) {
    if (!InSubtree(state, loop, l)) continue;
    inner[state.entry(l).loop()->loop_var.get()] = state.entry(l).loop();
    inner_vars.insert(state.entry(l).loop()->loop_var.get());
  }
  std::unordered_map<const VarNode*, size_t> dim_of_loop;
  for (const BufferRegion& r : node->writes) {
    if (!r.buffer.same_as(buffer)) continue;
    for (size_t d = 0; d < r.region.size(); ++d) {
      Expr index = analyzer.Simplify(Substitute(r.region[d].min, binding));
      std::string where = "its index " + PrintExpr(index) + " in dimension " + std::to_string(d);
      if (!IsConstInt(r.region[d].extent, 1) && UsesAnyVar(index, inner_vars)) {
        return "it writes a range, not a point, at " + where;
      }
      std::vector<std::pair<int64_t, int64_t>> strides;  // (|stride|, extent)
      for (const arith::LinearTerm& term : arith::ToLinear(index).terms) {
        const auto* var = term.atom.as<VarNode>();
        auto it = var ? inner.find(var) : inner.end();
        if (it == inner.end()) {
          if (UsesAnyVar(term.atom, inner_vars)) {
            return where + " is not affine in the loops under it";
          }
          continue;
        }
        auto [slot, fresh] = dim_of_loop.emplace(var, d);
        if (!fresh && slot->second != d) {
          return "the loop " + it->second->loop_var.name() + " feeds two of its dimensions";
        }
        // A symbolic extent (-1) is fine on the loop of the largest stride only.
        std::optional<int64_t> extent = AsConstInt(it->second->extent);
        strides.emplace_back(term.coef < 0 ? -term.coef : term.coef, extent.value_or(-1));
      }
      std::sort(strides.begin(), strides.end());
      int64_t span = 0;
      for (size_t k = 0; k < strides.size(); ++k) {
        auto [stride, extent] = strides[k];
        if (extent == 1) continue;
        if (stride > span + 1) {
          return where + " steps by " + std::to_string(stride) +
                 " over the loops under it, leaving gaps";
        }
        if (extent < 0 && k + 1 < strides.size()) {
          return where + " has a loop of symbolic extent inside a larger stride";
        }
        span += stride * (extent - 1);
      }
    }
  }
  return "";
}

}  // namespace

void ComputeAtLoop(ScheduleState& state, int b, int l, bool reverse, bool preserve_unit_loops) {
  const std::string what = reverse ? "reverse_compute_at" : "compute_at";
  const BlockRealizeNode* realize = state.entry(b).realize();
  const BlockNode* block = realize->block_node();
  const ForNode* loop = state.entry(l).loop();
  const std::string block_label = BlockLabel(block);
  int scope = state.ScopeOf(b);
  KILN_CHECK(scope >= 0 && state.ScopeOf(l) == scope, ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " is not in the scope of " + block_label);
  KILN_CHECK(!InSubtree(state, l, b), ErrorKind::kSchedule,
             what + ": " + block_label + " is already under " + LoopLabel(loop));
  int root = RemovalRoot(state, b);
  KILN_CHECK(!InSubtree(state, root, l), ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " is one of the loops of " + block_label + " itself");
  KILN_CHECK(IsInSequence(state, root), ErrorKind::kSchedule,
             what + ": " + block_label + " shares its loops with other statements");
  KILN_CHECK(reverse ? b >= state.entry(l).end : b < l, ErrorKind::kSchedule,
             what + ": " + block_label + " must come " + (reverse ? "after " : "before ") +
                 LoopLabel(loop));
  // Moving the block reorders it with the stages between its place and the loop's: none of
  // them may write what it reads or touch what it writes, and it must be the only writer of
  // its buffers (an init block split from its update cannot move on its own).
  {
    // Entries are in program order: the block passes those between its place and the end of
    // the loop's body (or between the loop and its place, when it moves up).
    int first = reverse ? l + 1 : b + 1;
    int last = reverse ? b - 1 : state.entry(l).end - 1;
    for (int other : state.ChildBlocks(scope)) {
      if (other == b) continue;
      const BlockNode* o = state.entry(other).block();
      bool passed = other >= first && other <= last;
      for (const BufferRegion& w : block->writes) {
        KILN_CHECK(!BlockWrites(o, w.buffer), ErrorKind::kSchedule,
                   what + ": " + w.buffer->name + " is written by both " + block_label + " and " +
                       BlockLabel(o) + "; only the single producer of a buffer can move");
        KILN_CHECK(!(reverse && passed && BlockReads(o, w.buffer)), ErrorKind::kSchedule,
                   what + ": " + BlockLabel(o) + " reads " + w.buffer->name + ", which " +
                       block_label +
                       " writes, between the two places; moving it would change what is read");
      }
      for (const BufferRegion& r : block->reads) {
        bool producer_under_loop = reverse && InSubtree(state, l, other);
        KILN_CHECK(
            !(passed && !producer_under_loop && BlockWrites(o, r.buffer)), ErrorKind::kSchedule,
            what + ": " + BlockLabel(o) + " writes " + r.buffer->name + ", which " + block_label +
                " reads, between the two places; moving it would change what it "
                "reads");
      }
    }
  }
  // The buffer that links the block with the blocks under the loop.
  Buffer buffer;
  for (const BufferRegion& r : reverse ? block->reads : block->writes) {
    bool linked = false;
    for (int other : state.ChildBlocks(scope)) {
      if (other == b) continue;
      const BlockNode* o = state.entry(other).block();
      bool related = reverse ? BlockWrites(o, r.buffer) : BlockReads(o, r.buffer);
      if (!related) continue;
      KILN_CHECK(InSubtree(state, l, other), ErrorKind::kSchedule,
                 what + ": " + BlockLabel(o) + (reverse ? " writes " : " reads ") + r.buffer->name +
                     " but is not under " + LoopLabel(loop));
      linked = true;
    }
    if (!linked) continue;
    KILN_CHECK(!buffer.defined(), ErrorKind::kSchedule,
               what + ": " + block_label + " is linked to the blocks under " + LoopLabel(loop) +
                   " by more than one buffer");
    buffer = r.buffer;
  }
  KILN_CHECK(buffer.defined(), ErrorKind::kSchedule,
             what + ": no block under " + LoopLabel(loop) + (reverse ? " produces" : " consumes") +
                 " what " + block_label + (reverse ? " reads" : " writes"));
  // A consumer placed under the loop reads, in each iteration, what the producers wrote in it:
  // those values must be final, so neither the loop nor one outside it may drive a
  // reduction of a producer.
  if (reverse) {
    for (int other : state.BlocksUnder(l)) {
      const BlockRealizeNode* p = state.entry(other).realize();
      if (!BlockWrites(p->block_node(), buffer)) continue;
      for (int outer : state.LoopsAbove(other)) {
        if (InSubtree(state, l, outer)) continue;
        const ForNode* f = state.entry(outer).loop();
        for (size_t i = 0; i < p->iter_values.size(); ++i) {
          const IterVar& iv = p->block_node()->iter_vars[i];
          KILN_CHECK(iv.kind != IterKind::kReduce || !UsesVar(p->iter_values[i], f->loop_var.get()),
                     ErrorKind::kSchedule,
                     what + ": " + LoopLabel(f) + " is bound to the reduction iteration " +
                         iv.var.name() + " of " + BlockLabel(p->block_node()) +
                         ", which produces " + buffer->name + "; its values are not final inside " +
                         LoopLabel(loop));
        }
      }
    }
  }
  // The moved block must access the buffer at single points given by its iter vars.
  std::vector<int> dim_of(block->iter_vars.size(), -1);
  for (const BufferRegion& r : reverse ? block->reads : block->writes) {
    if (!r.buffer.same_as(buffer)) continue;
    for (size_t d = 0; d < r.region.size(); ++d) {
      const auto* v = r.region[d].min.as<VarNode>();
      int iter = -1;
      for (size_t k = 0; v && k < block->iter_vars.size(); ++k) {
        if (block->iter_vars[k].var.get() == v) iter = static_cast<int>(k);
      }
      KILN_CHECK(iter >= 0 && IsConstInt(r.region[d].extent, 1) && dim_of[iter] < 0,
                 ErrorKind::kSchedule,
                 what + ": " + block_label + " accesses " + buffer->name +
                     " at an index that is not one of its iteration variables");
      dim_of[iter] = static_cast<int>(d);
    }
  }
  arith::Analyzer analyzer;
  for (int outer : state.LoopsAbove(l)) {
    const ForNode* f = state.entry(outer).loop();
    analyzer.Bind(f->loop_var, RangeFromMinExtent(f->min, f->extent));
  }
  analyzer.Bind(loop->loop_var, RangeFromMinExtent(loop->min, loop->extent));
  std::vector<arith::IntervalSet> region;
  for (int other : state.BlocksUnder(l)) {
    const BlockNode* o = state.entry(other).block();
    if (!(reverse ? BlockWrites(o, buffer) : BlockReads(o, buffer))) continue;
    // A producer moved under the loop may compute the hull of what is read there (some
    // elements twice, all of them right); a consumer may only read what the loop wrote.
    if (reverse) {
      std::string gaps = WhyProducedRegionHasGaps(state, other, l, buffer, analyzer);
      KILN_CHECK(gaps.empty(), ErrorKind::kSchedule,
                 what + ": the part of " + buffer->name + " that " + BlockLabel(o) +
                     " writes under " + LoopLabel(loop) + " is not a dense box (" + gaps + "); " +
                     block_label + " would read elements no iteration of the loop has written");
    }
    auto r = RelaxedRegion(state, other, l, buffer, reverse, analyzer);
    if (region.empty()) {
      region = r;
    } else {
      for (size_t d = 0; d < r.size(); ++d) region[d] = arith::Union(region[d], r[d], analyzer);
    }
  }
  // A fresh loop nest over the needed part of each iteration variable's domain.
  std::vector<Var> loop_vars;
  std::vector<Expr> extents, bindings;
  Expr predicate = BoolImm(true);
  for (size_t k = 0; k < block->iter_vars.size(); ++k) {
    const IterVar& iv = block->iter_vars[k];
    Expr min = iv.dom.min, extent = iv.dom.extent;
    if (dim_of[k] >= 0) {
      const arith::IntervalSet& s = region.at(dim_of[k]);
      KILN_CHECK(s.min.defined() && s.max.defined(), ErrorKind::kSchedule,
                 what + ": cannot bound the region of " + buffer->name + " needed under " +
                     LoopLabel(loop));
      min = analyzer.Simplify(s.min);
      extent = analyzer.Simplify(s.max - s.min + 1);
    }
    Expr value = min;
    if (!IsConstInt(extent, 1) || preserve_unit_loops) {
      Var v("ax" + std::to_string(loop_vars.size()), iv.var.dtype());
      loop_vars.push_back(v);
      extents.push_back(extent);
      value = analyzer.Simplify(FoldAdd(min, v));
      analyzer.Bind(v, RangeFromMinExtent(IntImm(v.dtype(), 0), extent));
    }
    bindings.push_back(value);
    if (dim_of[k] >= 0) {
      // Edge tiles may reach past the domain: guard them.
      Expr lo_ok = value >= iv.dom.min;
      Expr hi_ok = value < iv.dom.min + iv.dom.extent;
      if (!analyzer.CanProve(lo_ok)) predicate = AndFold(predicate, lo_ok);
      if (!analyzer.CanProve(hi_ok)) predicate = AndFold(predicate, hi_ok);
    }
  }
  Stmt nest = BlockRealize(bindings, predicate, realize->block);
  for (size_t i = loop_vars.size(); i-- > 0;) {
    nest = For(loop_vars[i], IntImm(loop_vars[i].dtype(), 0), extents[i], ForKind::kSerial, nest);
  }
  Stmt body = reverse ? SeqStmt({loop->body, nest}) : SeqStmt({nest, loop->body});
  state.Replace({{loop, ForWithBody(loop, body)}, {state.entry(root).stmt.get(), Stmt()}});
}

}  // namespace kiln::search
