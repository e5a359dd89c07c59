// FuseOps: the fusion graph of each dataflow block, its partition, and the primitive functions
// made from the groups.
#include "ir/relax/transform/fuse_ops.h"

#include <algorithm>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "ir/relax/block_builder.h"
#include "ir/relax/expr_functor.h"
#include "ir/relax/transform/annotate_op_pattern.h"
#include "ir/relax/transform/call_tir_mapping.h"
#include "ir/relax/transform/graph_partitioner.h"

namespace kiln::ir::relax::transform {

namespace {

// The variables and constants an expression reads, in order (with repeats).
void CollectLeaves(const Expr& e, std::vector<Expr>& out) {
  if (!e.defined()) return;
  switch (e.kind()) {
    case ExprKind::kVar:
    case ExprKind::kDataflowVar:
    case ExprKind::kConstant:
      out.push_back(e);
      return;
    case ExprKind::kTuple:
      for (const Expr& f : e.as<TupleNode>()->fields) CollectLeaves(f, out);
      return;
    case ExprKind::kTupleGetItem:
      CollectLeaves(e.as<TupleGetItemNode>()->tuple, out);
      return;
    case ExprKind::kCall: {
      const auto* c = e.as<CallNode>();
      CollectLeaves(c->callee, out);
      for (const Expr& a : c->args) CollectLeaves(a, out);
      return;
    }
    case ExprKind::kSeqExpr: {
      const auto* s = e.as<SeqExprNode>();
      for (const BindingBlock& b : s->blocks) {
        for (const Binding& x : b.bindings) CollectLeaves(x.value, out);
      }
      CollectLeaves(s->body, out);
      return;
    }
    default:
      return;
  }
}

// Rewrites uses of variables and constants into the parameters of a group's function.
class GroupRemapper : public ExprMutator {
 public:
  void Map(const Expr& from, const Expr& to) {
    if (const auto* v = from.as<VarNode>()) {
      var_remap_[v] = to;
    } else {
      constants_[from.get()] = to;
    }
  }
  using ExprMutator::VisitExpr_;
  Expr VisitExpr_(const ConstantNode* op) override {
    auto it = constants_.find(op);
    return it != constants_.end() ? it->second : ExprMutator::VisitExpr_(op);
  }

 private:
  std::unordered_map<const ExprNode*, Expr> constants_;
};

class BlockFuser {
 public:
  BlockFuser(const IRModule& source, IRModule& out, const FuseOpsOptions& options)
      : source_(source), out_(out), options_(options) {}

  // True after Fuse when it made at least one group.
  bool fused() const { return !group_members_.empty(); }

  BindingBlock Fuse(const BindingBlock& block) {
    const std::vector<Binding>& bindings = block.bindings;
    BuildGraph(bindings);
    std::vector<int> roots = PartitionGraph(graph_, options_.max_fuse_depth);

    // Groups by root, members in binding order.
    std::map<int, std::vector<size_t>> by_root;
    for (size_t i = 0; i < bindings.size(); ++i) by_root[roots[binding_node_[i]]].push_back(i);
    std::vector<std::vector<size_t>> groups;
    for (auto& [root, members] : by_root) {
      EjectExternalTupleGets(bindings, members);
      groups.push_back(std::move(members));
    }
    AttachTupleGets(bindings, groups);
    std::vector<int> group_of(bindings.size(), -1);
    int next_group = 0;
    for (const std::vector<size_t>& members : groups) {
      if (members.size() < 2 || !EmitPositionValid(bindings, members)) continue;
      for (size_t m : members) group_of[m] = next_group;
      group_members_.push_back(members);
      ++next_group;
    }
    if (group_members_.empty()) return block;

    BindingBlock result{{}, block.is_dataflow};
    for (size_t i = 0; i < bindings.size(); ++i) {
      int g = group_of[i];
      if (g < 0) {
        result.bindings.push_back(bindings[i]);
      } else if (group_members_[g].back() == i) {
        EmitGroup(bindings, group_members_[g], result.bindings);
      }
    }
    return result;
  }

 private:
  // ---- The fusion graph -----------------------------------------------------------------

  OpPattern PatternOf(const Binding& b) {
    if (b.is_match_cast()) return OpPattern::kOpaque;
    if (const auto* call = b.value.as<CallNode>(); call != nullptr && call->op == "call_tir") {
      // tir_vars held in a variable would have to become a parameter of the group.
      bool literal_tir_vars = call->args.size() < 3 || call->args[2].as<ShapeExprNode>();
      if (!literal_tir_vars || !MatchCallTIR(source_, *call, nullptr)) return OpPattern::kOpaque;
      const ir::PrimFunc* f = source_.LookupPrimFunc(call->args[0].as<GlobalVarNode>()->name);
      return GetOpPattern(*f).value_or(OpPattern::kOpaque);
    }
    // A projection is injective, whatever made the tuple (as in TVM); one whose tuple ends up
    // outside its group leaves the group again (EjectExternalTupleGets).
    if (b.value.as<TupleGetItemNode>() != nullptr) return OpPattern::kInjective;
    return OpPattern::kOpaque;
  }

  // The inputs an edge is drawn from: call_tir arguments, the tuple of a TupleGetItem, or every
  // variable and constant an opaque value reads.
  std::vector<Expr> InputsOf(const Binding& b) {
    std::vector<Expr> leaves;
    const auto* call = b.value.as<CallNode>();
    if (!b.is_match_cast() && call != nullptr && call->op == "call_tir") {
      CollectLeaves(call->args[1], leaves);
    } else {
      CollectLeaves(b.value, leaves);
    }
    return leaves;
  }

  int LeafNode(const Expr& leaf) {
    auto it = leaf_node_.find(leaf.get());
    if (it != leaf_node_.end()) return it->second;
    if (const auto* v = leaf.as<VarNode>()) {
      auto d = defined_here_.find(v);
      if (d != defined_here_.end()) return binding_node_[d->second];
    }
    // A parameter, a value of an earlier block or a constant: never fused.
    int node = graph_.AddNode(OpPattern::kOpaque, leaf.as<VarNode>() != nullptr);
    leaf_node_[leaf.get()] = node;
    return node;
  }

  void BuildGraph(const std::vector<Binding>& bindings) {
    binding_node_.assign(bindings.size(), -1);
    for (size_t i = 0; i < bindings.size(); ++i) {
      const Binding& b = bindings[i];
      std::vector<int> inputs;
      for (const Expr& leaf : InputsOf(b)) inputs.push_back(LeafNode(leaf));
      OpPattern pattern = PatternOf(b);
      int node = graph_.AddNode(pattern, !b.var.is_dataflow());
      binding_node_[i] = node;
      defined_here_[b.var.get()] = i;
      for (int in : inputs) graph_.AddEdge(in, node, pattern);
      uses_.push_back(InputsOf(b));
    }
  }

  // ---- Groups ------------------------------------------------------------------------------

  bool DefinedBy(const Expr& e, const std::vector<size_t>& members,
                 const std::vector<Binding>& bindings) const {
    const auto* v = e.as<VarNode>();
    if (v == nullptr) return false;
    for (size_t m : members) {
      if (bindings[m].var.get() == v) return true;
    }
    return false;
  }

  // A TupleGetItem whose tuple comes from outside the group would make the group take a tuple;
  // it stays out.
  void EjectExternalTupleGets(const std::vector<Binding>& bindings, std::vector<size_t>& members) {
    std::vector<size_t> kept;
    for (size_t m : members) {
      const auto* g = bindings[m].value.as<TupleGetItemNode>();
      if (g != nullptr && !DefinedBy(g->tuple, members, bindings)) continue;
      kept.push_back(m);
    }
    members = std::move(kept);
  }

  // A projection that fused with nothing joins the group of the call_tir whose tuple it reads,
  // when that group fuses several bindings and can still be emitted at its last member: the
  // field then leaves the group as a result of its own instead of the whole tuple.
  void AttachTupleGets(const std::vector<Binding>& bindings,
                       std::vector<std::vector<size_t>>& groups) {
    std::vector<int> group_of(bindings.size(), -1);  // ejected projections are in none
    for (size_t g = 0; g < groups.size(); ++g) {
      for (size_t m : groups[g]) group_of[m] = static_cast<int>(g);
    }
    for (size_t i = 0; i < bindings.size(); ++i) {
      const auto* item = bindings[i].value.as<TupleGetItemNode>();
      if (item == nullptr || bindings[i].is_match_cast()) continue;
      auto producer = defined_here_.find(item->tuple.as<VarNode>());
      if (producer == defined_here_.end()) continue;
      int own = group_of[i];
      if (own >= 0 && groups[own].size() > 1) continue;
      int target = group_of[producer->second];
      if (target < 0 || groups[target].size() < 2) continue;
      std::vector<size_t> joined = groups[target];
      joined.insert(std::upper_bound(joined.begin(), joined.end(), i), i);
      if (!EmitPositionValid(bindings, joined)) continue;
      groups[target] = std::move(joined);
      group_of[i] = target;
      if (own >= 0) groups[own].clear();
    }
  }

  bool IsOutput(size_t m, const std::vector<size_t>& members,
                const std::vector<Binding>& bindings) const {
    if (!bindings[m].var.is_dataflow()) return true;
    const VarNode* v = bindings[m].var.get();
    for (size_t j = 0; j < bindings.size(); ++j) {
      if (std::find(members.begin(), members.end(), j) != members.end()) continue;
      for (const Expr& u : uses_[j]) {
        if (u.get() == v) return true;
      }
    }
    return false;
  }

  // The group is emitted where its last member was; no value it makes may be used before.
  bool EmitPositionValid(const std::vector<Binding>& bindings,
                         const std::vector<size_t>& members) const {
    size_t last = members.back();
    for (size_t j = 0; j < last; ++j) {
      if (std::find(members.begin(), members.end(), j) != members.end()) continue;
      for (const Expr& u : uses_[j]) {
        if (DefinedBy(u, members, bindings)) return false;
      }
    }
    return true;
  }

  void EmitGroup(const std::vector<Binding>& bindings, const std::vector<size_t>& members,
                 std::vector<Binding>& out) {
    // Inputs in order of first use, deduplicated.
    std::vector<Expr> inputs;
    std::unordered_set<const ExprNode*> seen;
    std::string name = "fused";
    for (size_t m : members) {
      for (const Expr& leaf : uses_[m]) {
        if (DefinedBy(leaf, members, bindings) || !seen.insert(leaf.get()).second) continue;
        inputs.push_back(leaf);
      }
      const auto* call = bindings[m].value.as<CallNode>();
      if (call != nullptr && call->op == "call_tir") {
        name += "_" + call->args[0].as<GlobalVarNode>()->name;
      }
    }
    GroupRemapper remap;
    std::vector<Var> params;
    int constant_count = 0;
    for (const Expr& in : inputs) {
      std::string pname =
          in.as<VarNode>() ? in.as<VarNode>()->name : "param_" + std::to_string(constant_count++);
      Var p(pname, in.struct_info());
      params.push_back(p);
      remap.Map(in, p);
    }
    // What the group returns: each value used after it, a tuple (the result of a call_tir with
    // several outputs) field by field. A slot names one tensor the group makes: (binding, -1)
    // for a whole result, (binding, i) for field i of a tuple result, however it is reached.
    using Slot = std::pair<size_t, int>;
    auto slot_of = [&](size_t m) -> Slot {
      if (const auto* g = bindings[m].value.as<TupleGetItemNode>()) {
        return {defined_here_.at(g->tuple.as<VarNode>()), g->index};
      }
      return {m, -1};
    };
    struct Output {
      Var var;                    // the original variable
      std::vector<size_t> slots;  // indices into `slots`: one, or one per tuple field
      bool tuple = false;
    };
    std::vector<Output> outputs;
    std::vector<Slot> slots;
    auto slot_index = [&](Slot slot) {
      auto it = std::find(slots.begin(), slots.end(), slot);
      if (it != slots.end()) return static_cast<size_t>(it - slots.begin());
      slots.push_back(slot);
      return slots.size() - 1;
    };
    for (size_t m : members) {
      if (!IsOutput(m, members, bindings)) continue;
      Output o{bindings[m].var, {}, false};
      if (const auto* t = bindings[m].var.struct_info().as<TupleStructInfoNode>()) {
        o.tuple = true;
        for (size_t i = 0; i < t->fields.size(); ++i) {
          o.slots.push_back(slot_index({m, static_cast<int>(i)}));
        }
      } else {
        o.slots.push_back(slot_index(slot_of(m)));
      }
      outputs.push_back(std::move(o));
    }
    // Nothing after the group reads what it makes (a zero-size branch whose only reader folded
    // to a constant): it is dead, and a function of no results is no kernel.
    if (outputs.empty()) return;
    // The members in order; a returned slot is bound to a Var (a DataflowVar cannot leave the
    // function's block), by its member or by a projection added after the tuple's call.
    BindingBlock body{{}, true};
    std::vector<Expr> returned(slots.size());
    for (size_t m : members) {
      const Binding& b = bindings[m];
      Expr value = remap.VisitExpr(b.value);
      Slot own = slot_of(m);
      auto found = std::find(slots.begin(), slots.end(), own);
      bool is_returned = found != slots.end() && !returned[found - slots.begin()].defined();
      Var v = is_returned ? Var(b.var.name(), value.struct_info())
                          : DataflowVar(b.var.name(), value.struct_info());
      body.bindings.push_back(VarBinding(v, value));
      remap.Map(b.var, v);
      if (is_returned) returned[found - slots.begin()] = v;
    }
    for (size_t k = 0; k < slots.size(); ++k) {
      if (returned[k].defined()) continue;
      const auto& [m, field] = slots[k];
      Expr item = TupleGetItem(remap.VisitExpr(bindings[m].var), field);
      Var v(bindings[m].var.name() + "_" + std::to_string(field), item.struct_info());
      body.bindings.push_back(VarBinding(v, item));
      returned[k] = v;
    }
    Expr ret = returned.size() == 1 ? returned[0] : Tuple(returned);
    Attrs attrs;
    attrs.Set(kPrimitiveAttr, int64_t{1});
    Function func = MakeFunction(params, SeqExpr({body}, ret), StructInfo(), attrs);
    GlobalVar gvar = out_.Add(out_.UniqueName(name), func);
    Expr call = CallFunction(gvar, inputs);
    if (returned.size() == 1 && outputs.size() == 1 && !outputs[0].tuple) {
      out.push_back(VarBinding(outputs[0].var, call));
      return;
    }
    Var result = DataflowVar(gvar.name(), call.struct_info());
    out.push_back(VarBinding(result, call));
    auto field = [&](size_t k) -> Expr {
      return returned.size() == 1 ? Expr(result) : TupleGetItem(result, static_cast<int>(k));
    };
    for (const Output& o : outputs) {
      if (!o.tuple) {
        out.push_back(VarBinding(o.var, field(o.slots[0])));
        continue;
      }
      // The tuple is rebuilt from its fields for the readers outside the group.
      std::vector<Expr> items;
      for (size_t k : o.slots) {
        Expr item = field(k);
        if (!IsLeaf(item)) {
          Var v =
              DataflowVar(o.var.name() + "_" + std::to_string(items.size()), item.struct_info());
          out.push_back(VarBinding(v, item));
          item = v;
        }
        items.push_back(item);
      }
      out.push_back(VarBinding(o.var, Tuple(std::move(items))));
    }
  }

  const IRModule& source_;
  IRModule& out_;
  const FuseOpsOptions& options_;
  FusionGraph graph_;
  std::vector<int> binding_node_;
  std::unordered_map<const VarNode*, size_t> defined_here_;
  std::unordered_map<const ExprNode*, int> leaf_node_;
  std::vector<std::vector<Expr>> uses_;
  std::vector<std::vector<size_t>> group_members_;
};

}  // namespace

bool IsPrimitiveFunction(const Function& func) {
  const AttrValue* v = func->attrs.Find(kPrimitiveAttr);
  if (v == nullptr) return false;
  if (const auto* i = std::get_if<int64_t>(v)) return *i != 0;
  if (const auto* b = std::get_if<bool>(v)) return *b;
  return false;
}

IRModule FuseOps(const IRModule& module, const FuseOpsOptions& options) {
  KILN_CHECK(
      options.max_fuse_depth >= 1, ErrorKind::kInvalidIR,
      "FuseOps: max_fuse_depth must be at least 1, got " + std::to_string(options.max_fuse_depth));
  IRModule out = module;
  for (const std::string& name : module.names()) {
    const Function* f = module.LookupFunction(name);
    if (f == nullptr || IsPrimitiveFunction(*f)) continue;
    const auto* seq = (*f)->body.as<SeqExprNode>();
    if (seq == nullptr) continue;
    bool changed = false;
    std::vector<BindingBlock> blocks;
    for (const BindingBlock& block : seq->blocks) {
      if (!block.is_dataflow) {
        blocks.push_back(block);
        continue;
      }
      BlockFuser fuser(module, out, options);
      blocks.push_back(fuser.Fuse(block));
      changed |= fuser.fused();
    }
    if (!changed) continue;
    out.Update(name, MakeFunction((*f)->params, SeqExpr(std::move(blocks), seq->body),
                                  (*f)->ret_struct_info, (*f)->attrs));
  }
  return out;
}

}  // namespace kiln::ir::relax::transform
