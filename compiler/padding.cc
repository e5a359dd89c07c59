// The padding proof: the dim's axes traced through the entry function, each kernel checked
// block by block.
#include "compiler/padding.h"

#include <set>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/relax/dim.h"
#include "ir/stmt.h"
#include "ir/substitute.h"
#include "ir/text/printer.h"
#include "support/error.h"

namespace kiln::compiler {
namespace {

namespace relax = ir::relax;

// Which axes of a tensor are the dim's; a tuple has one entry per field.
using Axes = std::vector<bool>;
struct Traced {
  std::vector<Axes> fields;
  bool tuple = false;
};

// Thrown inside the check of one dim: why it cannot be padded.
struct NotPaddable {
  std::string why;
};
[[noreturn]] void Refuse(const std::string& why) { throw NotPaddable{why}; }

bool Mentions(const ir::Expr& e, const std::string& name) {
  bool found = false;
  ir::ForEachVar(e, [&](const ir::Var& v) { found = found || v.name() == name; });
  return found;
}

// Whether `e` uses one of `vars` itself, not only through a load's indices: a position used
// to read a value (a gather's index loaded at the position being computed) is data of that
// position, not the position.
class DirectUse : public ir::IRVisitor {
 public:
  explicit DirectUse(std::set<const ir::VarNode*> vars) : vars_(std::move(vars)) {}
  bool In(const ir::Expr& e) {
    found_ = false;
    VisitExpr(e);
    return found_;
  }

 private:
  void VisitExpr_(const ir::VarNode* op) override { found_ = found_ || vars_.count(op) != 0; }
  void VisitExpr_(const ir::BufferLoadNode*) override {}
  std::set<const ir::VarNode*> vars_;
  bool found_ = false;
};

// The kernel check: every block keeps the dim's axes apart (see padding.h).
class KernelCheck : public ir::IRVisitor {
 public:
  KernelCheck(const ir::PrimFunc& f, const std::string& task) : f_(f), task_(task) {}

  // `axes` per parameter (empty for a scalar): the dim's axes of each buffer argument.
  void Run(const std::vector<Axes>& axes) {
    for (size_t p = 0; p < f_->params.size() && p < axes.size(); ++p) {
      auto buffer = f_->BufferOf(f_->params[p]);
      if (!buffer) continue;
      for (size_t a = 0; a < axes[p].size() && a < (*buffer)->shape.size(); ++a) {
        if (!axes[p][a]) continue;
        const auto* v = (*buffer)->shape[a].as<ir::VarNode>();
        if (v == nullptr || (dim_ != nullptr && v != dim_)) {
          Refuse("kernel " + task_ + ": its parameter " + (*buffer)->name + "'s dim " +
                 std::to_string(a) + " is " + relax::DimToString((*buffer)->shape[a]) +
                 " where the model has the dim");
        }
        dim_ = v;
      }
    }
    if (dim_ == nullptr) {
      // No argument varies with the dim: neither may anything the kernel makes.
      for (const ir::Var& p : f_->params) {
        auto buffer = f_->BufferOf(p);
        if (!buffer) continue;
        for (const ir::Expr& extent : (*buffer)->shape) {
          ir::ForEachVar(extent, [&](const ir::Var&) {
            Refuse("kernel " + task_ + " has symbolic shapes the model's dim does not explain");
          });
        }
      }
      return;
    }
    for (size_t p = 0; p < f_->params.size(); ++p) {
      auto buffer = f_->BufferOf(f_->params[p]);
      if (!buffer) {
        if (Mentions(f_->params[p], dim_name())) Refuse("kernel " + task_ + " takes the dim");
        continue;
      }
      Axes expected = p < axes.size() ? axes[p] : Axes();
      if (AxesOf(*buffer) != expected) {
        Refuse("kernel " + task_ + ": parameter " + (*buffer)->name +
               " does not have the dim where the model's value does");
      }
    }
    VisitStmt(f_->body);
  }

 private:
  std::string dim_name() const { return dim_->name; }

  // The buffer's dim axes; a dim expression that mentions the dim but is not it is refused.
  Axes AxesOf(const ir::Buffer& b) {
    auto it = buffer_axes_.find(b.get());
    if (it != buffer_axes_.end()) return it->second;
    Axes axes;
    for (const ir::Expr& extent : b->shape) {
      bool is_dim = extent.as<ir::VarNode>() == dim_;
      if (!is_dim && MentionsDim(extent)) {
        Refuse("kernel " + task_ + ": buffer " + b->name + " has the extent " +
               relax::DimToString(extent) + ", which mixes the dim with others");
      }
      axes.push_back(is_dim);
    }
    buffer_axes_[b.get()] = axes;
    return axes;
  }

  static std::set<const ir::VarNode*> Union(std::set<const ir::VarNode*> a, const ir::VarNode* b) {
    a.insert(b);
    return a;
  }

  bool MentionsDim(const ir::Expr& e) const {
    bool found = false;
    ir::ForEachVar(e, [&](const ir::Var& v) { found = found || v.get() == dim_; });
    return found;
  }

  void VisitStmt_(const ir::ForNode* op) override {
    if (MentionsDim(op->extent) || MentionsDim(op->min)) {
      bool whole = op->extent.as<ir::VarNode>() == dim_ && ir::IsConstInt(op->min, 0);
      if (!whole) {
        Refuse("kernel " + task_ + ": a loop runs over " + relax::DimToString(op->extent) +
               ", a part of the dim");
      }
    }
    analyzer_.Bind(op->loop_var, ir::RangeFromMinExtent(op->min, op->extent));
    VisitStmt(op->body);
  }

  void VisitStmt_(const ir::BlockRealizeNode* op) override {
    const ir::BlockNode* block = op->block_node();
    if (MentionsDim(op->predicate)) {
      Refuse("kernel " + task_ + ": block " + block->name + " is predicated on the dim");
    }
    std::set<const ir::VarNode*> saved = dim_iters_;
    dim_iters_.clear();
    for (size_t i = 0; i < block->iter_vars.size(); ++i) {
      const ir::IterVar& iv = block->iter_vars[i];
      analyzer_.Bind(iv.var, iv.dom);
      bool whole = iv.dom.extent.as<ir::VarNode>() == dim_ && ir::IsConstInt(iv.dom.min, 0);
      if (whole && iv.kind == ir::IterKind::kSpatial) {
        dim_iters_.insert(iv.var.get());
      } else if (MentionsDim(iv.dom.extent) || MentionsDim(iv.dom.min)) {
        Refuse("kernel " + task_ + ": block " + block->name +
               (iv.kind == ir::IterKind::kReduce ? " reduces over the dim"
                                                 : " iterates over a part of the dim"));
      }
    }
    for (const ir::Buffer& b : block->alloc_buffers) AxesOf(b);
    if (block->init.defined()) VisitStmt(block->init);
    VisitStmt(block->body);
    dim_iters_ = saved;
  }

  // An access keeps rows apart when each of the buffer's dim axes is indexed by a block
  // iterator that runs over the dim, and its other axes by nothing that depends on one.
  void CheckAccess(const ir::Buffer& buffer, const std::vector<ir::Expr>& indices) {
    Axes axes = AxesOf(buffer);
    for (size_t a = 0; a < indices.size() && a < axes.size(); ++a) {
      ir::Expr index = analyzer_.Simplify(indices[a]);
      if (axes[a]) {
        const auto* v = index.as<ir::VarNode>();
        if (v == nullptr || dim_iters_.count(v) == 0) {
          Refuse("kernel " + task_ + ": " + buffer->name + " is accessed along the dim at " +
                 ir::PrintExpr(index) + ", not at the position being computed");
        }
      } else if (DirectUse(Union(dim_iters_, dim_)).In(index)) {
        Refuse("kernel " + task_ + ": " + buffer->name + " is indexed by the dim's position (" +
               ir::PrintExpr(index) + ") along another axis");
      }
    }
  }

  // Indices were judged by CheckAccess; inside them only nested loads still need a look.
  void VisitIndices(const std::vector<ir::Expr>& indices) {
    ++in_index_;
    for (const ir::Expr& i : indices) VisitExpr(i);
    --in_index_;
  }

  void VisitExpr_(const ir::BufferLoadNode* op) override {
    CheckAccess(op->buffer, op->indices);
    VisitIndices(op->indices);
  }

  void VisitStmt_(const ir::BufferStoreNode* op) override {
    CheckAccess(op->buffer, op->indices);
    VisitIndices(op->indices);
    VisitExpr(op->value);
  }

  void VisitExpr_(const ir::VarNode* op) override {
    if (in_index_ > 0) return;
    // Outside an index: the dim's value, or a position along it, used in arithmetic.
    if (op == dim_) Refuse("kernel " + task_ + " computes with the dim's value");
    if (dim_iters_.count(op) != 0) {
      Refuse("kernel " + task_ + " computes with the position along the dim");
    }
  }

  const ir::PrimFunc& f_;
  std::string task_;
  const ir::VarNode* dim_ = nullptr;
  std::map<const ir::BufferNode*, Axes> buffer_axes_;
  std::set<const ir::VarNode*> dim_iters_;
  int in_index_ = 0;
  ir::arith::Analyzer analyzer_;
};

// The dim traced through the entry function.
class DimTrace {
 public:
  DimTrace(const relax::IRModule& module, std::string dim)
      : module_(module), dim_(std::move(dim)) {}

  void Run(const relax::Function& f) {
    for (const relax::Var& p : f->params) vars_[p.get()] = Trace(p.struct_info(), p.name());
    const auto* seq = f->body.as<relax::SeqExprNode>();
    if (seq == nullptr) Refuse("the entry function has no bindings");
    for (const relax::BindingBlock& block : seq->blocks) {
      for (const relax::Binding& b : block.bindings) {
        Traced value = Eval(b.value, b.var.name());
        if (b.is_match_cast()) {
          Traced pattern = Trace(b.pattern, b.var.name());
          if (pattern.fields != value.fields) {
            Refuse("the check " + b.var.name() + " moves the dim to another axis");
          }
        }
        vars_[b.var.get()] = value;
      }
    }
    Eval(seq->body, "the returned value");
  }

 private:
  Axes AxesOf(const relax::StructInfo& s, const std::string& what) {
    const auto* t = s.as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->shape) Refuse(what + " is not a tensor of known shape");
    Axes axes;
    for (const relax::PrimExpr& d : *t->shape) {
      const auto* v = d.as<ir::VarNode>();
      bool is_dim = v != nullptr && v->name == dim_;
      if (!is_dim && Mentions(d, dim_)) {
        Refuse(what + " has the dim " + relax::DimToString(d) + ", which mixes " + dim_ +
               " with others");
      }
      axes.push_back(is_dim);
    }
    return axes;
  }

  Traced Trace(const relax::StructInfo& s, const std::string& what) {
    if (const auto* t = s.as<relax::TupleStructInfoNode>()) {
      Traced out{{}, true};
      for (const relax::StructInfo& f : t->fields) out.fields.push_back(AxesOf(f, what));
      return out;
    }
    return {{AxesOf(s, what)}, false};
  }

  Traced Eval(const relax::Expr& e, const std::string& what) {
    switch (e.kind()) {
      case relax::ExprKind::kVar:
      case relax::ExprKind::kDataflowVar: {
        auto it = vars_.find(e.get());
        if (it == vars_.end()) Refuse(what + " uses an undefined variable");
        return it->second;
      }
      case relax::ExprKind::kConstant:
        return Trace(e.struct_info(), what);
      case relax::ExprKind::kTuple: {
        Traced out{{}, true};
        for (const relax::Expr& f : e.as<relax::TupleNode>()->fields) {
          Traced field = Eval(f, what);
          if (field.tuple) Refuse(what + " nests tuples");
          out.fields.push_back(field.fields.at(0));
        }
        return out;
      }
      case relax::ExprKind::kTupleGetItem: {
        const auto* item = e.as<relax::TupleGetItemNode>();
        Traced t = Eval(item->tuple, what);
        if (!t.tuple || item->index < 0 || static_cast<size_t>(item->index) >= t.fields.size()) {
          Refuse(what + " takes a tuple item out of range");
        }
        return {{t.fields[item->index]}, false};
      }
      case relax::ExprKind::kCall: {
        const auto* call = e.as<relax::CallNode>();
        if (call->op != "call_tir") {
          Refuse(what + " is " + (call->op.empty() ? "a function call" : "op " + call->op));
        }
        return CallTIR(*call, what);
      }
      default:
        Refuse(what + " is a " + std::string(relax::ExprKindName(e.kind())));
    }
  }

  Traced CallTIR(const relax::CallNode& call, const std::string& what) {
    const auto* callee = call.args.at(0).as<relax::GlobalVarNode>();
    const ir::PrimFunc* f = callee ? module_.LookupPrimFunc(callee->name) : nullptr;
    const auto* tuple = call.args.size() >= 2 ? call.args[1].as<relax::TupleNode>() : nullptr;
    if (f == nullptr || tuple == nullptr) Refuse(what + " is a malformed call_tir");
    std::vector<Axes> params;
    for (const relax::Expr& a : tuple->fields) {
      if (const auto* prim = a.as<relax::PrimValueNode>()) {
        if (Mentions(prim->value, dim_)) Refuse(callee->name + " is given the dim as a value");
        params.emplace_back();
        continue;
      }
      Traced t = Eval(a, what);
      if (t.tuple) Refuse(what + " passes a tuple to " + callee->name);
      params.push_back(t.fields.at(0));
    }
    Traced out = Trace(
        call.sinfo_args.size() == 1 ? call.sinfo_args[0] : relax::TupleStructInfo(call.sinfo_args),
        what);
    for (const Axes& o : out.fields) params.push_back(o);
    if (call.args.size() >= 3) {
      const auto* shape = call.args[2].as<relax::ShapeExprNode>();
      if (shape == nullptr) Refuse(what + " passes tir_vars that are not a shape");
      for (const relax::PrimExpr& v : shape->values) {
        if (Mentions(v, dim_)) Refuse(callee->name + " is given the dim as a value");
      }
    }
    KernelCheck(*f, callee->name).Run(params);
    return out;
  }

  const relax::IRModule& module_;
  std::string dim_;
  std::map<const relax::ExprNode*, Traced> vars_;
};

}  // namespace

PaddingAnalysis AnalyzePadding(const relax::IRModule& module, const std::string& entry) {
  PaddingAnalysis out;
  const relax::Function* f = module.LookupFunction(entry);
  if (f == nullptr) return out;
  std::vector<std::string> dims;
  std::set<std::string> seen;
  for (const relax::Var& p : (*f)->params) {
    const auto* t = p.struct_info().as<relax::TensorStructInfoNode>();
    if (t == nullptr || !t->shape) continue;
    for (const relax::PrimExpr& d : *t->shape) {
      ir::ForEachVar(d, [&](const ir::Var& v) {
        if (seen.insert(v.name()).second) dims.push_back(v.name());
      });
    }
  }
  for (const std::string& dim : dims) {
    try {
      DimTrace(module, dim).Run(*f);
      out.paddable.push_back(dim);
    } catch (const NotPaddable& e) {
      out.why_not[dim] = e.why;
    } catch (const Error& e) {
      out.why_not[dim] = e.what();
    }
  }
  return out;
}

}  // namespace kiln::compiler
