// Cache and storage primitives: cache_read and cache_write add a stage that copies a buffer
// into (or out of) a new buffer in another storage scope, and redirect the block's accesses
// to it; set_scope changes where an intermediate buffer lives; storage_align pads the rows of
// an intermediate buffer (explicit strides) so that accesses spread over memory banks.
#include "ir/functor.h"
#include "search/schedule/primitive/primitive.h"
#include "search/schedule/primitive/utils.h"

namespace kiln::search {

using namespace ir;

namespace {

// Redirects loads of one buffer (and the read regions that name it) to another.
class LoadRedirector : public IRMutator {
 public:
  LoadRedirector(const Buffer& from, const Buffer& to) : from_(from), to_(to) {}
  Expr VisitExpr_(const BufferLoadNode* op) override {
    Expr e = IRMutator::VisitExpr_(op);
    const auto* load = e.as<BufferLoadNode>();
    return load->buffer.same_as(from_) ? BufferLoad(to_, load->indices) : e;
  }
  Stmt VisitStmt_(const BlockNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    auto block = std::make_shared<BlockNode>(*s.as<BlockNode>());
    bool changed = false;
    for (BufferRegion& r : block->reads) {
      if (r.buffer.same_as(from_)) {
        r.buffer = to_;
        changed = true;
      }
    }
    return changed ? Block(block) : s;
  }

 private:
  Buffer from_, to_;
};

// A loop nest copying all of `src` into `dst`, in a block named `name`.
Stmt CopyStage(const std::string& name, const Buffer& src, const Buffer& dst) {
  auto block = std::make_shared<BlockNode>();
  block->name = name;
  std::vector<Var> loops;
  std::vector<Expr> values, indices;
  std::vector<Range> point;
  for (size_t d = 0; d < src.ndim(); ++d) {
    const Expr& extent = src->shape[d];
    Var loop("ax" + std::to_string(d), extent.dtype());
    Var iter("v" + std::to_string(d), extent.dtype());
    loops.push_back(loop);
    values.push_back(loop);
    indices.push_back(iter);
    point.push_back(RangeFromMinExtent(iter, IntImm(extent.dtype(), 1)));
    block->iter_vars.push_back(
        IterVar{iter, RangeFromMinExtent(IntImm(extent.dtype(), 0), extent), IterKind::kSpatial});
  }
  block->reads = {BufferRegion{src, point}};
  block->writes = {BufferRegion{dst, point}};
  block->body = BufferStore(dst, BufferLoad(src, indices), indices);
  Stmt body = BlockRealize(values, BoolImm(true), Block(block));
  for (size_t d = loops.size(); d-- > 0;) {
    body = For(loops[d], IntImm(loops[d].dtype(), 0), src->shape[d], ForKind::kSerial, body);
  }
  return body;
}

size_t StagePosition(const Stmt& body, const StmtNode* stage) {
  if (const auto* seq = body.as<SeqStmtNode>()) {
    for (size_t i = 0; i < seq->seq.size(); ++i) {
      if (seq->seq[i].get() == stage) return i;
    }
  }
  return 0;
}

Stmt InsertStage(const Stmt& body, size_t position, const Stmt& stage) {
  std::vector<Stmt> seq;
  if (const auto* s = body.as<SeqStmtNode>()) {
    seq = s->seq;
  } else {
    seq = {body};
  }
  seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(position), stage);
  return SeqStmt(seq);
}

Buffer ScopedCopy(const Buffer& buffer, const std::string& scope) {
  return DeclBuffer(buffer->name + "_" + scope, buffer->dtype, buffer->shape, scope);
}

}  // namespace

std::string CacheReadBlock(ScheduleState& state, int b, int read_index, const std::string& scope) {
  const std::string what = "cache_read";
  CheckStorageScope(scope, what);
  const BlockNode* block = state.entry(b).block();
  const Buffer buffer = BufferRegionAt(block, false, read_index, what).buffer;
  int scope_index = state.ScopeOf(b);
  KILN_CHECK(scope_index >= 0, ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " is the root");
  int first_stage = -1;
  std::vector<int> readers;
  for (int other : state.ChildBlocks(scope_index)) {
    const BlockNode* o = state.entry(other).block();
    if (!BlockReads(o, buffer)) continue;
    KILN_CHECK(!BlockWrites(o, buffer), ErrorKind::kSchedule,
               what + ": " + BlockLabel(o) + " both reads and writes " + buffer->name);
    if (first_stage < 0) first_stage = StageOf(state, other, scope_index);
    readers.push_back(other);
  }
  // The copy is taken once, before the first reader: every writer must be done by then.
  for (int other : state.ChildBlocks(scope_index)) {
    const BlockNode* o = state.entry(other).block();
    if (!BlockWrites(o, buffer)) continue;
    int stage = StageOf(state, other, scope_index);
    KILN_CHECK(stage != first_stage, ErrorKind::kSchedule,
               what + ": " + buffer->name + " is written and read under the same loop nest");
    KILN_CHECK(stage < first_stage, ErrorKind::kSchedule,
               what + ": " + BlockLabel(o) + " writes " + buffer->name +
                   " after a block reads it; the copy would miss that write");
  }
  const BlockRealizeNode* scope_realize = state.entry(scope_index).realize();
  const Stmt& scope_body = scope_realize->block_node()->body;
  size_t position = StagePosition(scope_body, state.entry(first_stage).stmt.get());
  Buffer cache = ScopedCopy(buffer, scope);
  std::string name = state.FreshBlockName(cache->name);
  // Only the readers are redirected: a block that writes the buffer (a reduction reading its
  // accumulator without declaring it) keeps its own accesses.
  std::unordered_map<const StmtNode*, Stmt> redirected;
  LoadRedirector redirector(buffer, cache);
  for (int r : readers) {
    redirected[state.entry(r).stmt.get()] = redirector.VisitStmt(state.entry(r).stmt);
  }
  Stmt body = ReplaceStmts(scope_body, redirected);
  body = InsertStage(body, position, CopyStage(name, buffer, cache));
  state.Replace(scope_realize, RebuildScope(scope_realize, body, {cache}, Buffer()));
  return name;
}

std::string CacheWriteBlock(ScheduleState& state, int b, int write_index,
                            const std::string& scope) {
  const std::string what = "cache_write";
  CheckStorageScope(scope, what);
  const BlockRealizeNode* realize = state.entry(b).realize();
  const BlockNode* block = realize->block_node();
  const Buffer buffer = BufferRegionAt(block, true, write_index, what).buffer;
  int scope_index = state.ScopeOf(b);
  KILN_CHECK(scope_index >= 0, ErrorKind::kSchedule,
             what + ": " + BlockLabel(block) + " is the root");
  int stage = StageOf(state, b, scope_index);
  for (int other : state.ChildBlocks(scope_index)) {
    if (other == b) continue;
    const BlockNode* o = state.entry(other).block();
    KILN_CHECK(!BlockWrites(o, buffer), ErrorKind::kSchedule,
               what + ": " + buffer->name + " is also written by " + BlockLabel(o));
    KILN_CHECK(!BlockReads(o, buffer) || StageOf(state, other, scope_index) != stage,
               ErrorKind::kSchedule,
               what + ": " + BlockLabel(o) + " reads " + buffer->name + " under the loops of " +
                   BlockLabel(block));
  }
  const BlockRealizeNode* scope_realize = state.entry(scope_index).realize();
  const Stmt& scope_body = scope_realize->block_node()->body;
  size_t position = StagePosition(scope_body, state.entry(stage).stmt.get());
  Buffer cache = ScopedCopy(buffer, scope);
  std::string name = state.FreshBlockName(cache->name);
  Stmt body = ReplaceStmts(
      scope_body, {{realize, ReplaceBuffers(state.entry(b).stmt, {{buffer.get(), cache}})}});
  body = InsertStage(body, position + 1, CopyStage(name, cache, buffer));
  state.Replace(scope_realize, RebuildScope(scope_realize, body, {cache}, Buffer()));
  return name;
}

void SetBufferScope(ScheduleState& state, int b, int write_index, const std::string& scope) {
  const BlockNode* block = state.entry(b).block();
  const Buffer buffer = BufferRegionAt(block, true, write_index, "set_scope").buffer;
  KILN_CHECK(!IsParamBuffer(state.func(), buffer), ErrorKind::kSchedule,
             "set_scope: " + buffer->name + " written by " + BlockLabel(block) +
                 " is a parameter of the function; its storage is the caller's");
  CheckStorageScope(scope, "set_scope");
  if (buffer->scope == scope) return;
  Buffer moved = WithScope(buffer, scope);
  state.SetFunc(state.func().WithBody(ReplaceBuffers(state.func()->body, {{buffer.get(), moved}})));
}

}  // namespace kiln::search

namespace kiln::search {

using namespace ir;

void StorageAlignBuffer(ScheduleState& state, int b, int write_index, int axis, int factor,
                        int offset) {
  const std::string what = "storage_align";
  const BlockNode* block = state.entry(b).block();
  const Buffer buffer = BufferRegionAt(block, true, write_index, what).buffer;
  KILN_CHECK(!IsParamBuffer(state.func(), buffer), ErrorKind::kSchedule,
             what + ": " + buffer->name + " written by " + BlockLabel(block) +
                 " is a parameter of the function; its strides are the caller's");
  const int ndim = static_cast<int>(buffer.ndim());
  KILN_CHECK(axis >= -ndim && axis < ndim, ErrorKind::kSchedule,
             what + ": axis " + std::to_string(axis) + " is out of range for " + buffer->name +
                 " (" + std::to_string(ndim) + " dimensions)");
  if (axis < 0) axis += ndim;
  KILN_CHECK(factor > 0, ErrorKind::kSchedule,
             what + ": factor " + std::to_string(factor) + " is not positive");
  KILN_CHECK(offset >= 0 && offset < factor, ErrorKind::kSchedule,
             what + ": offset " + std::to_string(offset) + " is not in [0, factor " +
                 std::to_string(factor) + ")");
  KILN_CHECK(
      buffer->strides.empty(), ErrorKind::kSchedule,
      what + ": " + buffer->name + " already has explicit strides; align one axis per buffer");
  std::vector<int64_t> shape;
  for (const Expr& extent : buffer->shape) {
    auto v = AsConstInt(extent);
    KILN_CHECK(v.has_value(), ErrorKind::kSchedule,
               what + ": " + buffer->name + " has a non-constant shape");
    shape.push_back(*v);
  }
  // Row-major strides, with the aligned one rounded up to the next factor * k + offset.
  std::vector<int64_t> strides(ndim, 1);
  int64_t stride = 1;
  for (int d = ndim; d-- > 0;) {
    if (d + 1 < ndim) stride *= shape[d + 1];
    if (d == axis) stride += (factor + offset - stride % factor) % factor;
    KILN_CHECK(stride < (int64_t{1} << 40), ErrorKind::kSchedule,
               what + ": the strides of " + buffer->name + " overflow");
    strides[d] = stride;
  }
  auto node = std::make_shared<BufferNode>(*buffer.get());
  node->strides.clear();
  for (int64_t s : strides) node->strides.push_back(IntImm(buffer->shape[0].dtype(), s));
  node->data = Var(node->name, DataType::Handle());
  Buffer aligned(std::move(node));
  bool allocated = false;
  for (size_t i = 0; i < state.size() && !allocated; ++i) {
    if (const BlockNode* blk = state.entry(static_cast<int>(i)).block()) {
      for (const Buffer& a : blk->alloc_buffers) allocated |= a.same_as(buffer);
    }
  }
  KILN_CHECK(allocated, ErrorKind::kSchedule,
             what + ": " + buffer->name + " is not allocated by a block of the function");
  state.SetFunc(
      state.func().WithBody(ReplaceBuffers(state.func()->body, {{buffer.get(), aligned}})));
}

}  // namespace kiln::search
