// Merging the PrimFuncs a primitive Relax function calls into one PrimFunc.
#include "ir/relax/transform/merge_prim_funcs.h"

#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/relax/transform/call_tir_mapping.h"
#include "ir/relax/transform/stmt_copier.h"

namespace kiln::ir::relax::transform {

namespace {

// A tensor produced in the group: the result of a call (field -1 for a call with one output).
using Slot = std::pair<const VarNode*, int>;

class Merger {
 public:
  Merger(const IRModule& module, const Function& f, const std::string& name)
      : module_(module), f_(*f.get()), name_(name) {}

  MergedPrimFunc Run() {
    AddParams();
    const auto* seq = f_.body.as<SeqExprNode>();
    if (seq == nullptr) Fail("the body", "is not a sequence of bindings");
    CollectAliases(*seq);
    CollectOutputs(seq->body);
    for (const BindingBlock& block : seq->blocks) {
      for (const Binding& b : block.bindings) {
        try {
          AddBinding(b);
        } catch (const Error& e) {
          Fail("binding " + b.var.name(), e.what());
        }
      }
    }
    return Finish();
  }

 private:
  [[noreturn]] void Fail(const std::string& where, const std::string& message) const {
    throw Error(ErrorKind::kUnsupported, "FuseTIR of " + name_ + ", " + where + ": " + message);
  }

  ir::Buffer NewBuffer(const std::string& hint, const StructInfo& sinfo) {
    const auto* t = sinfo.as<TensorStructInfoNode>();
    KILN_CHECK(t != nullptr && t->shape && !t->unknown_dtype(), ErrorKind::kUnsupported,
               "a tensor of known shape and dtype is needed, got " + sinfo.ToString());
    return ir::DeclBuffer(buffer_names_.Unique(hint), t->dtype, *t->shape);
  }

  void AddParams() {
    for (const Var& p : f_.params) {
      const StructInfo& s = p.struct_info();
      if (const auto* prim = s.as<PrimStructInfoNode>()) {
        ir::Var scalar(p.name(), prim->dtype);
        scalars_[p.get()] = scalar;
        input_params_.push_back(scalar);
        continue;
      }
      if (s.as<TensorStructInfoNode>() == nullptr) {
        Fail("parameter " + p.name(), "must be a tensor or a scalar, got " + s.ToString());
      }
      ir::Buffer buffer;
      try {
        buffer = NewBuffer(p.name(), s);
      } catch (const Error& e) {
        Fail("parameter " + p.name(), e.what());
      }
      ir::Var handle(buffer->name, DataType::Handle());
      input_params_.push_back(handle);
      buffer_map_.emplace_back(handle, buffer);
      tensors_[p.get()] = buffer;
    }
  }

  void CollectAliases(const SeqExprNode& seq) {
    for (const BindingBlock& block : seq.blocks) {
      for (const Binding& b : block.bindings) {
        const auto* g = b.value.as<TupleGetItemNode>();
        if (g == nullptr || b.is_match_cast()) continue;
        const auto* tuple = g->tuple.as<VarNode>();
        if (tuple != nullptr) aliases_[b.var.get()] = Slot{tuple, g->index};
      }
    }
  }

  Slot SlotOf(const VarNode* v) const {
    auto it = aliases_.find(v);
    return it != aliases_.end() ? it->second : Slot{v, -1};
  }

  void CollectOutputs(const Expr& ret) {
    std::vector<Expr> values =
        ret.as<TupleNode>() ? ret.as<TupleNode>()->fields : std::vector<Expr>{ret};
    for (const Expr& v : values) {
      const auto* var = v.as<VarNode>();
      if (var == nullptr) Fail("the returned value", "must be a variable or a tuple of them");
      for (const Var& p : f_.params) {
        if (p.get() == var) Fail("the returned value", "returns parameter " + p.name());
      }
      bool added = output_slots_.emplace(SlotOf(var), outputs_.size()).second;
      if (!added) Fail("the returned value", "returns " + var->name + " twice");
      outputs_.emplace_back();
    }
  }

  ir::Buffer InputBuffer(const Expr& arg) {
    const auto* v = arg.as<VarNode>();
    if (v == nullptr) {
      throw Error(
          ErrorKind::kUnsupported,
          std::string("a call argument must be a variable, got a ") + ExprKindName(arg.kind()));
    }
    auto it = tensors_.find(v);
    if (it == tensors_.end()) {
      throw Error(ErrorKind::kUnsupported, "argument " + v->name + " is not a tensor of the group");
    }
    return it->second;
  }

  void AddBinding(const Binding& b) {
    if (b.is_match_cast()) throw Error(ErrorKind::kUnsupported, "match_cast cannot be merged");
    if (const auto* g = b.value.as<TupleGetItemNode>()) {
      auto it = tuples_.find(g->tuple.as<VarNode>());
      if (it == tuples_.end() || g->index < 0 ||
          static_cast<size_t>(g->index) >= it->second.size()) {
        throw Error(ErrorKind::kUnsupported, "takes a field of a value the group does not make");
      }
      tensors_[b.var.get()] = it->second[g->index];
      return;
    }
    const auto* call = b.value.as<CallNode>();
    if (call == nullptr || call->op != "call_tir") {
      throw Error(ErrorKind::kUnsupported, "only call_tir and TupleGetItem bindings can be merged");
    }
    std::string why;
    std::optional<CallTIRMapping> m = MatchCallTIR(module_, *call, &why);
    if (!m) throw Error(ErrorKind::kUnsupported, why);
    AddCall(b.var, *m);
  }

  void AddCall(const Var& var, const CallTIRMapping& m) {
    // Output buffers of the call: parameters when the group returns them, else allocations.
    std::vector<ir::Buffer> outs(m.outputs.size());
    for (const CallTIRMapping::BufferParam& p : m.buffers) {
      if (!p.is_output) continue;
      Slot slot{var.get(), m.outputs.size() == 1 ? -1 : static_cast<int>(p.index)};
      ir::Buffer buffer = NewBuffer(p.buffer->name, m.outputs[p.index]);
      auto out = output_slots_.find(slot);
      if (out != output_slots_.end()) {
        outputs_[out->second] = buffer;
      } else {
        allocs_.push_back(buffer);
      }
      outs[p.index] = buffer;
    }
    if (m.outputs.size() == 1) {
      tensors_[var.get()] = outs[0];
    } else {
      tuples_[var.get()] = outs;
    }

    StmtCopier::VarMap vars(m.vars.begin(), m.vars.end());
    for (const auto& [param, arg] : m.scalar_args) {
      auto it = scalars_.find(arg.get());
      if (it == scalars_.end()) {
        throw Error(ErrorKind::kUnsupported,
                    "scalar argument " + arg.name() + " is not a parameter of the group");
      }
      vars[param] = it->second;
    }
    StmtCopier::BufferMap buffers;
    for (const CallTIRMapping::BufferParam& p : m.buffers) {
      buffers[p.buffer.get()] = p.is_output ? outs[p.index] : InputBuffer(m.inputs[p.index]);
    }
    StmtCopier copier(std::move(vars), std::move(buffers), &block_names_, &buffer_names_);
    const ir::BlockNode* root = RootBlock(m.func);
    for (const ir::Buffer& b : root->alloc_buffers) allocs_.push_back(copier.Remap(b));
    bodies_.push_back(copier.Copy(root->body));
  }

  MergedPrimFunc Finish() {
    std::vector<ir::Var> params = input_params_;
    for (size_t i = 0; i < outputs_.size(); ++i) {
      if (!outputs_[i].defined()) {
        Fail("the returned value", "field " + std::to_string(i) + " is not made by a call_tir");
      }
      ir::Var handle(outputs_[i]->name, DataType::Handle());
      params.push_back(handle);
      buffer_map_.emplace_back(handle, outputs_[i]);
    }
    auto root = std::make_shared<ir::BlockNode>();
    root->name = "root";
    root->alloc_buffers = allocs_;
    root->body = ir::SeqStmt(bodies_);
    ir::Stmt body = ir::BlockRealize({}, ir::BoolImm(true), ir::Block(std::move(root)));
    Annotations attrs = {{"global_symbol", ir::StringImm(name_)},
                         {"tir.noalias", ir::BoolImm(true)}};
    ir::PrimFunc draft = ir::MakePrimFunc(name_, params, buffer_map_, body, attrs);

    // Shape variables that no buffer parameter has as a whole dim must be passed.
    std::unordered_set<const ir::VarNode*> from_buffers;
    for (const auto& [param, buffer] : buffer_map_) {
      for (const PrimExpr& d : buffer->shape) {
        if (const auto* v = d.as<ir::VarNode>()) from_buffers.insert(v);
      }
    }
    MergedPrimFunc out;
    for (const PrimVar& v : UndefinedVars(draft)) {
      if (from_buffers.count(v.get()) != 0) continue;
      KILN_CHECK(v.dtype().is_int(), ErrorKind::kUnsupported,
                 "FuseTIR of " + name_ + ": variable " + v.name() + " of dtype " +
                     v.dtype().ToString() + " is not defined by the group's signature");
      out.shape_params.push_back(v);
      params.push_back(v);
    }
    out.func = ir::MakePrimFunc(name_, std::move(params), buffer_map_, body, std::move(attrs));
    return out;
  }

  const IRModule& module_;
  const FunctionNode& f_;
  std::string name_;
  NameSet block_names_, buffer_names_;
  std::vector<ir::Var> input_params_;
  std::vector<std::pair<ir::Var, ir::Buffer>> buffer_map_;
  std::unordered_map<const VarNode*, ir::Buffer> tensors_;
  std::unordered_map<const VarNode*, std::vector<ir::Buffer>> tuples_;
  std::unordered_map<const VarNode*, ir::Var> scalars_;
  std::unordered_map<const VarNode*, Slot> aliases_;
  std::map<Slot, size_t> output_slots_;
  std::vector<ir::Buffer> outputs_;
  std::vector<ir::Buffer> allocs_;
  std::vector<ir::Stmt> bodies_;
};

}  // namespace

MergedPrimFunc MergePrimitiveFunction(const IRModule& module, const Function& primitive,
                                      const std::string& name) {
  return Merger(module, primitive, name).Run();
}

}  // namespace kiln::ir::relax::transform
