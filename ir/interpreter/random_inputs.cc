// Random arguments for a PrimFunc and the reference run on them.
#include "ir/interpreter/random_inputs.h"

#include <algorithm>
#include <optional>
#include <unordered_map>

#include "ir/functor.h"
#include "ir/interpreter/scalar_ops.h"

namespace kiln::ir {
namespace {

// A shape expression's value, with its Vars valued by name: the few integer node kinds that
// shapes are written with.
int64_t EvalDim(const Expr& e, const std::map<std::string, int64_t>& dims,
                const std::string& where) {
  DataType t = e.dtype();
  KILN_CHECK(t.is_integral() && t.is_scalar(), ErrorKind::kType,
             where + ": a dimension of dtype " + t.ToString());
  if (const auto* var = e.as<VarNode>()) {
    auto it = dims.find(var->name);
    KILN_CHECK(it != dims.end(), ErrorKind::kRuntime,
               where + ": no value given for the symbolic dimension " + var->name);
    return interp::WrapInt(it->second, t);
  }
  if (auto v = AsConstInt(e)) return interp::WrapInt(*v, t);
  if (const auto* cast = e.as<CastNode>()) {
    return interp::WrapInt(EvalDim(cast->value, dims, where), t);
  }
#define KILN_EVAL_DIM(name)                                              \
  if (const auto* op = e.as<name##Node>()) {                             \
    interp::Scalar a = interp::Scalar::Int(EvalDim(op->a, dims, where)); \
    interp::Scalar b = interp::Scalar::Int(EvalDim(op->b, dims, where)); \
    return interp::BinaryOp(NodeKind::k##name, op->a.dtype(), a, b).i;   \
  }
  KILN_BINARY_NODES(KILN_EVAL_DIM)
#undef KILN_EVAL_DIM
  throw Error(ErrorKind::kUnsupported,
              where + ": cannot evaluate a " + NodeKindName(e.kind()) + " in a shape");
}

// Finds, for every access `B[..., e, ...]`, the loads of integer parameter buffers inside the
// index `e`, and narrows each such parameter's range to B's axis.
class IndexUseFinder : public IRVisitor {
 public:
  IndexUseFinder(const PrimFunc& f, const std::map<std::string, int64_t>& dims)
      : f_(f), dims_(dims) {
    for (size_t i = 0; i < f->params.size(); ++i) {
      if (auto b = f->BufferOf(f->params[i]);
          b && (*b)->dtype.is_integral() && !(*b)->dtype.is_bool() && (*b)->dtype.is_scalar()) {
        params_[b->get()] = i;
      }
    }
  }

  std::map<size_t, IndexRange> ranges;

  void VisitExpr_(const BufferLoadNode* op) override {
    Access(op->buffer, op->indices);
    IRVisitor::VisitExpr_(op);
  }
  void VisitStmt_(const BufferStoreNode* op) override {
    Access(op->buffer, op->indices);
    IRVisitor::VisitStmt_(op);
  }

 private:
  struct LoadCollector : IRVisitor {
    std::vector<const BufferNode*> buffers;
    void VisitExpr_(const BufferLoadNode* op) override {
      buffers.push_back(op->buffer.get());
      IRVisitor::VisitExpr_(op);
    }
  };

  void Access(const Buffer& buffer, const std::vector<Expr>& indices) {
    if (params_.empty()) return;
    for (size_t d = 0; d < indices.size() && d < buffer->shape.size(); ++d) {
      LoadCollector loads;
      loads.VisitExpr(indices[d]);
      for (const BufferNode* b : loads.buffers) {
        auto param = params_.find(b);
        if (param == params_.end() || b == buffer.get()) continue;
        std::optional<int64_t> extent = Extent(buffer->shape[d]);
        if (!extent || *extent <= 0) continue;
        auto [it, fresh] = ranges.try_emplace(param->second, IndexRange{0, *extent - 1});
        if (!fresh) it->second.high = std::min(it->second.high, *extent - 1);
      }
    }
  }

  std::optional<int64_t> Extent(const Expr& e) {
    try {
      return EvalDim(e, dims_, f_->name);
    } catch (const Error&) {
      return std::nullopt;
    }
  }

  const PrimFunc& f_;
  const std::map<std::string, int64_t>& dims_;
  std::unordered_map<const BufferNode*, size_t> params_;
};

}  // namespace

std::map<size_t, IndexRange> IndexInputRanges(const PrimFunc& f,
                                              const std::map<std::string, int64_t>& dims) {
  IndexUseFinder finder(f, dims);
  if (f->body.defined()) finder.VisitStmt(f->body);
  return finder.ranges;
}

std::vector<ArgValue> MakeRandomArguments(const PrimFunc& f,
                                          const std::map<std::string, int64_t>& dims,
                                          uint64_t seed) {
  std::vector<ArgValue> args;
  std::map<size_t, IndexRange> index_ranges = IndexInputRanges(f, dims);
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Var& param = f->params[i];
    std::optional<Buffer> buffer = f->BufferOf(param);
    std::string where = f->name + ": parameter " + (buffer ? (*buffer)->name : param.name());
    if (!buffer) {
      auto it = dims.find(param.name());
      KILN_CHECK(it != dims.end(), ErrorKind::kRuntime, where + ": no value given for it");
      if (param->dtype.is_float()) {
        args.emplace_back(static_cast<double>(it->second));
      } else {
        args.emplace_back(it->second);
      }
      continue;
    }
    std::vector<int64_t> shape;
    for (const Expr& d : (*buffer)->shape) shape.push_back(EvalDim(d, dims, where));
    // Distinct, well-mixed seeds per parameter, so no two parameters draw the same values.
    uint64_t param_seed = seed ^ (0x9e3779b97f4a7c15ULL * (i + 1));
    auto range = index_ranges.find(i);
    if (range != index_ranges.end()) {
      DataType t = (*buffer)->dtype;
      if (t.bits() < 64) {  // a narrow index type holds what it can
        int64_t max =
            t.is_uint() ? (int64_t{1} << t.bits()) - 1 : (int64_t{1} << (t.bits() - 1)) - 1;
        range->second.high = std::min(range->second.high, max);
      }
      // Indices into another buffer: drawn where they are valid, so the kernel can be run.
      args.emplace_back(HostTensor::Random((*buffer)->dtype, std::move(shape), param_seed,
                                           static_cast<double>(range->second.low),
                                           static_cast<double>(range->second.high)));
    } else {
      args.emplace_back(HostTensor::Random((*buffer)->dtype, std::move(shape), param_seed));
    }
  }
  return args;
}

std::vector<HostTensor> RunWithRandomInputs(const PrimFunc& f,
                                            const std::map<std::string, int64_t>& dims,
                                            uint64_t seed) {
  std::vector<ArgValue> args = MakeRandomArguments(f, dims, seed);
  Interpret(f, args);
  std::vector<HostTensor> tensors;
  for (const ArgValue& arg : args) {
    if (const auto* t = std::get_if<HostTensor>(&arg)) tensors.push_back(*t);
  }
  return tensors;
}

}  // namespace kiln::ir
