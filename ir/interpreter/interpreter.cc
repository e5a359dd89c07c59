// The reference interpreter: walks a PrimFunc's statements, evaluating expressions one lane at
// a time. Variables and buffers are resolved through maps keyed by node pointer; buffer
// shapes and strides are evaluated to numbers when a buffer comes into scope.
#include "ir/interpreter/interpreter.h"

#include <unordered_map>

#include "ir/functor.h"
#include "ir/interpreter/memory.h"
#include "ir/interpreter/scalar_ops.h"
#include "ir/op.h"

namespace kiln::ir {
namespace {

using interp::BufferView;
using interp::Intrinsic;
using interp::Scalar;

// The value bound to a variable: one scalar, or one per lane for a vector variable.
struct Slot {
  bool bound = false;
  Scalar scalar;
  std::vector<Scalar> lanes;
};

struct Storage {
  HostTensor tensor;
  uint64_t id = 0;  // distinguishes successive allocations of the same data Var
};

// A view of a buffer that is used without being declared, reached through its data Var.
struct ImplicitView {
  BufferView view;
  uint64_t storage_id = 0;
};

// Resolves every intrinsic call before running, so that an unknown or misused intrinsic is an
// error even on a path the inputs never take.
class CallResolver : public IRVisitor {
 public:
  explicit CallResolver(std::unordered_map<const CallNode*, Intrinsic>& out) : out_(out) {}
  void VisitExpr_(const CallNode* op) override {
    if (op->op == kIfThenElse) {
      CheckIfThenElse(op);
    } else {
      out_[op] = Resolve(op);
    }
    IRVisitor::VisitExpr_(op);
  }
  static void CheckIfThenElse(const CallNode* op) {
    if (op->args.size() != 3) {
      throw Error(ErrorKind::kInvalidIR,
                  "if_then_else takes 3 arguments, got " + std::to_string(op->args.size()));
    }
    Expr checked = IfThenElseCall(op->args[0], op->args[1], op->args[2]);
    if (checked.dtype() != op->dtype) {
      throw Error(ErrorKind::kType, "if_then_else of " + checked.dtype().ToString() +
                                        " branches has dtype " + op->dtype.ToString());
    }
  }
  static Intrinsic Resolve(const CallNode* op) {
    Intrinsic intrinsic = interp::ResolveIntrinsic(op->op);
    auto info = LookupIntrinsic(op->op);
    if (!info.has_value()) {
      throw Error(ErrorKind::kInternal, "intrinsic " + op->op + " is not in ir/op.h");
    }
    if (static_cast<size_t>(info->num_args) != op->args.size()) {
      throw Error(ErrorKind::kInvalidIR, "intrinsic " + op->op + " takes " +
                                             std::to_string(info->num_args) + " arguments, got " +
                                             std::to_string(op->args.size()));
    }
    DataType arg_t = op->args[0].dtype();
    if (info->float_only && !arg_t.is_float()) {
      throw Error(ErrorKind::kType,
                  "intrinsic " + op->op + " needs float arguments, got " + arg_t.ToString());
    }
    for (const Expr& arg : op->args) {
      if (arg.dtype() != arg_t) {
        throw Error(ErrorKind::kType, "intrinsic " + op->op + ": arguments of different dtypes");
      }
    }
    return intrinsic;
  }

 private:
  std::unordered_map<const CallNode*, Intrinsic>& out_;
};

class Interpreter {
 public:
  explicit Interpreter(const PrimFunc& f) : f_(f) {}

  void Run(const std::vector<ArgValue>& args) {
    try {
      CallResolver(intrinsics_).VisitStmt(f_->body);
      BindParams(args);
      Exec(f_->body);
    } catch (const Error& e) {
      std::string where = "interpreting " + f_->name;
      if (block_ != nullptr) where += " (block " + *block_ + ")";
      throw Error(e.kind(), where + ": " + e.what());
    }
  }

 private:
  // ---- Parameters ----------------------------------------------------------------------

  void BindParams(const std::vector<ArgValue>& args) {
    const auto& params = f_->params;
    if (args.size() != params.size()) {
      std::string names;
      for (const Var& p : params) names += (names.empty() ? "" : ", ") + p.name();
      throw Error(ErrorKind::kRuntime, "expects " + std::to_string(params.size()) + " arguments (" +
                                           names + ") but got " + std::to_string(args.size()));
    }
    std::vector<std::pair<const BufferNode*, const HostTensor*>> buffers;
    for (size_t i = 0; i < params.size(); ++i) {
      const Var& param = params[i];
      std::optional<Buffer> buffer = f_->BufferOf(param);
      if (!buffer) {
        BindScalarParam(param, args[i]);
        continue;
      }
      const auto* tensor = std::get_if<HostTensor>(&args[i]);
      const BufferNode* b = buffer->get();
      if (tensor == nullptr) {
        throw Error(ErrorKind::kRuntime, "parameter " + b->name + " is a buffer but argument " +
                                             std::to_string(i) + " is a scalar");
      }
      if (tensor->dtype() != b->dtype) {
        throw Error(ErrorKind::kRuntime, "parameter " + b->name + " holds " + b->dtype.ToString() +
                                             " but its tensor is " + tensor->Describe());
      }
      if (!(tensor->shape().size() == b->shape.size() || !b->strides.empty())) {
        throw Error(ErrorKind::kRuntime, "parameter " + b->name + " has " +
                                             std::to_string(b->shape.size()) +
                                             " dimensions but its tensor is " + tensor->Describe());
      }
      buffers.emplace_back(b, tensor);
    }
    // Symbolic dims are bound by the first tensor that has them; every use is then checked.
    std::unordered_map<const VarNode*, std::string> bound_by;
    for (auto [b, tensor] : buffers) {
      if (tensor->shape().size() != b->shape.size()) continue;
      for (size_t d = 0; d < b->shape.size(); ++d) {
        const auto* var = b->shape[d].as<VarNode>();
        if (var == nullptr || vars_[var].bound) continue;
        BindScalar(var, Scalar::Int(interp::WrapInt(tensor->shape()[d], var->dtype)));
        bound_by[var] = "parameter " + b->name + " dimension " + std::to_string(d);
      }
    }
    for (auto [b, tensor] : buffers) {
      if (!b->strides.empty()) continue;  // a strided buffer views its tensor's storage
      for (size_t d = 0; d < b->shape.size(); ++d) {
        int64_t want = DimOf(b, d);
        int64_t have = tensor->shape()[d];
        if (want == have) continue;
        std::string what = "parameter " + b->name + " dimension " + std::to_string(d) +
                           ": the tensor has " + std::to_string(have) + " but ";
        if (const auto* var = b->shape[d].as<VarNode>()) {
          auto it = bound_by.find(var);
          what += var->name + " = " + std::to_string(want) + " (from " +
                  (it != bound_by.end() ? it->second : "its scalar parameter") + ")";
        } else {
          what += "the buffer's shape says " + std::to_string(want);
        }
        throw Error(ErrorKind::kRuntime, what);
      }
    }
    for (auto [b, tensor] : buffers) {
      BindOffsetAndStrides(b, tensor->shape());
      storage_[b->data.get()] = Storage{*tensor, next_storage_id_++};
      views_[b] = MakeView(b, *tensor);
    }
  }

  // Dimension `d` of parameter `b`, which must be computable from the dims bound so far (only
  // a dimension that is a plain Var can be bound from a tensor).
  int64_t DimOf(const BufferNode* b, size_t d) {
    try {
      return EvalInt(b->shape[d], "shape");
    } catch (const Error& e) {
      throw Error(e.kind(), "parameter " + b->name + " dimension " + std::to_string(d) +
                                " cannot be computed from the tensors' shapes: " + e.what());
    }
  }

  void BindScalarParam(const Var& param, const ArgValue& arg) {
    DataType t = param->dtype;
    if (!(t.is_scalar() && (t.is_integral() || t.is_float()))) {
      throw Error(ErrorKind::kUnsupported,
                  "parameter " + param.name() + " of dtype " + t.ToString() + " has no buffer");
    }
    if (std::holds_alternative<HostTensor>(arg)) {
      throw Error(ErrorKind::kRuntime, "parameter " + param.name() + " is a scalar " +
                                           t.ToString() + " but its argument is a tensor");
    }
    if (t.is_float()) {
      double v = std::holds_alternative<double>(arg) ? std::get<double>(arg)
                                                     : static_cast<double>(std::get<int64_t>(arg));
      BindScalar(param.get(), Scalar::Float(interp::RoundFloat(v, t)));
      return;
    }
    if (!std::holds_alternative<int64_t>(arg)) {
      throw Error(ErrorKind::kRuntime, "parameter " + param.name() + " is " + t.ToString() +
                                           " but its argument is a float");
    }
    int64_t v = std::get<int64_t>(arg);
    if (interp::WrapInt(v, t) != v) {
      throw Error(ErrorKind::kRuntime, "parameter " + param.name() + ": " + std::to_string(v) +
                                           " does not fit in " + t.ToString());
    }
    BindScalar(param.get(), Scalar::Int(v));
  }

  // Unbound offset and stride Vars of a parameter describe a compact tensor.
  void BindOffsetAndStrides(const BufferNode* b, const std::vector<int64_t>& tensor_shape) {
    if (const auto* var = b->elem_offset.as<VarNode>(); var && !vars_[var].bound) {
      BindScalar(var, Scalar::Int(0));
    }
    int64_t stride = 1;
    for (size_t d = b->strides.size(); d-- > 0;) {
      if (const auto* var = b->strides[d].as<VarNode>(); var && !vars_[var].bound) {
        BindScalar(var, Scalar::Int(interp::WrapInt(stride, var->dtype)));
      }
      if (d < tensor_shape.size()) stride *= tensor_shape[d];
    }
  }

  // ---- Buffers and storage ---------------------------------------------------------------

  BufferView MakeView(const BufferNode* b, const HostTensor& storage) {
    std::vector<int64_t> shape, strides;
    for (const Expr& e : b->shape) shape.push_back(EvalInt(e, "shape"));
    for (const Expr& e : b->strides) strides.push_back(EvalInt(e, "stride"));
    int64_t offset = b->elem_offset.defined() ? EvalInt(b->elem_offset, "elem_offset") : 0;
    return interp::MakeView(b, storage, std::move(shape), std::move(strides), offset);
  }

  const BufferView& View(const BufferNode* b) {
    if (auto it = views_.find(b); it != views_.end()) return it->second;
    auto s = storage_.find(b->data.get());
    if (s == storage_.end()) {
      throw Error(ErrorKind::kInvalidIR,
                  "buffer " + b->name + " is used where it is neither allocated nor declared");
    }
    ImplicitView& iv = implicit_views_[b];
    if (iv.view.buffer == nullptr || iv.storage_id != s->second.id) {
      iv.view = MakeView(b, s->second.tensor);
      iv.storage_id = s->second.id;
    }
    return iv.view;
  }

  // Allocates `b` (its data Var and the buffer itself) until the matching Release.
  struct Saved {
    const BufferNode* buffer;
    std::optional<Storage> storage;
    std::optional<BufferView> view;
  };
  Saved Allocate(const BufferNode* b) {
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (size_t d = 0; d < b->shape.size(); ++d) {
      shape.push_back(EvalInt(b->shape[d], "shape"));
      if (shape.back() < 0) {
        throw Error(ErrorKind::kRuntime, "allocation of " + b->name + ": dimension " +
                                             std::to_string(d) + " is " +
                                             std::to_string(shape.back()));
      }
      count *= shape.back();
    }
    // Explicit strides (storage_align pads rows) span more than the product of the shape.
    if (!b->strides.empty() && count > 0) {
      count = 1;
      for (size_t d = 0; d < b->strides.size() && d < shape.size(); ++d) {
        count += (shape[d] - 1) * EvalInt(b->strides[d], "stride");
      }
    }
    Saved saved = Save(b);
    HostTensor t = interp::AllocatePoisoned(b->dtype, count);
    storage_[b->data.get()] = Storage{t, next_storage_id_++};
    views_[b] = MakeView(b, t);
    return saved;
  }
  Saved Declare(const BufferNode* b) {
    auto s = storage_.find(b->data.get());
    if (s == storage_.end()) {
      throw Error(ErrorKind::kInvalidIR, "buffer " + b->name + " is declared over data " +
                                             b->data.name() + ", which is not allocated");
    }
    BufferView view = MakeView(b, s->second.tensor);
    Saved saved = Save(b);
    saved.storage.reset();  // a declaration leaves the storage alone
    views_[b] = std::move(view);
    return saved;
  }
  Saved Save(const BufferNode* b) {
    Saved saved{b, std::nullopt, std::nullopt};
    if (auto it = storage_.find(b->data.get()); it != storage_.end()) saved.storage = it->second;
    if (auto it = views_.find(b); it != views_.end()) saved.view = it->second;
    return saved;
  }
  void Release(Saved& saved, bool restore_storage) {
    const BufferNode* b = saved.buffer;
    if (restore_storage) {
      if (saved.storage) {
        storage_[b->data.get()] = std::move(*saved.storage);
      } else {
        storage_.erase(b->data.get());
      }
    }
    if (saved.view) {
      views_[b] = std::move(*saved.view);
    } else {
      views_.erase(b);
    }
  }

  // ---- Variables -------------------------------------------------------------------------

  void BindScalar(const VarNode* var, Scalar v) {
    Slot& slot = vars_[var];
    slot.bound = true;
    slot.scalar = v;
    slot.lanes.clear();
  }

  int64_t EvalInt(const Expr& e, const char* what) {
    if (!(e.dtype().is_integral() && e.dtype().is_scalar())) {
      throw Error(ErrorKind::kType,
                  std::string(what) + " must be a scalar integer, got " + e.dtype().ToString());
    }
    return Eval(e.get(), 0).i;
  }

  // ---- Expressions -----------------------------------------------------------------------

  Scalar Eval(const Expr& e, int lane) { return Eval(e.get(), lane); }

  Scalar Eval(const ExprNode* e, int lane) {
    switch (e->kind) {
      case NodeKind::kVar: {
        const auto* var = static_cast<const VarNode*>(e);
        auto it = vars_.find(var);
        if (it == vars_.end() || !it->second.bound) {
          throw Error(ErrorKind::kInvalidIR,
                      "variable " + var->name + " is used where it is not defined");
        }
        const Slot& slot = it->second;
        return slot.lanes.empty() ? slot.scalar : slot.lanes[lane];
      }
      case NodeKind::kIntImm:
        return Scalar::Int(interp::WrapInt(static_cast<const IntImmNode*>(e)->value, e->dtype));
      case NodeKind::kFloatImm:
        return Scalar::Float(
            interp::RoundFloat(static_cast<const FloatImmNode*>(e)->value, e->dtype));
      case NodeKind::kStringImm:
        throw Error(ErrorKind::kInvalidIR, "the string \"" +
                                               static_cast<const StringImmNode*>(e)->value +
                                               "\" is used as a value");
#define KILN_EVAL_BINARY(name)                                       \
  case NodeKind::k##name: {                                          \
    const auto* op = static_cast<const name##Node*>(e);              \
    Scalar a = Eval(op->a, lane), b = Eval(op->b, lane);             \
    return interp::BinaryOp(NodeKind::k##name, op->a.dtype(), a, b); \
  }
        KILN_BINARY_NODES(KILN_EVAL_BINARY)
#undef KILN_EVAL_BINARY
      case NodeKind::kNot:
        return Scalar::Int(Eval(static_cast<const NotNode*>(e)->a, lane).i == 0);
      case NodeKind::kSelect: {
        const auto* op = static_cast<const SelectNode*>(e);
        Scalar c = Eval(op->condition, lane);
        Scalar t = Eval(op->true_value, lane), f = Eval(op->false_value, lane);
        return c.i != 0 ? t : f;
      }
      case NodeKind::kCast: {
        const auto* op = static_cast<const CastNode*>(e);
        return interp::CastScalar(Eval(op->value, lane), op->value.dtype(), e->dtype);
      }
      case NodeKind::kCall:
        return EvalCall(static_cast<const CallNode*>(e), lane);
      case NodeKind::kBufferLoad:
        return Load(static_cast<const BufferLoadNode*>(e), lane);
      case NodeKind::kRamp: {
        const auto* op = static_cast<const RampNode*>(e);
        DataType t = op->base.dtype();
        Scalar k = t.is_float() ? Scalar::Float(lane) : Scalar::Int(lane);
        Scalar step = interp::BinaryOp(NodeKind::kMul, t, Eval(op->stride, 0), k);
        return interp::BinaryOp(NodeKind::kAdd, t, Eval(op->base, 0), step);
      }
      case NodeKind::kBroadcast:
        return Eval(static_cast<const BroadcastNode*>(e)->value, 0);
      case NodeKind::kLet: {
        const auto* op = static_cast<const LetNode*>(e);
        Scalar v = Eval(op->value, lane);
        // Inside one lane's evaluation a vector variable stands for that lane's value.
        Slot& slot = vars_[op->var.get()];
        Slot saved = std::move(slot);
        slot = Slot{true, v, {}};
        Scalar r = Eval(op->body, lane);
        slot = std::move(saved);
        return r;
      }
      default:
        break;
    }
    throw Error(ErrorKind::kInternal,
                std::string("cannot evaluate a ") + NodeKindName(e->kind) + " node");
  }

  Scalar EvalCall(const CallNode* op, int lane) {
    if (op->op == kIfThenElse) {
      // Only the chosen branch: the other may read where the condition says it must not.
      if (op->args.size() != 3) CallResolver::CheckIfThenElse(op);
      return Eval(op->args[Eval(op->args[0], lane).i != 0 ? 1 : 2], lane);
    }
    auto it = intrinsics_.find(op);
    if (it == intrinsics_.end()) it = intrinsics_.emplace(op, CallResolver::Resolve(op)).first;
    Scalar a = Eval(op->args[0], lane);
    Scalar b = op->args.size() > 1 ? Eval(op->args[1], lane) : Scalar{};
    return interp::ApplyIntrinsic(it->second, op->args[0].dtype(), op->dtype, a, b);
  }

  // Evaluates `indices` for lane `lane` of an access and returns the lane offset into the
  // storage of the buffer's view, which is stored in `view`.
  int64_t Locate(const Buffer& buffer, const std::vector<Expr>& indices, int lane, const char* what,
                 const BufferView** view) {
    int elem_lanes = buffer->dtype.lanes();
    int index_lane = lane / elem_lanes;
    int64_t small[8];
    std::vector<int64_t> large;
    int64_t* index = small;
    if (indices.size() > 8) {
      large.resize(indices.size());
      index = large.data();
    }
    for (size_t d = 0; d < indices.size(); ++d) index[d] = Eval(indices[d], index_lane).i;
    *view = &View(buffer.get());
    return (*view)->Offset(index, lane % elem_lanes, what);
  }

  Scalar Load(const BufferLoadNode* op, int lane) {
    const BufferView* view = nullptr;
    int64_t offset = Locate(op->buffer, op->indices, lane, "load", &view);
    return interp::LoadElem(view->At(offset), view->kind);
  }

  // ---- Statements ------------------------------------------------------------------------

  void Exec(const Stmt& s) {
    if (!s.defined()) return;
    switch (s->kind) {
      case NodeKind::kBufferStore:
        return Store(s.as<BufferStoreNode>());
      case NodeKind::kFor:
        return ExecFor(s.as<ForNode>());
      case NodeKind::kBlockRealize: {
        const auto* op = s.as<BlockRealizeNode>();
        return ExecBlock(op->block_node(), op);
      }
      case NodeKind::kBlock:
        return ExecBlock(s.as<BlockNode>(), nullptr);
      case NodeKind::kSeqStmt:
        for (const Stmt& stmt : s.as<SeqStmtNode>()->seq) Exec(stmt);
        return;
      case NodeKind::kIfThenElse: {
        const auto* op = s.as<IfThenElseNode>();
        if (!op->condition.dtype().is_scalar()) {
          throw Error(ErrorKind::kType, "IfThenElse with a vector condition");
        }
        return Exec(Eval(op->condition, 0).i != 0 ? op->then_case : op->else_case);
      }
      case NodeKind::kLetStmt: {
        const auto* op = s.as<LetStmtNode>();
        Slot value = EvalToSlot(op->value);
        Slot& slot = vars_[op->var.get()];
        Slot saved = std::move(slot);
        slot = std::move(value);
        Exec(op->body);
        vars_[op->var.get()] = std::move(saved);
        return;
      }
      case NodeKind::kAllocate: {
        const auto* op = s.as<AllocateNode>();
        Saved saved = Allocate(op->buffer.get());
        Exec(op->body);
        return Release(saved, true);
      }
      case NodeKind::kDeclBuffer: {
        const auto* op = s.as<DeclBufferNode>();
        Saved saved = Declare(op->buffer.get());
        Exec(op->body);
        return Release(saved, false);
      }
      case NodeKind::kEvaluate: {
        const Expr& value = s.as<EvaluateNode>()->value;
        if (value.as<StringImmNode>() == nullptr) EvalToSlot(value);
        return;
      }
      default:
        break;
    }
    throw Error(ErrorKind::kInternal,
                std::string("cannot execute a ") + NodeKindName(s->kind) + " node");
  }

  Slot EvalToSlot(const Expr& e) {
    Slot slot;
    slot.bound = true;
    int lanes = e.dtype().lanes();
    if (lanes <= 1) {
      slot.scalar = Eval(e, 0);
    } else {
      slot.lanes.reserve(lanes);
      for (int l = 0; l < lanes; ++l) slot.lanes.push_back(Eval(e, l));
    }
    return slot;
  }

  void Store(const BufferStoreNode* op) {
    const Buffer& buffer = op->buffer;
    int lanes = op->value.dtype().lanes();
    int index_lanes = 1;
    for (const Expr& index : op->indices)
      index_lanes = std::max(index_lanes, index.dtype().lanes());
    if (lanes != index_lanes * buffer->dtype.lanes()) {
      throw Error(ErrorKind::kInvalidIR, "store to " + buffer->name + ": a value of " +
                                             op->value.dtype().ToString() + " at indices of " +
                                             std::to_string(index_lanes) + " lanes");
    }
    if (lanes == 1) {
      Scalar v = Eval(op->value, 0);
      const BufferView* view = nullptr;
      int64_t offset = Locate(buffer, op->indices, 0, "store", &view);
      return interp::StoreElem(view->At(offset), view->kind, v);
    }
    // Every lane is read before any is written, as one vector store does.
    const BufferView* view = nullptr;
    store_values_.resize(lanes);
    store_offsets_.resize(lanes);
    for (int l = 0; l < lanes; ++l) {
      store_values_[l] = Eval(op->value, l);
      store_offsets_[l] = Locate(buffer, op->indices, l, "store", &view);
    }
    for (int l = 0; l < lanes; ++l) {
      interp::StoreElem(view->At(store_offsets_[l]), view->kind, store_values_[l]);
    }
  }

  void ExecFor(const ForNode* op) {
    // Every loop kind (parallel, vectorized, unrolled, thread-bound) runs sequentially: the
    // kind is a hint to code generators and does not change the result.
    int64_t min = EvalInt(op->min, "loop min");
    int64_t extent = EvalInt(op->extent, "loop extent");
    DataType t = op->loop_var->dtype;
    Slot& slot = vars_[op->loop_var.get()];
    Slot saved = std::move(slot);
    slot = Slot{true, {}, {}};
    for (int64_t i = 0; i < extent; ++i) {
      slot.scalar = Scalar::Int(interp::WrapInt(min + i, t));
      Exec(op->body);
    }
    slot = std::move(saved);
  }

  void ExecBlock(const BlockNode* block, const BlockRealizeNode* realize) {
    size_t n = block->iter_vars.size();
    if (realize == nullptr) {
      if (n != 0) {
        throw Error(ErrorKind::kInvalidIR,
                    "block " + block->name + " has iter vars but no BlockRealize binds them");
      }
    } else if (Eval(realize->predicate, 0).i == 0) {
      return;
    }
    // Iter values, and the bindings they replace, live on stacks shared by nested blocks, so a
    // block run allocates nothing.
    size_t base = value_stack_.size();
    bool at_reduce_start = true;
    for (size_t k = 0; k < n; ++k) {
      const IterVar& iv = block->iter_vars[k];
      int64_t value = EvalInt(realize->iter_values[k], "iter value");
      int64_t min = EvalInt(iv.dom.min, "iter domain");
      int64_t extent = EvalInt(iv.dom.extent, "iter domain");
      if (value < min || value >= min + extent) {
        value_stack_.resize(base);
        throw Error(ErrorKind::kRuntime, "block " + block->name + ": iter var " + iv.var.name() +
                                             " = " + std::to_string(value) +
                                             " is outside its domain [" + std::to_string(min) +
                                             ", " + std::to_string(min + extent) + ")");
      }
      if (iv.kind == IterKind::kReduce && value != min) at_reduce_start = false;
      value_stack_.push_back(value);
    }
    for (size_t k = 0; k < n; ++k) {
      Slot& slot = vars_[block->iter_vars[k].var.get()];
      saved_slots_.push_back({&slot, std::move(slot)});
      slot = Slot{true, Scalar::Int(value_stack_[base + k]), {}};
    }
    value_stack_.resize(base);
    std::vector<Saved> saved_buffers;
    for (const Buffer& b : block->alloc_buffers) saved_buffers.push_back(Allocate(b.get()));
    const std::string* outer_block = block_;
    block_ = &block->name;
    // As in TVM, init runs on the first iteration of the reduction for each output: when
    // every reduce iter var is at the start of its domain.
    if (block->init.defined() && at_reduce_start) Exec(block->init);
    Exec(block->body);
    block_ = outer_block;
    for (size_t k = saved_buffers.size(); k-- > 0;) Release(saved_buffers[k], true);
    for (size_t k = 0; k < n; ++k) {
      *saved_slots_.back().first = std::move(saved_slots_.back().second);
      saved_slots_.pop_back();
    }
  }

  const PrimFunc& f_;
  std::unordered_map<const VarNode*, Slot> vars_;
  std::unordered_map<const VarNode*, Storage> storage_;
  std::unordered_map<const BufferNode*, BufferView> views_;
  std::unordered_map<const BufferNode*, ImplicitView> implicit_views_;
  std::unordered_map<const CallNode*, Intrinsic> intrinsics_;
  uint64_t next_storage_id_ = 1;
  const std::string* block_ = nullptr;  // innermost block being run, for error messages
  std::vector<int64_t> value_stack_;
  std::vector<std::pair<Slot*, Slot>> saved_slots_;
  std::vector<Scalar> store_values_;
  std::vector<int64_t> store_offsets_;
};

}  // namespace

void Interpret(const PrimFunc& f, const std::vector<ArgValue>& args) {
  if (!f.defined()) {
    throw Error(ErrorKind::kInvalidIR, "Interpret: undefined function");
  }
  Interpreter(f).Run(args);
}

}  // namespace kiln::ir
