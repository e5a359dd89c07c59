// CreatePrimFunc: orders the stages, checks that every variable a stage uses is defined, and
// lowers each stage to a loop nest around one block.
#include "ir/compute/create_prim_func.h"

#include <unordered_map>
#include <unordered_set>

#include "ir/arith/region.h"
#include "ir/compute/reduce.h"
#include "ir/functor.h"
#include "ir/substitute.h"

namespace kiln::ir::compute {
namespace {

// The variables an expression uses, in order of first use.
class FreeVars : public IRVisitor {
 public:
  std::vector<Var> vars;
  void VisitExpr_(const VarNode* op) override {
    if (seen_.insert(op).second) vars.push_back(GetRef<Var>(op));
  }

 private:
  std::unordered_set<const VarNode*> seen_;
};

std::vector<Var> VarsOf(const std::vector<Expr>& exprs) {
  FreeVars collector;
  for (const Expr& e : exprs) {
    if (e.defined()) collector.VisitExpr(e);
  }
  return collector.vars;
}

class Lowering {
 public:
  Lowering(const std::vector<Tensor>& args, std::string name, const std::vector<Var>& scalars)
      : args_(args), scalars_(scalars), name_(std::move(name)), what_("CreatePrimFunc " + name_) {}

  PrimFunc Run() {
    CheckArgs();
    for (const Tensor& arg : args_) Visit(arg, nullptr);
    CheckNames();

    std::vector<Var> params;
    std::vector<std::pair<Var, Buffer>> buffer_map;
    std::vector<Expr> param_shapes;
    for (const Tensor& arg : args_) {
      Var param(arg.name(), DataType::Handle());
      params.push_back(param);
      buffer_map.emplace_back(param, arg.buffer());
      param_shapes.insert(param_shapes.end(), arg.shape().begin(), arg.shape().end());
    }
    for (const Var& v : VarsOf(param_shapes)) {
      KILN_CHECK(v.dtype().is_int(), ErrorKind::kType,
                 what_ + ": shape variable " + v.name() + " is not an integer");
      shape_vars_.insert(v.get());
    }
    std::unordered_set<const VarNode*> scalar_set;
    for (const Var& v : scalars_) {
      KILN_CHECK(
          v.defined() && v.dtype().is_scalar() && !v.dtype().is_handle() && !v.dtype().is_void(),
          ErrorKind::kType, what_ + ": a scalar parameter is not a scalar variable");
      KILN_CHECK(scalar_set.insert(v.get()).second, ErrorKind::kInvalidIR,
                 what_ + ": scalar parameter " + v.name() + " is passed twice");
      params.push_back(v);
      shape_vars_.insert(v.get());
    }

    std::vector<Stmt> nests;
    std::vector<Buffer> allocs;
    for (const Tensor& stage : order_) {
      if (!IsArg(stage)) {
        CheckDefined(stage, stage.shape(), "the shape of intermediate stage " + stage.name());
        allocs.push_back(stage.buffer());
      }
      nests.push_back(LowerStage(stage));
    }
    KILN_CHECK(!nests.empty(), ErrorKind::kInvalidIR,
               what_ + ": no argument is a compute stage, so there is nothing to compute");

    auto root = std::make_shared<BlockNode>();
    root->name = "root";
    root->alloc_buffers = std::move(allocs);
    root->body = SeqStmt(std::move(nests));
    Stmt body = BlockRealize({}, BoolImm(true), Block(std::move(root)));
    Annotations attrs = {{"global_symbol", StringImm(name_)}, {"tir.noalias", BoolImm(true)}};
    return MakePrimFunc(name_, std::move(params), std::move(buffer_map), std::move(body),
                        std::move(attrs));
  }

 private:
  bool IsArg(const Tensor& t) const { return arg_set_.count(t.get()) != 0; }

  void CheckArgs() {
    KILN_CHECK(!name_.empty(), ErrorKind::kInvalidIR, "CreatePrimFunc: empty function name");
    for (size_t i = 0; i < args_.size(); ++i) {
      KILN_CHECK(args_[i].defined(), ErrorKind::kInvalidIR,
                 what_ + ": argument " + std::to_string(i) + " is undefined");
      KILN_CHECK(arg_set_.insert(args_[i].get()).second, ErrorKind::kInvalidIR,
                 what_ + ": tensor " + args_[i].name() + " is passed twice");
    }
  }

  // Post-order depth-first walk: every stage comes after the stages it loads.
  void Visit(const Tensor& t, const Tensor* user) {
    if (t.is_placeholder()) {
      KILN_CHECK(IsArg(t), ErrorKind::kInvalidIR,
                 what_ + ": stage " + (user ? user->name() : std::string("?")) +
                     " loads placeholder " + t.name() + ", which is not an argument");
      return;
    }
    auto it = visited_.find(t.get());
    if (it != visited_.end()) {
      KILN_CHECK(it->second, ErrorKind::kInvalidIR,
                 what_ + ": stage " + t.name() + " depends on itself (a cycle)");
      return;
    }
    visited_[t.get()] = false;
    for (const Tensor& input : t->inputs) Visit(input, &t);
    visited_[t.get()] = true;
    order_.push_back(t);
  }

  void CheckNames() {
    std::unordered_map<std::string, const TensorNode*> names;
    auto check = [&](const Tensor& t) {
      auto [it, inserted] = names.emplace(t.name(), t.get());
      KILN_CHECK(inserted || it->second == t.get(), ErrorKind::kInvalidIR,
                 what_ + ": two tensors are named " + t.name());
    };
    for (const Tensor& t : args_) check(t);
    for (const Tensor& t : order_) check(t);
  }

  // Every variable in `exprs` is a shape variable of an argument or one of `locals`.
  void CheckDefined(const Tensor& stage, const std::vector<Expr>& exprs, const std::string& where,
                    const std::unordered_set<const VarNode*>& locals = {}) {
    for (const Var& v : VarsOf(exprs)) {
      if (shape_vars_.count(v.get()) || locals.count(v.get())) continue;
      throw Error(ErrorKind::kInvalidIR,
                  what_ + ": " + where + " uses variable " + v.name() + " of stage " +
                      stage.name() +
                      ", which is neither one of its indices, a reduce axis of its reducer, nor "
                      "a dimension of an argument's shape (reduce axes may appear only inside "
                      "a reducer)");
    }
  }

  Stmt LowerStage(const Tensor& stage) {
    const TensorNode& node = *stage.get();
    const std::optional<Reduction>& reduction = node.reduction;
    std::unordered_set<const VarNode*> locals;
    for (const Var& v : node.axis) locals.insert(v.get());
    if (reduction) {
      std::vector<Expr> doms;
      for (const IterVar& axis : reduction->axes) {
        doms.push_back(axis.dom.min);
        doms.push_back(axis.dom.extent);
      }
      CheckDefined(stage, doms, "a reduce axis domain");
      for (const IterVar& axis : reduction->axes) locals.insert(axis.var.get());
      CheckDefined(stage, {reduction->source, reduction->condition}, "the value", locals);
    } else {
      CheckDefined(stage, {node.body}, "the value", locals);
    }

    // Loop variables keep the index names; block iter vars are v_<name>, as TVM prints them.
    struct Loop {
      Var var;
      Range dom;
    };
    std::vector<Loop> loops;
    std::vector<IterVar> iter_vars;
    std::vector<Expr> indices;
    VarMap to_iter;
    for (size_t d = 0; d < node.axis.size(); ++d) {
      const Var& axis = node.axis[d];
      const Expr& extent = stage.shape()[d];
      Range dom{IntImm(extent.dtype(), 0), extent};
      Var iter("v_" + axis.name(), axis.dtype());
      loops.push_back({Var(axis.name(), axis.dtype()), dom});
      iter_vars.push_back(IterVar{iter, dom, IterKind::kSpatial});
      indices.push_back(iter);
      to_iter[axis.get()] = iter;
    }
    if (reduction) {
      for (const IterVar& axis : reduction->axes) {
        Var iter("v_" + axis.var.name(), axis.var.dtype());
        loops.push_back({Var(axis.var.name(), axis.var.dtype()), axis.dom});
        iter_vars.push_back(IterVar{iter, axis.dom, IterKind::kReduce});
        to_iter[axis.var.get()] = iter;
      }
    }

    const Buffer& out = stage.buffer();
    auto block = std::make_shared<BlockNode>();
    block->name = stage.name();
    block->iter_vars = iter_vars;
    if (reduction) {
      DataType dtype = out->dtype;
      Expr value = Substitute(reduction->source, to_iter);
      if (reduction->condition.defined()) {
        value = Select(Substitute(reduction->condition, to_iter), value,
                       ReduceIdentity(reduction->kind, dtype));
      }
      block->init = BufferStore(out, ReduceIdentity(reduction->kind, dtype), indices);
      block->body = BufferStore(
          out, ReduceCombine(reduction->kind, BufferLoad(out, indices), value), indices);
    } else {
      block->body = BufferStore(out, Substitute(node.body, to_iter), indices);
    }
    arith::BlockAccessRegions regions = arith::DetectBlockAccessRegions(*block);
    for (BufferRegion& read : regions.reads) {
      // A reduction's read of its own accumulator is not a dependence on another stage; TVM
      // leaves it out of the block's reads, and so do schedules that compare with TVM.
      if (reduction && read.buffer.same_as(out)) continue;
      block->reads.push_back(std::move(read));
    }
    block->writes = std::move(regions.writes);

    std::vector<Expr> bindings;
    for (const Loop& loop : loops) bindings.push_back(loop.var);
    Stmt nest = BlockRealize(std::move(bindings), BoolImm(true), Block(std::move(block)));
    for (auto it = loops.rbegin(); it != loops.rend(); ++it) {
      nest = For(it->var, it->dom.min, it->dom.extent, ForKind::kSerial, std::move(nest));
    }
    return nest;
  }

  const std::vector<Tensor>& args_;
  const std::vector<Var>& scalars_;
  std::string name_;
  std::string what_;
  std::unordered_set<const TensorNode*> arg_set_;
  std::unordered_map<const TensorNode*, bool> visited_;  // false while its inputs are walked
  std::vector<Tensor> order_;                            // compute stages, topologically
  std::unordered_set<const VarNode*> shape_vars_;
};

}  // namespace

PrimFunc CreatePrimFunc(const std::vector<Tensor>& args, std::string name,
                        const std::vector<Var>& scalar_params) {
  return Lowering(args, std::move(name), scalar_params).Run();
}

}  // namespace kiln::ir::compute
