// transform_layout: give an intermediate buffer a new shape through an index map (packing a
// matrix into tiles, moving a dimension innermost) and rewrite every access to it. The map
// must be a bijection from the old index space onto the new shape, so that no two elements
// share a place and no padding appears; it is checked by decomposing each result into
// splits (floordiv / floormod by constants) and fusions (sums with mixed-radix coefficients)
// of the old indices, which covers permutations, tilings and reshapes.
#include <algorithm>
#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/arith/linear_form.h"
#include "ir/arith/region.h"
#include "ir/functor.h"
#include "ir/text/printer.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

// One piece of an old index: floormod(floordiv(param, lower), extent), with the
// coefficient it has in the result it appears in.
struct Piece {
  size_t param;
  int64_t lower;
  int64_t extent;
  int64_t coef;
};

class LayoutChecker {
 public:
  LayoutChecker(const IndexMap& map, const std::vector<int64_t>& shape, std::string what)
      : map_(map), shape_(shape), what_(std::move(what)) {}

  // The new shape, or a kiln::Error(kSchedule) saying why the map is not a bijection.
  std::vector<int64_t> NewShape() {
    arith::Analyzer analyzer;
    for (size_t p = 0; p < map_.params.size(); ++p) {
      analyzer.Bind(map_.params[p], RangeFromMinExtent(IntImm(map_.params[p].dtype(), 0),
                                                       IntImm(map_.params[p].dtype(), shape_[p])));
    }
    std::vector<int64_t> new_shape;
    std::vector<std::vector<Piece>> by_param(map_.params.size());
    for (size_t d = 0; d < map_.results.size(); ++d) {
      Expr e = analyzer.Simplify(map_.results[d]);
      arith::LinearForm form = arith::ToLinear(e);
      KILN_CHECK(form.constant == 0, ErrorKind::kSchedule,
                 Prefix() + "result " + std::to_string(d) + " (" + Text(e) +
                     ") is offset by a constant; the new layout would need padding");
      std::vector<Piece> pieces;
      for (const arith::LinearTerm& term : form.terms) {
        Piece piece = PieceOf(term.atom, d);
        KILN_CHECK(term.coef > 0, ErrorKind::kSchedule,
                   Prefix() + "result " + std::to_string(d) + " (" + Text(e) +
                       ") has a negative coefficient");
        piece.coef = term.coef;
        pieces.push_back(piece);
      }
      std::sort(pieces.begin(), pieces.end(),
                [](const Piece& a, const Piece& b) { return a.coef < b.coef; });
      int64_t extent = 1;
      for (const Piece& piece : pieces) {
        KILN_CHECK(
            piece.coef == extent, ErrorKind::kSchedule,
            Prefix() + "result " + std::to_string(d) + " (" + Text(e) +
                ") does not combine its parts with mixed-radix coefficients, so two elements "
                "could land on one place or places would be left empty");
        extent *= piece.extent;
        by_param[piece.param].push_back(piece);
      }
      new_shape.push_back(extent);
    }
    for (size_t p = 0; p < by_param.size(); ++p) {
      auto& pieces = by_param[p];
      std::sort(pieces.begin(), pieces.end(),
                [](const Piece& a, const Piece& b) { return a.lower < b.lower; });
      int64_t covered = 1;
      for (const Piece& piece : pieces) {
        KILN_CHECK(piece.lower == covered, ErrorKind::kSchedule,
                   Prefix() + "index " + map_.params[p].name() +
                       (piece.lower < covered ? " is used twice" : " is only partly used") +
                       ", so the map is not one-to-one");
        covered *= piece.extent;
      }
      KILN_CHECK(covered == shape_[p], ErrorKind::kSchedule,
                 Prefix() + "index " + map_.params[p].name() + " (extent " +
                     std::to_string(shape_[p]) + ") is " +
                     (covered == 1 ? "dropped" : "only partly used") +
                     ", so the map is not one-to-one");
    }
    return new_shape;
  }

 private:
  std::string Prefix() const { return what_ + ": index map " + map_.ToText() + ": "; }
  static std::string Text(const Expr& e) { return PrintExpr(e); }

  // The piece `atom` is, or an error.
  Piece PieceOf(const Expr& atom, size_t d) const {
    auto param_of = [&](const Expr& e) -> int {
      for (size_t p = 0; p < map_.params.size(); ++p) {
        if (e.same_as(map_.params[p])) return static_cast<int>(p);
      }
      return -1;
    };
    auto fail = [&](const std::string& why) {
      throw Error(ErrorKind::kSchedule,
                  Prefix() + "result " + std::to_string(d) + ": " + Text(atom) + " " + why);
    };
    if (int p = param_of(atom); p >= 0) return Piece{static_cast<size_t>(p), 1, shape_[p], 0};
    auto divisor = [&](const Expr& e, NodeKind kind, Expr* inner) -> int64_t {
      if (e.kind() != kind) return 0;
      Expr a = kind == NodeKind::kFloorDiv ? e.as<FloorDivNode>()->a : e.as<FloorModNode>()->a;
      Expr b = kind == NodeKind::kFloorDiv ? e.as<FloorDivNode>()->b : e.as<FloorModNode>()->b;
      auto c = AsConstInt(b);
      if (!c || *c <= 0) return 0;
      *inner = a;
      return *c;
    };
    Expr inner;
    int64_t lower = 1, extent = 0;
    size_t param = 0;
    if (int64_t c = divisor(atom, NodeKind::kFloorDiv, &inner); c > 0) {
      int p = param_of(inner);
      if (p < 0) fail("is not a split of one index");
      param = p;
      lower = c;
      if (shape_[p] % c != 0) {
        fail("splits an index of extent " + std::to_string(shape_[p]) +
             " by a factor that does not divide it; padding is not supported");
      }
      extent = shape_[p] / c;
    } else if (int64_t m = divisor(atom, NodeKind::kFloorMod, &inner); m > 0) {
      Expr base;
      int64_t c = divisor(inner, NodeKind::kFloorDiv, &base);
      int p = param_of(c > 0 ? base : inner);
      if (p < 0) fail("is not a split of one index");
      param = p;
      lower = c > 0 ? c : 1;
      extent = m;
      if (shape_[p] % (lower * m) != 0) {
        fail("splits an index of extent " + std::to_string(shape_[p]) +
             " by a factor that does not divide it; padding is not supported");
      }
    } else {
      fail("is not a split or fusion of the buffer's indices");
    }
    return Piece{param, lower, extent, 0};
  }

  const IndexMap& map_;
  const std::vector<int64_t>& shape_;
  std::string what_;
};

// Rewrites every access to `from` into `to` at the mapped indices, simplified with what the
// enclosing loops and blocks say about their variables, and recomputes the regions of `to`
// that blocks declare.
class LayoutRewriter : public IRMutator {
 public:
  LayoutRewriter(const Buffer& from, const Buffer& to, const IndexMap& map)
      : from_(from), to_(to), map_(map) {}

  Stmt VisitStmt_(const ForNode* op) override {
    BindOnce(op->loop_var, RangeFromMinExtent(op->min, op->extent));
    return IRMutator::VisitStmt_(op);
  }

  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    if (!load->buffer.same_as(from_)) return e;
    return BufferLoad(to_, Mapped(load->indices));
  }

  Stmt VisitStmt_(const BufferStoreNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* store = s.as<BufferStoreNode>();
    if (!store->buffer.same_as(from_)) return s;
    return BufferStore(to_, store->value, Mapped(store->indices));
  }

  Stmt VisitStmt_(const BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) BindOnce(iv.var, iv.dom);
    Stmt s = IRMutator::VisitStmt_(op);
    auto block = std::make_shared<BlockNode>(*s.as<BlockNode>());
    bool changed = !s.same_as(GetRef<Stmt>(op));
    for (Buffer& b : block->alloc_buffers) {
      if (b.same_as(from_)) {
        b = to_;
        changed = allocated = true;
      }
    }
    bool declared = BlockReads(block.get(), from_) || BlockWrites(block.get(), from_);
    if (declared) {
      arith::BlockAccessRegions detected = arith::DetectBlockAccessRegions(*block);
      auto redo = [&](std::vector<BufferRegion>& regions, const std::vector<BufferRegion>& found) {
        for (BufferRegion& r : regions) {
          if (!r.buffer.same_as(from_)) continue;
          r = FullRegion(to_);
          for (const BufferRegion& f : found) {
            if (f.buffer.same_as(to_)) r = f;
          }
        }
      };
      redo(block->reads, detected.reads);
      redo(block->writes, detected.writes);
      changed = true;
    }
    return changed ? Block(block) : s;
  }

  bool allocated = false;

 private:
  void BindOnce(const Var& var, const Range& range) {
    if (bound_.insert(var.get()).second) analyzer_.Bind(var, range);
  }

  std::vector<Expr> Mapped(const std::vector<Expr>& indices) {
    std::vector<Expr> out = map_.Apply(indices);
    for (Expr& e : out) e = analyzer_.Simplify(e);
    return out;
  }

  Buffer from_, to_;
  const IndexMap& map_;
  arith::Analyzer analyzer_;
  std::unordered_set<const VarNode*> bound_;
};

}  // namespace

void TransformLayoutBuffer(ScheduleState& state, int b, int buffer_index, bool is_write,
                           const IndexMap& index_map) {
  const std::string what = "transform_layout";
  const BlockNode* block = state.entry(b).block();
  const Buffer buffer = BufferRegionAt(block, is_write, buffer_index, what).buffer;
  KILN_CHECK(
      !IsParamBuffer(state.func(), buffer), ErrorKind::kSchedule,
      what + ": " + buffer->name + (is_write ? " written" : " read") + " by " + BlockLabel(block) +
          " is a parameter of the function; its layout is the kernel's interface. Transform "
          "an intermediate buffer instead (e.g. the copy that cache_read or cache_write makes)");
  KILN_CHECK(index_map.params.size() == buffer.ndim(), ErrorKind::kSchedule,
             what + ": index map " + index_map.ToText() + " takes " +
                 std::to_string(index_map.params.size()) + " indices but " + buffer->name +
                 " has " + std::to_string(buffer.ndim()) + " dimensions");
  KILN_CHECK(buffer->strides.empty(), ErrorKind::kSchedule,
             what + ": " + buffer->name +
                 " has explicit strides (from storage_align); transform its "
                 "layout before aligning it");
  std::vector<int64_t> shape;
  DataType index_type = DataType::Int(32);
  for (const Expr& extent : buffer->shape) {
    auto v = AsConstInt(extent);
    KILN_CHECK(v.has_value(), ErrorKind::kSchedule,
               what + ": " + buffer->name + " has a non-constant shape");
    shape.push_back(*v);
    index_type = extent.dtype();
  }
  // The map's variables take the dtype of the buffer's indices.
  IndexMap map = index_map;
  if (!map.params.empty() && map.params[0].dtype() != index_type) {
    try {
      map = IndexMap::Parse(index_map.ToText(), index_type);
    } catch (const Error& e) {
      throw Error(ErrorKind::kSchedule, what + ": index map " + index_map.ToText() +
                                            " does not fit the " + index_type.ToString() +
                                            " indices of " + buffer->name + ": " + e.what());
    }
  }
  std::vector<int64_t> new_shape = LayoutChecker(map, shape, what).NewShape();
  std::vector<Expr> shape_exprs;
  for (int64_t v : new_shape) shape_exprs.push_back(IntImm(index_type, v));
  Buffer moved = WithShape(buffer, std::move(shape_exprs));
  LayoutRewriter rewriter(buffer, moved, map);
  Stmt body = rewriter.VisitStmt(state.func()->body);
  KILN_CHECK(rewriter.allocated, ErrorKind::kSchedule,
             what + ": " + buffer->name + " is not allocated by a block of the function");
  state.SetFunc(state.func().WithBody(body));
}

}  // namespace kiln::search
