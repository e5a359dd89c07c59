// Matching a call_tir against its PrimFunc's signature.
#include "ir/relax/transform/call_tir_mapping.h"

#include <unordered_set>

#include "ir/arith/analyzer.h"
#include "ir/functor.h"
#include "ir/relax/struct_info_util.h"

namespace kiln::ir::relax::transform {

namespace {

// Uses and definitions of variables, with the shapes of allocated buffers counted as uses.
class FreeVarCollector : public IRVisitor {
 public:
  using IRVisitor::VisitExpr_;
  using IRVisitor::VisitStmt_;
  void VisitExpr_(const ir::VarNode* op) override {
    if (defined_.count(op) == 0 && seen_.insert(op).second) free.push_back(op);
  }
  void VisitExpr_(const ir::LetNode* op) override {
    defined_.insert(op->var.get());
    IRVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const ir::ForNode* op) override {
    defined_.insert(op->loop_var.get());
    IRVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::LetStmtNode* op) override {
    defined_.insert(op->var.get());
    IRVisitor::VisitStmt_(op);
  }
  void VisitStmt_(const ir::BlockNode* op) override {
    for (const IterVar& iv : op->iter_vars) defined_.insert(iv.var.get());
    for (const ir::Buffer& b : op->alloc_buffers) {
      for (const PrimExpr& d : b->shape) VisitExpr(d);
    }
    IRVisitor::VisitStmt_(op);
  }
  void Define(const ir::VarNode* v) { defined_.insert(v); }
  std::vector<const ir::VarNode*> free;

 private:
  std::unordered_set<const ir::VarNode*> defined_, seen_;
};

// `value` (an int64 caller dim) as a value of `dtype`.
PrimExpr AsDType(const PrimExpr& value, DataType dtype) {
  if (value.dtype() == dtype) return value;
  return arith::ConstantFold(ir::Cast(dtype, value));
}

class Matcher {
 public:
  Matcher(const IRModule& module, const CallNode& call) : module_(module), call_(call) {}

  std::optional<CallTIRMapping> Run(std::string* why) {
    try {
      Match();
      return std::move(m_);
    } catch (const Error& e) {
      if (why != nullptr) *why = e.what();
      return std::nullopt;
    }
  }

 private:
  [[noreturn]] void Fail(const std::string& message) const {
    throw Error(ErrorKind::kUnsupported, "call_tir of " + m_.func_name + ": " + message);
  }

  void Match() {
    m_.func_name = call_.args[0].as<GlobalVarNode>()->name;
    const ir::PrimFunc* f = module_.LookupPrimFunc(m_.func_name);
    if (f == nullptr) Fail("no such PrimFunc in the module");
    m_.func = *f;
    if (RootBlock(m_.func) == nullptr) Fail("the function is not in root-block form");
    m_.inputs = call_.args[1].as<TupleNode>() != nullptr ? call_.args[1].as<TupleNode>()->fields
                                                         : std::vector<Expr>{};
    if (call_.args[1].as<TupleNode>() == nullptr) Fail("the arguments are not a tuple literal");
    m_.outputs = call_.sinfo_args;
    if (call_.args.size() == 3) {
      const auto* shape = call_.args[2].struct_info().as<ShapeStructInfoNode>();
      if (shape == nullptr || !shape->values) Fail("the shape argument has unknown values");
      m_.tir_values = *shape->values;
    }
    const auto& params = m_.func->params;
    size_t expected = m_.inputs.size() + m_.outputs.size() + m_.tir_values.size();
    if (params.size() != expected) {
      Fail("the function takes " + std::to_string(params.size()) + " parameters, the call passes " +
           std::to_string(expected));
    }
    // Scalars first: a shape variable that is also a scalar parameter takes the passed value.
    for (size_t i = 0; i < params.size(); ++i) {
      if (m_.func->BufferOf(params[i])) continue;
      MatchScalar(i, params[i]);
    }
    for (size_t i = 0; i < params.size(); ++i) {
      std::optional<ir::Buffer> buffer = m_.func->BufferOf(params[i]);
      if (!buffer) continue;
      bool is_output = i >= m_.inputs.size();
      if (is_output && i >= m_.inputs.size() + m_.outputs.size()) {
        Fail("parameter " + params[i].name() + " takes a shape value but is a buffer");
      }
      size_t index = is_output ? i - m_.inputs.size() : i;
      const StructInfo& sinfo = is_output ? m_.outputs[index] : m_.inputs[index].struct_info();
      BindBuffer(*buffer, sinfo);
      m_.buffers.push_back({*buffer, is_output, index});
    }
    for (const CallTIRMapping::BufferParam& p : m_.buffers) {
      const StructInfo& sinfo =
          p.is_output ? m_.outputs[p.index] : m_.inputs[p.index].struct_info();
      CheckDims(p.buffer, *sinfo.as<TensorStructInfoNode>()->shape);
    }
    for (const PrimVar& v : UndefinedVars(m_.func)) {
      if (m_.vars.count(v.get()) == 0 && m_.scalar_args.count(v.get()) == 0) {
        Fail("variable " + v.name() + " is neither a parameter nor a dim of a buffer parameter");
      }
    }
  }

  void MatchScalar(size_t i, const ir::Var& param) {
    DataType t = param.dtype();
    if (!t.is_scalar() || !(t.is_int() || t.is_uint() || t.is_float() || t.is_bool())) {
      Fail("parameter " + param.name() + " of dtype " + t.ToString() + " has no buffer");
    }
    if (i >= m_.inputs.size() + m_.outputs.size()) {
      if (!t.is_int())
        Fail("parameter " + param.name() + " takes a shape value but is " + t.ToString());
      m_.vars[param.get()] = AsDType(m_.tir_values[i - m_.inputs.size() - m_.outputs.size()], t);
      return;
    }
    if (i >= m_.inputs.size()) Fail("parameter " + param.name() + " is an output but a scalar");
    const Expr& arg = m_.inputs[i];
    const auto* p = arg.struct_info().as<PrimStructInfoNode>();
    if (p == nullptr || p->dtype != t) {
      Fail("parameter " + param.name() + " is " + t.ToString() + ", the argument is " +
           arg.struct_info().ToString());
    }
    if (const auto* pv = arg.as<PrimValueNode>()) {
      m_.vars[param.get()] = AsDType(pv->value, t);
    } else if (p->value.defined()) {
      m_.vars[param.get()] = AsDType(p->value, t);
    } else if (arg.as<VarNode>() != nullptr) {
      m_.scalar_args[param.get()] = Var(arg.ptr());
    } else {
      Fail("the scalar argument for " + param.name() + " is neither a variable nor a value");
    }
  }

  void BindBuffer(const ir::Buffer& buffer, const StructInfo& sinfo) {
    const BufferNode& b = *buffer.get();
    const auto* t = sinfo.as<TensorStructInfoNode>();
    if (t == nullptr || !t->shape || t->unknown_dtype()) {
      Fail("buffer " + b.name + " is passed " + sinfo.ToString() + ", not a tensor of known shape");
    }
    if (t->dtype != b.dtype || t->shape->size() != b.shape.size()) {
      Fail("buffer " + b.name + " is " + b.dtype.ToString() + " of rank " +
           std::to_string(b.shape.size()) + ", the call passes " + sinfo.ToString());
    }
    bool offset = b.elem_offset.defined() && !IsConstInt(b.elem_offset, 0);
    if (!b.strides.empty() || offset || b.scope != "global") {
      Fail("buffer " + b.name + " is strided, offset or not in global memory");
    }
    for (size_t d = 0; d < b.shape.size(); ++d) {
      const auto* v = b.shape[d].as<ir::VarNode>();
      if (v != nullptr && m_.vars.count(v) == 0 && m_.scalar_args.count(v) == 0) {
        m_.vars[v] = AsDType((*t->shape)[d], v->dtype);
      }
    }
  }

  void CheckDims(const ir::Buffer& buffer, const std::vector<PrimExpr>& dims) {
    DimBindings bindings;
    for (const auto& [var, value] : m_.vars) {
      bindings.pairs.emplace_back(GetRef<PrimVar>(var), ToDim(value));
    }
    for (size_t d = 0; d < dims.size(); ++d) {
      PrimExpr mine = SubstituteDim(ToDim(buffer->shape[d]), bindings);
      if (!ProveDimEqual(mine, dims[d])) {
        Fail("dim " + std::to_string(d) + " of buffer " + buffer->name + " is " +
             DimToString(mine) + " in the caller's terms, the call says " + DimToString(dims[d]));
      }
    }
  }

  const IRModule& module_;
  const CallNode& call_;
  CallTIRMapping m_;
};

}  // namespace

const ir::BlockNode* RootBlock(const ir::PrimFunc& func) {
  const auto* realize = func->body.as<ir::BlockRealizeNode>();
  if (realize == nullptr) return nullptr;
  const ir::BlockNode* block = realize->block_node();
  if (block == nullptr || block->name != "root" || !block->iter_vars.empty() ||
      block->init.defined()) {
    return nullptr;
  }
  return block;
}

std::vector<PrimVar> UndefinedVars(const ir::PrimFunc& func) {
  FreeVarCollector collector;
  for (const ir::Var& p : func->params) collector.Define(p.get());
  for (const auto& [param, buffer] : func->buffer_map) {
    for (const PrimExpr& d : buffer->shape) collector.VisitExpr(d);
  }
  collector.VisitStmt(func->body);
  std::vector<PrimVar> out;
  for (const ir::VarNode* v : collector.free) out.push_back(GetRef<PrimVar>(v));
  return out;
}

std::optional<CallTIRMapping> MatchCallTIR(const IRModule& module, const CallNode& call,
                                           std::string* why) {
  KILN_CHECK(call.op == "call_tir", ErrorKind::kInternal, "MatchCallTIR: not a call_tir");
  return Matcher(module, call).Run(why);
}

}  // namespace kiln::ir::relax::transform
