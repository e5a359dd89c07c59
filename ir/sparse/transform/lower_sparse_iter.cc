// LowerSparseIter (see lower_sparse_iter.h): one mutator that keeps, for every iterator of the
// enclosing sparse iterations, how its position, absolute position and coordinate read in
// terms of the new loop and block variables.
#include "ir/sparse/transform/lower_sparse_iter.h"

#include <unordered_map>

#include "ir/functor.h"
#include "ir/sparse/transform/block_regions.h"
#include "ir/substitute.h"

namespace kiln::ir::sparse {
namespace {

// One iterated axis. Loop extents are written over loop variables; the block body over block
// iter vars; inside a block's body both read the block's.
struct Active {
  Axis axis;
  bool is_reduction = false;
  Expr pos_loop, abs_loop, coord_loop;  // over loop variables
  Expr pos, abs, coord;                 // over block iter vars
};

[[noreturn]] void Fail(ErrorKind kind, const std::string& message) {
  throw Error(kind, "LowerSparseIter: " + message);
}

std::string AxisLabel(const Axis& axis) {
  return "axis '" + axis->name + "' (" + AxisKindName(axis->kind) + ")";
}

// The absolute position of a child of `parent_abs` at relative position `pos` on `axis`.
Expr ChildAbs(const Axis& axis, const Expr& parent_abs, const Expr& pos) {
  if (!axis.parent().defined()) return pos;
  if (axis->kind == AxisKind::kSparseFixed) return parent_abs * axis->nnz + pos;
  return BufferLoad(axis->indptr, {parent_abs}) + pos;
}

// One iterator of a sparse iteration as loops see it.
struct Level {
  const SpIterVar* iv = nullptr;
  bool owner = true;  // false for an iterator fused into a later one: it owns no loop
  Var loop_var, block_var;
  Expr extent;      // over loop variables
  Expr dom_extent;  // of the block iter var
  Active active;
};

class IterLowerer : public IRMutator {
 public:
  explicit IterLowerer(const PrimFuncNode& f) {
    for (const SparseBuffer& sb : f.sp_buffers) sparse_[sb.buffer.get()] = &sb;
  }

  Expr VisitExpr_(const VarNode* op) override {
    auto it = iterators_.find(op);
    return it == iterators_.end() ? GetRef<Expr>(op) : it->second.coord;
  }

  Expr VisitExpr_(const BufferLoadNode* op) override {
    auto it = sparse_.find(op->buffer.get());
    if (it == sparse_.end()) return IRMutator::VisitExpr_(op);
    return Access(*it->second, op->indices, nullptr, nullptr);
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    auto it = sparse_.find(op->buffer.get());
    if (it == sparse_.end()) return IRMutator::VisitStmt_(op);
    Expr value = VisitExpr(op->value);
    std::vector<Expr> indices;
    Expr found;
    Access(*it->second, op->indices, &indices, &found);
    Stmt store = BufferStore(op->buffer, value, indices);
    // A store by coordinate writes only where the coordinate has a position.
    return found.defined() ? IfThenElse(found, store) : store;
  }

  // A statement whose expressions needed searches runs their blocks first.
  Stmt VisitStmt(const Stmt& s) override {
    std::vector<Stmt> outer = std::move(pending_);
    pending_.clear();
    Stmt result = IRMutator::VisitStmt(s);
    if (!pending_.empty()) {
      pending_.push_back(result);
      result = SeqStmt(std::move(pending_));
    }
    pending_ = std::move(outer);
    return result;
  }

  // Buffers the search blocks write, for the block that encloses them (or the root).
  std::vector<Buffer> TakeAllocs() { return std::move(allocs_); }

  // A sparse iteration becomes a sequence (init nest, main nest): keep sequences flat.
  Stmt VisitStmt_(const SeqStmtNode* op) override {
    std::vector<Stmt> seq;
    bool changed = false;
    for (const Stmt& s : op->seq) {
      seq.push_back(VisitStmt(s));
      changed |= !seq.back().same_as(s);
    }
    return changed ? SeqStmt(std::move(seq)) : GetRef<Stmt>(op);
  }

  Stmt VisitStmt_(const SparseIterationNode* op) override {
    const std::string where = "sparse iteration '" + op->name + "'";
    // Positions of each iterator, in order; a parent must come first (here or outside). An
    // iterator fused into the one after it (T.fuse) owns no loop: its position is derived
    // from the last of its group, which loops over all of the group's positions.
    std::vector<Stmt> pre;  // the fused groups' search nests, run first
    std::vector<Level> levels;
    auto find_parent = [&](const Axis& parent) -> const Active* {
      for (const Level& l : levels) {
        if (l.active.axis.same_as(parent)) return &l.active;
      }
      for (auto it = enclosing_.rbegin(); it != enclosing_.rend(); ++it) {
        if (it->axis.same_as(parent)) return &*it;
      }
      return nullptr;
    };
    for (size_t n = 0; n < op->iter_vars.size(); ++n) {
      const SpIterVar& iv = op->iter_vars[n];
      if (iv.fuse_group >= 0) {
        size_t end = n;
        while (end < op->iter_vars.size() && op->iter_vars[end].fuse_group == iv.fuse_group) ++end;
        for (Level& l : FusedLevels(*op, n, end, &pre)) levels.push_back(std::move(l));
        n = end - 1;
        continue;
      }
      const Axis& axis = iv.axis;
      Level l;
      l.iv = &iv;
      DataType idtype = iv.var.dtype();
      l.loop_var = Var(iv.var->name, idtype);
      l.block_var = Var("v" + iv.var->name, idtype);
      Expr parent_abs_loop, parent_abs;
      if (iv.attach.defined()) {
        // T.attach(X, A): X's parent is dense fixed, and its position is A's coordinate.
        const Active* host = find_parent(iv.attach);
        if (!host) {
          Fail(ErrorKind::kInvalidIR, where + " attaches " + AxisLabel(axis) + " to axis '" +
                                          iv.attach->name + "', which is not iterated before it");
        }
        if (!axis.parent().defined() || axis.parent()->kind != AxisKind::kDenseFixed) {
          Fail(ErrorKind::kUnsupported,
               where + ": T.attach needs " + AxisLabel(axis) + " to hang under a dense_fixed axis");
        }
        parent_abs_loop = host->coord_loop;
        parent_abs = host->coord;
      } else if (axis.parent().defined()) {
        const Active* parent = find_parent(axis.parent());
        if (!parent) {
          Fail(ErrorKind::kInvalidIR, where + " iterates " + AxisLabel(axis) +
                                          " before or without its parent axis '" +
                                          axis.parent()->name + "'");
        }
        parent_abs_loop = parent->abs_loop;
        parent_abs = parent->abs;
      }
      if (axis.is_variable()) {
        l.extent = BufferLoad(axis->indptr, {parent_abs_loop + 1}) -
                   BufferLoad(axis->indptr, {parent_abs_loop});
      } else {
        l.extent = MaxRowPositions(axis);
      }
      l.active.axis = axis;
      l.active.is_reduction = iv.is_reduction;
      l.active.pos_loop = l.loop_var;
      l.active.abs_loop = ChildAbs(axis, parent_abs_loop, l.loop_var);
      l.active.pos = l.block_var;
      l.active.abs = ChildAbs(axis, parent_abs, l.block_var);
      l.active.coord =
          axis.is_sparse() ? BufferLoad(axis->indices, {l.active.abs}) : Expr(l.block_var);
      l.active.coord_loop =
          axis.is_sparse() ? BufferLoad(axis->indices, {l.active.abs_loop}) : Expr(l.loop_var);
      l.dom_extent = MaxRowPositions(axis);
      levels.push_back(std::move(l));
    }

    // A nest of loops over `which` levels around one block named `name` running `body`.
    auto nest = [&](const std::vector<size_t>& which, const std::string& name, const Stmt& body) {
      // Each nest defines its own loop and block variables (a Var is defined once).
      VarMap fresh;
      std::vector<Var> loop_vars, block_vars;
      std::vector<size_t> owners;
      for (size_t k : which) {
        const Level& l = levels[k];
        if (!l.owner) continue;
        owners.push_back(k);
        loop_vars.emplace_back(l.loop_var->name, l.loop_var.dtype());
        block_vars.emplace_back(l.block_var->name, l.block_var.dtype());
        fresh[l.loop_var.get()] = loop_vars.back();
        fresh[l.block_var.get()] = block_vars.back();
      }
      // Inside the block, iterators read as its iter vars, loops included.
      size_t depth = enclosing_.size();
      for (size_t k : which) {
        Active inner = levels[k].active;
        inner.pos = Substitute(inner.pos, fresh);
        inner.abs = Substitute(inner.abs, fresh);
        inner.coord = Substitute(inner.coord, fresh);
        inner.pos_loop = inner.pos;
        inner.abs_loop = inner.abs;
        inner.coord_loop = inner.coord;
        enclosing_.push_back(inner);
        iterators_[levels[k].iv->var.get()] = inner;
      }
      std::vector<Buffer> outer_allocs = std::move(allocs_);
      allocs_.clear();
      Stmt new_body = VisitStmt(body);
      std::vector<Buffer> block_allocs = std::move(allocs_);
      allocs_ = std::move(outer_allocs);
      for (size_t k : which) iterators_.erase(levels[k].iv->var.get());
      enclosing_.resize(depth);

      auto block = std::make_shared<BlockNode>();
      block->name = name;
      std::vector<Expr> values;
      for (size_t n = 0; n < owners.size(); ++n) {
        const Level& l = levels[owners[n]];
        IterVar iter;
        iter.var = block_vars[n];
        iter.dom = Range{IntImm(l.block_var.dtype(), 0), l.dom_extent};
        iter.kind = l.active.is_reduction ? IterKind::kReduce : IterKind::kSpatial;
        block->iter_vars.push_back(iter);
        values.push_back(loop_vars[n]);
      }
      block->body = new_body;
      block->alloc_buffers = std::move(block_allocs);
      SetBlockRegions(block.get());
      Stmt s = BlockRealize(values, BoolImm(true), Block(block));
      for (size_t n = owners.size(); n-- > 0;) {
        Expr extent = Substitute(levels[owners[n]].extent, fresh);
        s = For(loop_vars[n], IntImm(loop_vars[n].dtype(), 0), extent, ForKind::kSerial, s);
      }
      return s;
    };

    std::vector<Stmt> out = std::move(pre);
    if (op->init.defined()) {
      std::vector<size_t> spatial;
      for (size_t k = 0; k < levels.size(); ++k) {
        if (levels[k].active.is_reduction) continue;
        const Axis& parent = levels[k].active.axis.parent();
        for (const Level& l : levels) {
          if (parent.defined() && l.active.axis.same_as(parent) && l.active.is_reduction) {
            Fail(ErrorKind::kInvalidIR, where + ": spatial " + AxisLabel(levels[k].active.axis) +
                                            " hangs under the reduce axis '" + parent->name +
                                            "', so its init has no loop nest");
          }
        }
        spatial.push_back(k);
      }
      std::unordered_map<const VarNode*, bool> reduce_vars;
      for (const Level& l : levels) {
        if (l.active.is_reduction) reduce_vars[l.iv->var.get()] = true;
      }
      struct ReduceUse : IRVisitor {
        const std::unordered_map<const VarNode*, bool>* vars;
        const VarNode* found = nullptr;
        void VisitExpr_(const VarNode* v) override {
          if (vars->count(v)) found = v;
        }
      } use;
      use.vars = &reduce_vars;
      use.VisitStmt(op->init);
      if (use.found) {
        Fail(ErrorKind::kInvalidIR,
             where + ": its init uses the reduce iterator '" + use.found->name + "'");
      }
      out.push_back(nest(spatial, op->name + "_init", op->init));
    }
    std::vector<size_t> all;
    for (size_t k = 0; k < levels.size(); ++k) all.push_back(k);
    out.push_back(nest(all, op->name, op->body));
    return SeqStmt(std::move(out));
  }

 private:
  // The levels of the fused iterators [begin, end) of `op`: T.fuse(X0, ..., Xk), a chain
  // from a root axis (X(t+1)'s parent is Xt), all spatial or all reduce. One loop runs over
  // the absolute positions of Xk; a search nest in `pre` finds, for each of them, the absolute
  // position of every ancestor: an upper-bound binary search of the position over the child's
  // indptr (variable axes), or a division by nnz_cols (sparse_fixed). Its results live in one
  // buffer per ancestor, allocated by the enclosing block.
  std::vector<Level> FusedLevels(const SparseIterationNode& op, size_t begin, size_t end,
                                 std::vector<Stmt>* pre) {
    const std::string where = "sparse iteration '" + op.name + "'";
    std::vector<const SpIterVar*> group;
    for (size_t n = begin; n < end; ++n) group.push_back(&op.iter_vars[n]);
    const Axis& last = group.back()->axis;
    for (size_t t = 0; t < group.size(); ++t) {
      const Axis& axis = group[t]->axis;
      if (group[t]->is_reduction != group[0]->is_reduction) {
        Fail(ErrorKind::kInvalidIR, where + ": T.fuse mixes spatial and reduce iterators ('" +
                                        group[0]->axis->name + "', '" + axis->name + "')");
      }
      bool chained = t == 0 ? !axis.parent().defined() : axis.parent().same_as(group[t - 1]->axis);
      if (!chained) {
        Fail(ErrorKind::kUnsupported,
             where + ": T.fuse needs a chain from a root axis, each axis the parent of the next; " +
                 AxisLabel(axis) + " does not continue it");
      }
    }
    DataType idtype = group.back()->var.dtype();
    Expr total = NumPositions(last);
    Var loop_var(group.back()->var->name, idtype);
    Var block_var("v" + group.back()->var->name, idtype);

    // The search nest: for each position p of Xk, the ancestors' absolute positions.
    Var p("p", idtype), vp("vp", idtype);
    std::vector<Buffer> ancestors(group.size());  // [t] for t < k
    std::vector<Stmt> body;
    std::vector<Buffer> locals;
    Expr child_abs = vp;
    for (size_t t = group.size() - 1; t-- > 0;) {
      const Axis& child = group[t + 1]->axis;
      const Axis& parent = group[t]->axis;
      ancestors[t] =
          DeclBuffer(op.name + "_" + parent->name + "_of_" + last->name, idtype, {total});
      allocs_.push_back(ancestors[t]);
      Expr zero = IntImm(idtype, 0);
      if (child->kind == AxisKind::kSparseFixed) {
        body.push_back(BufferStore(ancestors[t], FloorDiv(child_abs, child->nnz), {vp}));
      } else {
        // The row r with indptr[r] <= position < indptr[r + 1].
        std::string tag = op.name + "_" + parent->name;
        Buffer lo = DeclBuffer(tag + "_lo", idtype, {IntImm(DataType::Int(32), 1)}, "local");
        Buffer hi = DeclBuffer(tag + "_hi", idtype, {IntImm(DataType::Int(32), 1)}, "local");
        locals.push_back(lo);
        locals.push_back(hi);
        Expr l = BufferLoad(lo, {zero});
        Expr h = BufferLoad(hi, {zero});
        Expr mid = FloorDiv(l + h, IntImm(idtype, 2));
        Var step("step", DataType::Int(32));
        Stmt halve = IfThenElse(
            l < h, IfThenElse(BufferLoad(child->indptr, {mid + IntImm(idtype, 1)}) <= child_abs,
                              BufferStore(lo, mid + IntImm(idtype, 1), {zero}),
                              BufferStore(hi, mid, {zero})));
        body.push_back(BufferStore(lo, zero, {zero}));
        body.push_back(BufferStore(hi, NumPositions(parent), {zero}));
        body.push_back(For(step, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 32),
                           ForKind::kSerial, halve));
        body.push_back(BufferStore(ancestors[t], BufferLoad(lo, {zero}), {vp}));
      }
      child_abs = BufferLoad(ancestors[t], {vp});
    }
    auto block = std::make_shared<BlockNode>();
    block->name = op.name + "_fuse_search";
    block->iter_vars.push_back(IterVar{vp, Range{IntImm(idtype, 0), total}, IterKind::kSpatial});
    block->alloc_buffers = locals;
    block->body = SeqStmt(std::move(body));
    SetBlockRegions(block.get());
    pre->push_back(For(p, IntImm(idtype, 0), total, ForKind::kSerial,
                       BlockRealize({p}, BoolImm(true), Block(block))));

    // The levels: absolute positions from the ancestor buffers, relative ones from them.
    std::vector<Level> levels;
    for (size_t t = 0; t < group.size(); ++t) {
      const Axis& axis = group[t]->axis;
      Level l;
      l.iv = group[t];
      l.owner = t + 1 == group.size();
      if (l.owner) {
        l.loop_var = loop_var;
        l.block_var = block_var;
        l.extent = total;
        l.dom_extent = total;
      }
      auto abs_of = [&](size_t u, const Var& v) {
        return u + 1 == group.size() ? Expr(v) : BufferLoad(ancestors[u], {v});
      };
      auto pos_of = [&](const Var& v) {
        Expr abs = abs_of(t, v);
        if (t == 0) return abs;
        Expr parent_abs = abs_of(t - 1, v);
        return axis->kind == AxisKind::kSparseFixed ? abs - parent_abs * axis->nnz
                                                    : abs - BufferLoad(axis->indptr, {parent_abs});
      };
      l.active.axis = axis;
      l.active.is_reduction = group[t]->is_reduction;
      l.active.abs_loop = abs_of(t, loop_var);
      l.active.pos_loop = pos_of(loop_var);
      l.active.abs = abs_of(t, block_var);
      l.active.pos = pos_of(block_var);
      l.active.coord = axis.is_sparse() ? BufferLoad(axis->indices, {l.active.abs}) : l.active.pos;
      l.active.coord_loop =
          axis.is_sparse() ? BufferLoad(axis->indices, {l.active.abs_loop}) : l.active.pos_loop;
      levels.push_back(std::move(l));
    }
    return levels;
  }

  // The stage-II access to `sb` written with stage-I `indices`. For a store: its indices in
  // *store_indices and, when an index is a coordinate over a sparse axis, in *store_found
  // whether every such coordinate has a position (a search block finds them). For a load:
  // the load, or the value a search block found (0 where a coordinate has no position).
  Expr Access(const SparseBuffer& sb, const std::vector<Expr>& indices,
              std::vector<Expr>* store_indices, Expr* store_found) {
    const std::string& name = sb.buffer->name;
    if (indices.size() != sb.axes.size()) {
      Fail(ErrorKind::kInvalidIR, "sparse buffer '" + name + "' has " +
                                      std::to_string(sb.axes.size()) + " axes, accessed with " +
                                      std::to_string(indices.size()) + " indices");
    }
    std::vector<Expr> out;
    std::vector<size_t> searched;  // sparse dimensions indexed by a coordinate
    for (size_t d = 0; d < indices.size(); ++d) {
      const Axis& axis = sb.axes[d];
      if (const auto* v = indices[d].as<VarNode>()) {
        auto it = iterators_.find(v);
        if (it != iterators_.end() && it->second.axis.same_as(axis)) {
          out.push_back(it->second.pos);
          continue;
        }
      }
      if (axis.is_sparse()) {
        searched.push_back(d);
        out.push_back(VisitExpr(indices[d]));  // the coordinate, for now
        continue;
      }
      out.push_back(VisitExpr(indices[d]));  // a dense axis: the coordinate is the position
    }
    if (store_indices) {
      if (searched.empty()) {
        *store_indices = out;
      } else {
        Search(sb, out, searched, store_indices, store_found);
      }
      return Expr();
    }
    if (searched.empty()) return BufferLoad(sb.buffer, out);
    return Search(sb, out, searched, nullptr, nullptr);
  }

  // The binary search of coordinates over sparse axes, as its own block before the statement:
  // for each searched dimension, the lower bound of the coordinate among its parent's indices
  // (a fixed 32 halvings, enough for any int32 row). For a load, the block then reads the
  // element when every coordinate was found, else 0, into a one-element local buffer that the
  // load becomes. For a store (store_pos given), the positions stay in local buffers of the
  // enclosing block, and *store_found says whether all were found.
  Expr Search(const SparseBuffer& sb, std::vector<Expr> pos, const std::vector<size_t>& searched,
              std::vector<Expr>* store_pos, Expr* store_found) {
    const std::string& name = sb.buffer->name;
    int id = searches_++;
    std::string tag = name + "_search_" + std::to_string(id);
    Buffer value;
    if (!store_pos) {
      value = DeclBuffer(tag + "_value", sb.buffer->dtype, {IntImm(DataType::Int(32), 1)}, "local");
      allocs_.push_back(value);
    }
    std::vector<Stmt> body;
    std::vector<Buffer> locals;
    Expr found;  // every searched coordinate has a position
    for (size_t d : searched) {
      const Axis& axis = sb.axes[d];
      Axis parent = axis.parent();
      if (d == 0 || !sb.axes[d - 1].same_as(parent)) {
        Fail(ErrorKind::kUnsupported,
             "sparse buffer '" + name + "' indexes its " + AxisLabel(axis) +
                 " by a coordinate, but its parent axis '" + parent->name +
                 "' is not the dimension before it, so the row to search is unknown");
      }
      // The parent's absolute position, along the chain of the dimensions before d.
      size_t start = d - 1;
      while (start > 0 && sb.axes[start].parent().defined() &&
             sb.axes[start - 1].same_as(sb.axes[start].parent())) {
        --start;
      }
      Expr parent_abs = pos[start];
      for (size_t k = start + 1; k < d; ++k) parent_abs = ChildAbs(sb.axes[k], parent_abs, pos[k]);
      DataType idtype = axis->idtype;
      Expr base = axis->kind == AxisKind::kSparseFixed ? parent_abs * axis->nnz
                                                       : BufferLoad(axis->indptr, {parent_abs});
      Expr len = axis->kind == AxisKind::kSparseFixed
                     ? axis->nnz
                     : BufferLoad(axis->indptr, {parent_abs + 1}) - base;
      Expr coord = pos[d];
      std::string t = tag + "_" + std::to_string(d);
      Buffer lo = DeclBuffer(t + "_lo", idtype, {IntImm(DataType::Int(32), 1)}, "local");
      Buffer hi = DeclBuffer(t + "_hi", idtype, {IntImm(DataType::Int(32), 1)}, "local");
      (store_pos ? allocs_ : locals).push_back(lo);  // a store reads lo after the block
      locals.push_back(hi);
      Expr zero = IntImm(idtype, 0);
      Expr l = BufferLoad(lo, {zero});
      Expr h = BufferLoad(hi, {zero});
      Expr mid = FloorDiv(l + h, IntImm(idtype, 2));
      Var step("step", DataType::Int(32));
      Stmt halve = IfThenElse(l < h, IfThenElse(BufferLoad(axis->indices, {base + mid}) < coord,
                                                BufferStore(lo, mid + IntImm(idtype, 1), {zero}),
                                                BufferStore(hi, mid, {zero})));
      body.push_back(BufferStore(lo, zero, {zero}));
      body.push_back(BufferStore(hi, len, {zero}));
      body.push_back(For(step, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 32),
                         ForKind::kSerial, halve));
      Expr at = BufferLoad(lo, {zero});
      found = found.defined() ? (found && at < len) : at < len;
      pos[d] = at;
      // Checked apart, so that indices is read only where the position exists.
      body.push_back(
          IfThenElse(at < len, IfThenElse(BufferLoad(axis->indices, {base + at}) != coord,
                                          BufferStore(lo, len, {zero}))));
    }
    if (!store_pos) {
      Expr zero_value = MakeConst(sb.buffer->dtype, 0);
      body.push_back(IfThenElse(found, BufferStore(value, BufferLoad(sb.buffer, pos), {0}),
                                BufferStore(value, zero_value, {0})));
    }
    auto block = std::make_shared<BlockNode>();
    block->name = tag;
    block->alloc_buffers = locals;
    block->body = SeqStmt(std::move(body));
    SetBlockRegions(block.get());
    pending_.push_back(BlockRealize({}, BoolImm(true), Block(block)));
    if (store_pos) {
      *store_pos = pos;
      *store_found = found;
      return Expr();
    }
    return BufferLoad(value, {0});
  }

  std::unordered_map<const BufferNode*, const SparseBuffer*> sparse_;
  std::vector<Stmt> pending_;   // search blocks for the statement being lowered
  std::vector<Buffer> allocs_;  // their value buffers, for the enclosing block
  int searches_ = 0;
  std::vector<Active> enclosing_;                         // iterators of enclosing blocks
  std::unordered_map<const VarNode*, Active> iterators_;  // stage-I iterator -> its reading
};

}  // namespace

PrimFunc LowerSparseIter(const PrimFunc& f) {
  auto node = std::make_shared<PrimFuncNode>(*f.get());
  IterLowerer lowerer(*f.get());
  Stmt body = f->body.defined() ? lowerer.VisitStmt(f->body) : f->body;
  const auto* realize = body.defined() ? body.as<BlockRealizeNode>() : nullptr;
  bool has_root = realize && realize->block_node()->name == "root";
  if (!body.same_as(f->body) && !has_root) {
    auto root = std::make_shared<BlockNode>();
    root->name = "root";
    root->body = body;
    root->alloc_buffers = lowerer.TakeAllocs();
    body = BlockRealize({}, BoolImm(true), Block(std::move(root)));
  }
  node->body = body;
  node->attrs["sparse_tir_level"] = IntImm(DataType::Int(32), 1);
  return PrimFunc(std::move(node));
}

}  // namespace kiln::ir::sparse
