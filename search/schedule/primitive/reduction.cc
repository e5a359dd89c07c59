// decompose_reduction: split a reduction block into an init block, placed before a chosen
// loop, and an update block without init. This makes the initialization an ordinary stage
// that later primitives (vectorize, parallel) can treat like any other.
#include <algorithm>

#include "ir/arith/region.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

std::pair<std::string, std::string> DecomposeReductionBlock(ScheduleState& state, int b, int l) {
  const std::string what = "decompose_reduction";
  const BlockRealizeNode* realize = state.entry(b).realize();
  const BlockNode* block = realize->block_node();
  const ForNode* loop = state.entry(l).loop();
  KILN_CHECK(block->init.defined(), ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " has no init to decompose");
  std::vector<int> above = state.LoopsAbove(b);
  auto at = std::find(above.begin(), above.end(), l);
  KILN_CHECK(at != above.end(), ErrorKind::kSchedule,
             what + ": " + LoopLabel(loop) + " is not a loop above " + BlockLabel(block));
  // The init must run before every update of its element: no loop outside `loop` may drive
  // a reduction iteration.
  for (auto it = above.begin(); it != at; ++it) {
    const ForNode* f = state.entry(*it).loop();
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      KILN_CHECK(block->iter_vars[i].kind != IterKind::kReduce ||
                     !UsesVar(realize->iter_values[i], f->loop_var.get()),
                 ErrorKind::kSchedule,
                 what + ": " + LoopLabel(f) + ", outside " + LoopLabel(loop) +
                     ", is bound to the reduction iteration " + block->iter_vars[i].var.name() +
                     " of " + BlockLabel(block) +
                     "; the init must be placed outside every reduction loop");
    }
  }
  // The init block iterates over the spatial iteration variables only.
  auto init = std::make_shared<BlockNode>();
  init->name = state.FreshBlockName(block->name + "_init");
  VarMap iter_map;
  std::vector<Expr> values;
  for (size_t i = 0; i < block->iter_vars.size(); ++i) {
    const IterVar& iv = block->iter_vars[i];
    if (iv.kind != IterKind::kSpatial) continue;
    Var v(iv.var.name(), iv.var.dtype());
    iter_map[iv.var.get()] = v;
    init->iter_vars.push_back(IterVar{v, iv.dom, IterKind::kSpatial});
    values.push_back(realize->iter_values[i]);
  }
  init->body = Substitute(block->init, iter_map);
  arith::BlockAccessRegions regions = arith::DetectBlockAccessRegions(*init);
  init->reads = regions.reads;
  init->writes = regions.writes;
  // Loops from `loop` inwards that the init's bindings use are repeated around it.
  VarMap loop_map;
  std::vector<const ForNode*> repeated;
  for (auto it = at; it != above.end(); ++it) {
    const ForNode* f = state.entry(*it).loop();
    bool used = false;
    for (const Expr& v : values) used |= UsesVar(v, f->loop_var.get());
    if (used) {
      repeated.push_back(f);
      loop_map[f->loop_var.get()] = Var(f->loop_var.name() + "_init", f->loop_var.dtype());
    } else {
      KILN_CHECK(!UsesVar(realize->predicate, f->loop_var.get()), ErrorKind::kSchedule,
                 what + ": the predicate of " + BlockLabel(block) + " depends on " + LoopLabel(f) +
                     ", which the init block does not iterate over");
    }
  }
  for (Expr& v : values) v = Substitute(v, loop_map);
  Expr predicate = Substitute(realize->predicate, loop_map);
  Stmt nest = BlockRealize(values, predicate, Block(init));
  for (size_t i = repeated.size(); i-- > 0;) {
    const ForNode* f = repeated[i];
    nest =
        For(Var(loop_map.at(f->loop_var.get()).ptr()), f->min, f->extent, ForKind::kSerial, nest);
  }
  auto update = CopyBlock(block);
  update->init = Stmt();
  update->name = state.FreshBlockName(block->name + "_update");
  Stmt new_loop = ReplaceStmts(
      state.entry(l).stmt,
      {{realize, BlockRealize(realize->iter_values, realize->predicate, Block(update))}});
  state.Replace(loop, SeqStmt({nest, new_loop}));
  return {init->name, update->name};
}

}  // namespace kiln::search
