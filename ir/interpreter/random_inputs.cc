// Random arguments for a PrimFunc and the reference run on them.
#include "ir/interpreter/random_inputs.h"

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

}  // namespace

std::vector<ArgValue> MakeRandomArguments(const PrimFunc& f,
                                          const std::map<std::string, int64_t>& dims,
                                          uint64_t seed) {
  std::vector<ArgValue> args;
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
    args.emplace_back(HostTensor::Random((*buffer)->dtype, std::move(shape), param_seed));
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
