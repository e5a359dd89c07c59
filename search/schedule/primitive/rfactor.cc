// rfactor (reduction topic, with decompose_reduction in reduction.cc): factor a reduction
// over one of its loops, as TVM's rfactor does. The block becomes NAME_rf, which computes
// partial results into a new buffer NAME_rf with one more dimension (the factored loop's
// extent, at position factor_axis) and keeps every loop; a new write-back block, keeping the
// name NAME, then reduces the partial results over that dimension into the original buffer,
// under copies of the loops the spatial iterations use and of the factored loop. The
// factored loop is a spatial iteration of NAME_rf, so it can then be parallelized or
// vectorized, which is the point of the primitive.
#include <unordered_set>

#include "ir/arith/expr_compare.h"
#include "ir/arith/region.h"
#include "ir/compute/reduce.h"
#include "ir/functor.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

struct Reducer {
  compute::ReduceKind kind;
  Expr rhs;  // what is combined into the accumulator
};

// The reducer of `store` (acc = acc (+) rhs, either operand order), or nullopt.
std::optional<Reducer> MatchReducer(const BufferStoreNode* store) {
  auto is_acc = [&](const Expr& e) {
    const auto* load = e.as<BufferLoadNode>();
    if (!load || !load->buffer.same_as(store->buffer)) return false;
    for (size_t i = 0; i < load->indices.size(); ++i) {
      if (!arith::ExprDeepEqual(load->indices[i], store->indices[i])) return false;
    }
    return true;
  };
  auto match = [&](compute::ReduceKind kind, const Expr& a,
                   const Expr& b) -> std::optional<Reducer> {
    if (is_acc(a)) return Reducer{kind, b};
    if (is_acc(b)) return Reducer{kind, a};
    return std::nullopt;
  };
  const Expr& v = store->value;
  switch (v.kind()) {
    case NodeKind::kAdd:
      return match(compute::ReduceKind::kSum, v.as<AddNode>()->a, v.as<AddNode>()->b);
    case NodeKind::kMul:
      return match(compute::ReduceKind::kProd, v.as<MulNode>()->a, v.as<MulNode>()->b);
    case NodeKind::kMax:
      return match(compute::ReduceKind::kMax, v.as<MaxNode>()->a, v.as<MaxNode>()->b);
    case NodeKind::kMin:
      return match(compute::ReduceKind::kMin, v.as<MinNode>()->a, v.as<MinNode>()->b);
    default:
      return std::nullopt;
  }
}

bool ReadsBuffer(const Expr& e, const Buffer& buffer) {
  struct Finder : IRVisitor {
    const Buffer* buffer;
    bool found = false;
    void VisitExpr_(const BufferLoadNode* op) override {
      found |= op->buffer.same_as(*buffer);
      IRVisitor::VisitExpr_(op);
    }
  } finder;
  finder.buffer = &buffer;
  finder.VisitExpr(e);
  return finder.found;
}

std::vector<Expr> InsertAt(std::vector<Expr> v, size_t at, Expr e) {
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), std::move(e));
  return v;
}

Stmt BlockStage(const std::shared_ptr<BlockNode>& block, std::vector<Expr> values, Expr predicate) {
  arith::BlockAccessRegions regions = arith::DetectBlockAccessRegions(*block);
  block->reads = regions.reads;
  block->writes = regions.writes;
  return BlockRealize(std::move(values), std::move(predicate), Block(block));
}

}  // namespace

std::string RFactorLoop(ScheduleState& state, int l, int factor_axis) {
  const std::string what = "rfactor";
  const ForNode* loop = state.entry(l).loop();
  std::vector<int> under = state.BlocksUnder(l);
  KILN_CHECK(under.size() == 1, ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " holds " + std::to_string(under.size()) +
                 " blocks; it must hold exactly one reduction block");
  const int b = under[0];
  const BlockRealizeNode* realize = state.entry(b).realize();
  const BlockNode* block = realize->block_node();
  const std::string label = BlockLabel(block);
  const int scope = state.ScopeOf(b);
  KILN_CHECK(scope >= 0 && state.ScopeOf(l) == scope, ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " is not in the scope of " + label);
  KILN_CHECK(block->init.defined(), ErrorKind::kSchedule,
             what + ": " + label + " has no init; only a reduction block can be factored");
  const auto* store = block->body.as<BufferStoreNode>();
  KILN_CHECK(store != nullptr, ErrorKind::kSchedule,
             what + ": the body of " + label + " is not a single buffer store");
  std::optional<Reducer> reducer = MatchReducer(store);
  KILN_CHECK(reducer.has_value() && !ReadsBuffer(reducer->rhs, store->buffer), ErrorKind::kSchedule,
             what + ": " + label + " is not a reduction of the form " + store->buffer->name +
                 "[...] = " + store->buffer->name + "[...] (+, *, max or min) value");
  const auto* init = block->init.as<BufferStoreNode>();
  bool init_ok = init && init->buffer.same_as(store->buffer);
  for (size_t i = 0; init_ok && i < init->indices.size(); ++i) {
    init_ok = arith::ExprDeepEqual(init->indices[i], store->indices[i]);
  }
  KILN_CHECK(
      init_ok, ErrorKind::kSchedule,
      what + ": the init of " + label + " does not store to the element the block reduces into");
  const int ndim = static_cast<int>(store->buffer.ndim());
  KILN_CHECK(factor_axis >= -(ndim + 1) && factor_axis <= ndim, ErrorKind::kSchedule,
             what + ": factor_axis " + std::to_string(factor_axis) + " is out of range for " +
                 store->buffer->name + " (" + std::to_string(ndim) + " dimensions: expected -" +
                 std::to_string(ndim + 1) + " to " + std::to_string(ndim) + ")");
  const size_t axis = static_cast<size_t>(factor_axis < 0 ? factor_axis + ndim + 1 : factor_axis);

  // Which loops feed spatial and which feed reduction iterations.
  std::unordered_set<const VarNode*> reduce_iters;
  std::unordered_set<const VarNode*> spatial_loops, reduce_loops;
  std::vector<int> loops = state.LoopsAbove(b);
  for (const IterVar& iv : block->iter_vars) {
    KILN_CHECK(iv.kind != IterKind::kOpaque, ErrorKind::kSchedule,
               what + ": " + label + " has the opaque iteration " + iv.var.name());
    if (iv.kind == IterKind::kReduce) reduce_iters.insert(iv.var.get());
  }
  for (int li : loops) {
    const VarNode* var = state.entry(li).loop()->loop_var.get();
    IterUse use = IterKindsUsing(realize, var);
    if (use.spatial) spatial_loops.insert(var);
    if (use.reduce) reduce_loops.insert(var);
  }
  for (int li : loops) {
    const ForNode* f = state.entry(li).loop();
    KILN_CHECK(!(spatial_loops.count(f->loop_var.get()) && reduce_loops.count(f->loop_var.get())),
               ErrorKind::kSchedule,
               what + ": " + LoopLabel(f) +
                   " is bound to both spatial and reduction iterations of " + label);
  }
  KILN_CHECK(reduce_loops.count(loop->loop_var.get()) > 0, ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " is not bound to a reduction iteration of " + label);
  for (const Expr& index : store->indices) {
    KILN_CHECK(!UsesAnyVar(index, reduce_iters), ErrorKind::kSchedule,
               what + ": " + label + " stores at an index that depends on a reduction iteration");
  }
  for (int li : loops) {
    const ForNode* f = state.entry(li).loop();
    KILN_CHECK(
        spatial_loops.count(f->loop_var.get()) || !UsesVar(realize->predicate, f->loop_var.get()),
        ErrorKind::kSchedule,
        what + ": the predicate of " + label + " depends on " + LoopLabel(f) +
            " (a split that does not divide the reduction); some partial results would never "
            "be initialized");
  }
  const int stage = StageOf(state, b, scope);
  KILN_CHECK(state.BlocksUnder(stage).size() == 1, ErrorKind::kSchedule,
             what + ": the loops of " + label +
                 " hold other blocks; the write-back block could not be placed after them");

  // The rfactor block: the reduction loops become its iterations (the factored one spatial).
  const Buffer& out = store->buffer;
  Expr rf_extent = loop->extent;
  std::vector<Expr> rf_shape = InsertAt(out->shape, axis, rf_extent);
  Buffer rf_buffer = DeclBuffer(out->name + "_rf", out->dtype, rf_shape, out->scope);
  auto rf = std::make_shared<BlockNode>();
  rf->name = state.FreshBlockName(block->name + "_rf");
  rf->annotations = block->annotations;
  std::vector<Expr> rf_values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].kind != IterKind::kSpatial) continue;
    rf->iter_vars.push_back(block->iter_vars[i]);
    rf_values.push_back(realize->iter_values[i]);
  }
  VarMap loop_to_iter;
  Var rf_iter;
  for (int li : loops) {
    const ForNode* f = state.entry(li).loop();
    if (!reduce_loops.count(f->loop_var.get())) continue;
    Var v("v" + f->loop_var.name(), f->loop_var.dtype());
    bool factored = f == loop;
    if (factored) rf_iter = v;
    rf->iter_vars.push_back(IterVar{v, RangeFromMinExtent(f->min, f->extent),
                                    factored ? IterKind::kSpatial : IterKind::kReduce});
    rf_values.push_back(f->loop_var);
    loop_to_iter[f->loop_var.get()] = v;
  }
  VarMap reduce_to_loops;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    if (block->iter_vars[i].kind != IterKind::kReduce) continue;
    reduce_to_loops[block->iter_vars[i].var.get()] =
        Substitute(realize->iter_values[i], loop_to_iter);
  }
  Expr rf_index = IsConstInt(loop->min, 0) ? Expr(rf_iter) : rf_iter - loop->min;
  std::vector<Expr> rf_indices = InsertAt(store->indices, axis, rf_index);
  Expr partial = BufferLoad(rf_buffer, rf_indices);
  rf->init = BufferStore(rf_buffer, compute::ReduceIdentity(reducer->kind, out->dtype), rf_indices);
  rf->body = BufferStore(
      rf_buffer,
      compute::ReduceCombine(reducer->kind, partial, Substitute(reducer->rhs, reduce_to_loops)),
      rf_indices);
  Stmt rf_stage = BlockStage(rf, rf_values, realize->predicate);

  // The write-back block under fresh copies of the spatial loops and the factored loop.
  auto wb = std::make_shared<BlockNode>();
  wb->name = block->name;
  wb->annotations = block->annotations;
  VarMap wb_iters, wb_loops;
  std::vector<Expr> wb_values;
  std::vector<const ForNode*> kept;
  for (int li : loops) {
    const ForNode* f = state.entry(li).loop();
    if (!spatial_loops.count(f->loop_var.get()) && f != loop) continue;
    wb_loops[f->loop_var.get()] = Var(f->loop_var.name(), f->loop_var.dtype());
    kept.push_back(f);
  }
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.kind != IterKind::kSpatial) continue;
    Var v(iv.var.name(), iv.var.dtype());
    wb_iters[iv.var.get()] = v;
    wb->iter_vars.push_back(IterVar{v, iv.dom, IterKind::kSpatial});
    wb_values.push_back(Substitute(realize->iter_values[i], wb_loops));
  }
  Var wb_rf("v" + loop->loop_var.name(), loop->loop_var.dtype());
  wb->iter_vars.push_back(
      IterVar{wb_rf, RangeFromMinExtent(loop->min, loop->extent), IterKind::kReduce});
  wb_values.push_back(wb_loops.at(loop->loop_var.get()));
  std::vector<Expr> out_indices;
  for (const Expr& e : store->indices) out_indices.push_back(Substitute(e, wb_iters));
  Expr wb_rf_index = IsConstInt(loop->min, 0) ? Expr(wb_rf) : wb_rf - loop->min;
  wb->init = Substitute(block->init, wb_iters);
  wb->body = BufferStore(
      out,
      compute::ReduceCombine(reducer->kind, BufferLoad(out, out_indices),
                             BufferLoad(rf_buffer, InsertAt(out_indices, axis, wb_rf_index))),
      out_indices);
  Stmt wb_stage = BlockStage(wb, wb_values, Substitute(realize->predicate, wb_loops));
  for (size_t i = kept.size(); i-- > 0;) {
    const ForNode* f = kept[i];
    Var v(wb_loops.at(f->loop_var.get()).ptr());
    wb_stage =
        f == loop ? For(v, f->min, f->extent, ForKind::kSerial, wb_stage)
                  : For(v, f->min, f->extent, f->for_kind, wb_stage, f->thread_tag, f->annotations);
  }

  const BlockRealizeNode* scope_realize = state.entry(scope).realize();
  const Stmt& stage_stmt = state.entry(stage).stmt;
  Stmt new_stage = ReplaceStmts(stage_stmt, {{realize, rf_stage}});
  Stmt body = ReplaceStmts(scope_realize->block_node()->body,
                           {{stage_stmt.get(), SeqStmt({new_stage, wb_stage})}});
  state.Replace(scope_realize, RebuildScope(scope_realize, body, {rf_buffer}, Buffer()));
  return rf->name;
}

}  // namespace kiln::search
