// LowerToKernels: kernel split, launch extents, block-level code, shared hoisting, barriers,
// device limits.
#include "codegen/gpu/lower_gpu.h"

#include <algorithm>
#include <optional>
#include <unordered_set>

#include "codegen/gpu/barriers.h"
#include "codegen/passes/ir_utils.h"
#include "ir/arith/analyzer.h"
#include "ir/functor.h"

namespace kiln::codegen::gpu {

using namespace ir;

namespace {

bool IsShared(const Buffer& b) { return b->scope.rfind("shared", 0) == 0; }
bool IsGlobal(const Buffer& b) { return b->scope.empty() || b->scope == "global"; }

// Whether `s` holds a loop bound to blockIdx (when `blocks`) or threadIdx (when `threads`).
bool HasBinding(const Stmt& s, bool blocks, bool threads) {
  class Finder : public IRVisitor {
   public:
    Finder(bool blocks, bool threads) : blocks_(blocks), threads_(threads) {}
    bool found = false;
    void VisitStmt_(const ForNode* op) override {
      bool is_block = false;
      int axis = 0;
      if (op->for_kind == ForKind::kThreadBinding &&
          ParseThreadTag(op->thread_tag, &is_block, &axis) &&
          ((is_block && blocks_) || (!is_block && threads_))) {
        found = true;
        return;
      }
      IRVisitor::VisitStmt_(op);
    }

   private:
    bool blocks_, threads_;
  };
  Finder finder(blocks, threads);
  finder.VisitStmt(s);
  return finder.found;
}

// vthread loops become serial loops: a virtual thread is a loop over its index.
class VirtualThreadsToLoops : public IRMutator {
 public:
  Stmt VisitStmt_(const ForNode* op) override {
    Stmt s = IRMutator::VisitStmt_(op);
    const auto* loop = s.as<ForNode>();
    bool is_block = false;
    int axis = 0;
    if (loop->for_kind != ForKind::kThreadBinding ||
        ParseThreadTag(loop->thread_tag, &is_block, &axis)) {
      return s;
    }
    return For(loop->loop_var, loop->min, loop->extent, ForKind::kSerial, loop->body, "",
               loop->annotations);
  }
};

// The extents bound to each axis in one kernel, and the loops that bound them.
struct AxisExtents {
  std::array<std::vector<const ForNode*>, 3> blocks, threads;
};

class BindingCollector : public IRVisitor {
 public:
  AxisExtents axes;
  void VisitStmt_(const ForNode* op) override {
    bool is_block = false;
    int axis = 0;
    if (op->for_kind == ForKind::kThreadBinding &&
        ParseThreadTag(op->thread_tag, &is_block, &axis)) {
      (is_block ? axes.blocks : axes.threads)[axis].push_back(op);
    }
    IRVisitor::VisitStmt_(op);
  }
};

// The launch extent of one axis: the largest bound extent (constants), or the one symbolic
// extent every loop shares.
Expr AxisExtent(const std::vector<const ForNode*>& loops, const std::string& function,
                const std::string& axis_name, arith::Analyzer& analyzer) {
  if (loops.empty()) return IntImm(DataType::Int(64), 1);
  int64_t max_const = 0;
  bool all_const = true;
  for (const ForNode* loop : loops) {
    auto c = AsConstInt(loop->extent);
    if (c) {
      max_const = std::max(max_const, *c);
    } else {
      all_const = false;
    }
  }
  if (all_const) return IntImm(DataType::Int(64), std::max<int64_t>(max_const, 1));
  Expr first = CastTo(DataType::Int(64), loops.front()->extent);
  for (const ForNode* loop : loops) {
    Expr e = CastTo(DataType::Int(64), loop->extent);
    bool same = false;
    try {
      same = IsConstInt(analyzer.Simplify(e - first), 0);
    } catch (const Error&) {
      same = false;
    }
    KILN_CHECK(same, ErrorKind::kUnsupported,
               "function " + function + ": loops " + loops.front()->loop_var.name() + " and " +
                   loop->loop_var.name() + " are bound to " + axis_name +
                   " with different extents, one of them symbolic: the launch cannot cover both");
  }
  return first;
}

bool IsOne(const Expr& e) { return IsConstInt(e, 1); }

const char* const kAxisNames[3] = {"x", "y", "z"};

// Wraps code that runs at block level (outside every threadIdx loop) in loops of extent 1
// bound to the block's thread axes, so that one thread runs it.
class BlockLevelGuard {
 public:
  explicit BlockLevelGuard(const std::array<Expr, 3>& block) : block_(block) {}

  // Global buffers that such code reads or writes: other threads may see them.
  std::unordered_set<const VarNode*> touched_global;

  Stmt Wrap(const Stmt& s) {
    if (!s.defined()) return s;
    if (!HasBinding(s, false, true)) return Guard(s);
    switch (s.kind()) {
      case NodeKind::kFor: {
        const auto* op = s.as<ForNode>();
        bool is_block = false;
        int axis = 0;
        if (op->for_kind == ForKind::kThreadBinding &&
            ParseThreadTag(op->thread_tag, &is_block, &axis) && !is_block) {
          return s;  // threads run it
        }
        return For(op->loop_var, op->min, op->extent, op->for_kind, Wrap(op->body), op->thread_tag,
                   op->annotations);
      }
      case NodeKind::kSeqStmt: {
        std::vector<Stmt> seq;
        for (const Stmt& x : s.as<SeqStmtNode>()->seq) seq.push_back(Wrap(x));
        return SeqStmt(std::move(seq));
      }
      case NodeKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        return IfThenElse(op->condition, Wrap(op->then_case), Wrap(op->else_case));
      }
      case NodeKind::kLetStmt: {
        const auto* op = s.as<LetStmtNode>();
        return LetStmt(op->var, op->value, Wrap(op->body));
      }
      case NodeKind::kAllocate: {
        const auto* op = s.as<AllocateNode>();
        return Allocate(op->buffer, Wrap(op->body));
      }
      case NodeKind::kDeclBuffer: {
        const auto* op = s.as<DeclBufferNode>();
        return DeclBufferStmt(op->buffer, Wrap(op->body));
      }
      default:
        return s;
    }
  }

 private:
  Stmt Guard(const Stmt& s) {
    if (s.kind() == NodeKind::kEvaluate) return s;
    bool needed = false;
    for (const Expr& e : block_) needed |= !IsOne(e);
    if (!needed) return s;
    CollectGlobals(s);
    Stmt body = s;
    for (int axis = 2; axis >= 0; --axis) {
      if (IsOne(block_[axis])) continue;
      Var t(std::string("single_t") + kAxisNames[axis], DataType::Int(32));
      body = For(t, IntImm(DataType::Int(32), 0), IntImm(DataType::Int(32), 1),
                 ForKind::kThreadBinding, body, std::string("threadIdx.") + kAxisNames[axis]);
    }
    return body;
  }

  void CollectGlobals(const Stmt& s) {
    class Collector : public IRVisitor {
     public:
      explicit Collector(std::unordered_set<const VarNode*>& out) : out_(out) {}
      void VisitExpr_(const BufferLoadNode* op) override {
        if (IsGlobal(op->buffer)) out_.insert(op->buffer->data.get());
        IRVisitor::VisitExpr_(op);
      }
      void VisitStmt_(const BufferStoreNode* op) override {
        if (IsGlobal(op->buffer)) out_.insert(op->buffer->data.get());
        IRVisitor::VisitStmt_(op);
      }

     private:
      std::unordered_set<const VarNode*>& out_;
    };
    Collector(touched_global).VisitStmt(s);
  }

  const std::array<Expr, 3>& block_;
};

// Removes shared allocations from a kernel body, collecting their buffers.
class SharedHoister : public IRMutator {
 public:
  std::vector<Buffer> shared;
  Stmt VisitStmt_(const AllocateNode* op) override {
    Stmt body = VisitStmt(op->body);
    if (!IsShared(op->buffer)) {
      return body.same_as(op->body) ? GetRef<Stmt>(op) : Allocate(op->buffer, body);
    }
    shared.push_back(op->buffer);
    return body;
  }
};

int64_t BufferBytes(const Buffer& b, const std::string& function) {
  int64_t count = 1;
  for (const Expr& extent : b->shape) {
    auto c = AsConstInt(extent);
    KILN_CHECK(c.has_value(), ErrorKind::kUnsupported,
               "function " + function + ": shared buffer " + b->name +
                   " has a symbolic size; shared memory must have a constant size");
    count *= *c;
  }
  return count * b->dtype.bytes() * b->dtype.lanes();
}

// Uses of each top-level allocation by the kernel statements.
int CountUsers(const Buffer& b, const std::vector<Stmt>& kernels) {
  int users = 0;
  for (const Stmt& k : kernels) {
    class Finder : public IRVisitor {
     public:
      explicit Finder(const VarNode* data) : data_(data) {}
      bool found = false;
      void VisitExpr_(const BufferLoadNode* op) override {
        found |= op->buffer->data.get() == data_;
        IRVisitor::VisitExpr_(op);
      }
      void VisitStmt_(const BufferStoreNode* op) override {
        found |= op->buffer->data.get() == data_;
        IRVisitor::VisitStmt_(op);
      }
      void VisitExpr_(const VarNode* op) override { found |= op == data_; }

     private:
      const VarNode* data_;
    };
    Finder finder(b->data.get());
    finder.VisitStmt(k);
    users += finder.found ? 1 : 0;
  }
  return users;
}

}  // namespace

bool SameExtent(const Expr& a, const Expr& b) {
  auto ca = AsConstInt(a), cb = AsConstInt(b);
  if (ca && cb) return *ca == *cb;
  if (ca || cb) return false;
  try {
    arith::Analyzer analyzer;
    return IsConstInt(
        analyzer.Simplify(CastTo(DataType::Int(64), a) - CastTo(DataType::Int(64), b)), 0);
  } catch (const Error&) {
    return false;
  }
}

bool ParseThreadTag(const std::string& tag, bool* is_block, int* axis) {
  std::string base;
  if (tag.rfind("blockIdx.", 0) == 0) {
    *is_block = true;
    base = tag.substr(9);
  } else if (tag.rfind("threadIdx.", 0) == 0) {
    *is_block = false;
    base = tag.substr(10);
  } else {
    return false;
  }
  if (base.size() != 1 || base[0] < 'x' || base[0] > 'z') return false;
  *axis = base[0] - 'x';
  return true;
}

LowerOptions GpuLowerOptions() {
  LowerOptions options;
  options.plan_storage = false;
  options.gpu = true;
  // Every GPU language has vectors of up to 4 lanes (GLSL's vec4); wider loops stay loops.
  options.vectorize.max_lanes = 4;
  // The GPU emitters print intrinsic calls on scalars only.
  options.vectorize.vectorize_calls = false;
  return options;
}

GpuProgram LowerToKernels(const PrimFunc& lowered, const std::string& symbol,
                          const GpuLimits& limits) {
  const std::string& fname = lowered->name;
  GpuProgram program;

  // Peel the function-level wrappers: allocations, buffer declarations and lets.
  struct Wrapper {
    enum { kAllocate, kLet } kind;
    Buffer buffer;
    Var var;
    Expr value;
  };
  std::vector<Wrapper> wrappers;
  Stmt body = VirtualThreadsToLoops().VisitStmt(lowered->body);
  while (true) {
    if (const auto* a = body.as<AllocateNode>()) {
      wrappers.push_back({Wrapper::kAllocate, a->buffer, Var(), Expr()});
      body = a->body;
    } else if (const auto* d = body.as<DeclBufferNode>()) {
      body = d->body;
    } else if (const auto* l = body.as<LetStmtNode>()) {
      wrappers.push_back({Wrapper::kLet, Buffer(), l->var, l->value});
      body = l->body;
    } else {
      break;
    }
  }

  // Top-level statements: one kernel per statement with a binding, one per run of those
  // without.
  std::vector<Stmt> top;
  if (const auto* seq = body.as<SeqStmtNode>()) {
    top = seq->seq;
  } else {
    top.push_back(body);
  }
  std::vector<Stmt> kernel_bodies;
  std::vector<Stmt> pending;
  auto flush = [&] {
    if (!pending.empty()) kernel_bodies.push_back(SeqStmt(pending));
    pending.clear();
  };
  for (const Stmt& s : top) {
    if (HasBinding(s, true, true)) {
      flush();
      kernel_bodies.push_back(s);
    } else if (s.kind() != NodeKind::kEvaluate || !AsConstInt(s.as<EvaluateNode>()->value)) {
      pending.push_back(s);
    }
  }
  flush();

  // Function-level allocations: global memory, or private to the one kernel that uses them.
  for (auto w = wrappers.rbegin(); w != wrappers.rend(); ++w) {
    if (w->kind == Wrapper::kLet) {
      for (Stmt& k : kernel_bodies) k = LetStmt(w->var, w->value, k);
      continue;
    }
    const Buffer& b = w->buffer;
    int users = CountUsers(b, kernel_bodies);
    if (users == 0) continue;
    if (!IsGlobal(b) && users == 1) {
      for (Stmt& k : kernel_bodies) {
        if (CountUsers(b, {k}) == 1) k = Allocate(b, k);
      }
      continue;
    }
    program.workspace.push_back(b);
    Expr elements = IntImm(DataType::Int(64), 1);
    for (const Expr& e : b->shape) elements = FoldMul(elements, CastTo(DataType::Int(64), e));
    program.plan.workspace.push_back({b->name, b->dtype, elements});
  }
  std::reverse(program.workspace.begin(), program.workspace.end());
  std::reverse(program.plan.workspace.begin(), program.plan.workspace.end());

  arith::Analyzer analyzer;
  for (size_t k = 0; k < kernel_bodies.size(); ++k) {
    GpuKernel kernel;
    kernel.launch.symbol = kernel_bodies.size() == 1 ? symbol : symbol + "_k" + std::to_string(k);
    BindingCollector collector;
    collector.VisitStmt(kernel_bodies[k]);
    for (int axis = 0; axis < 3; ++axis) {
      kernel.launch.extents.grid[axis] =
          AxisExtent(collector.axes.blocks[axis], fname,
                     std::string("blockIdx.") + kAxisNames[axis], analyzer);
      kernel.launch.extents.block[axis] =
          AxisExtent(collector.axes.threads[axis], fname,
                     std::string("threadIdx.") + kAxisNames[axis], analyzer);
    }

    // Limits: threads per block, then per axis, then blocks per axis.
    int64_t threads = 1;
    bool threads_known = true;
    std::string thread_loops;
    std::array<std::string, 3> axis_loops;
    for (int axis = 0; axis < 3; ++axis) {
      const std::string tag = std::string("threadIdx.") + kAxisNames[axis];
      auto extent = AsConstInt(kernel.launch.extents.block[axis]);
      for (const ForNode* loop : collector.axes.threads[axis]) {
        if (extent && AsConstInt(loop->extent) == extent) {
          axis_loops[axis] = "loop " + loop->loop_var.name() + " bound to " + tag +
                             " with extent " + std::to_string(*extent);
          thread_loops += (thread_loops.empty() ? "" : ", ") + axis_loops[axis];
          break;
        }
      }
      if (!extent) {
        threads_known = false;
        continue;
      }
      threads *= *extent;
    }
    KILN_CHECK(!threads_known || threads <= limits.max_threads_per_block, ErrorKind::kUnsupported,
               "function " + fname + ": " + std::to_string(threads) + " threads per block (" +
                   thread_loops + ") exceed the device's limit of " +
                   std::to_string(limits.max_threads_per_block) + " threads per block");
    for (int axis = 0; axis < 3; ++axis) {
      auto extent = AsConstInt(kernel.launch.extents.block[axis]);
      KILN_CHECK(!extent || *extent <= limits.max_block_extent[axis], ErrorKind::kUnsupported,
                 "function " + fname + ": " + axis_loops[axis] + " exceeds the device's limit of " +
                     std::to_string(limits.max_block_extent[axis]) + " threads on threadIdx." +
                     kAxisNames[axis]);
      auto blocks = AsConstInt(kernel.launch.extents.grid[axis]);
      KILN_CHECK(!blocks || *blocks <= limits.max_grid_extent[axis], ErrorKind::kUnsupported,
                 "function " + fname + ": " + std::to_string(blocks.value_or(0)) +
                     " blocks on blockIdx." + kAxisNames[axis] + " exceed the device's limit of " +
                     std::to_string(limits.max_grid_extent[axis]));
    }

    BlockLevelGuard guard(kernel.launch.extents.block);
    Stmt kbody = guard.Wrap(kernel_bodies[k]);
    SharedHoister hoister;
    kbody = hoister.VisitStmt(kbody);
    kernel.shared = hoister.shared;
    std::string shared_list;
    for (const Buffer& b : kernel.shared) {
      int64_t bytes = BufferBytes(b, fname);
      kernel.launch.shared_bytes += bytes;
      shared_list +=
          (shared_list.empty() ? "" : ", ") + b->name + " (" + std::to_string(bytes) + " bytes)";
    }
    KILN_CHECK(kernel.launch.shared_bytes <= limits.max_shared_bytes, ErrorKind::kUnsupported,
               "function " + fname + ": shared memory of " +
                   std::to_string(kernel.launch.shared_bytes) + " bytes per block (" + shared_list +
                   ") exceeds the device's limit of " + std::to_string(limits.max_shared_bytes) +
                   " bytes of shared memory per block");

    std::unordered_set<const VarNode*> tracked = guard.touched_global;
    for (const Buffer& b : kernel.shared) tracked.insert(b->data.get());
    kernel.body = InsertBarriers(kbody, tracked, kernel.launch.extents.block);
    program.plan.kernels.push_back(kernel.launch);
    program.kernels.push_back(std::move(kernel));
  }
  return program;
}

}  // namespace kiln::codegen::gpu
