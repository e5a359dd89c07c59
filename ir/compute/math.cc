// Element-wise helpers: constants, checked intrinsic calls, guarded loads.
#include "ir/compute/math.h"

#include <string>

#include "ir/op.h"

namespace kiln::ir::compute {

Expr Const(DataType dtype, double value) { return MakeConst(dtype, value); }

Expr Intrinsic(std::string_view op, std::vector<Expr> args) {
  const std::string name(op);
  auto info = LookupIntrinsic(op);
  KILN_CHECK(info.has_value(), ErrorKind::kType, "unknown intrinsic " + name);
  KILN_CHECK(static_cast<int>(args.size()) == info->num_args, ErrorKind::kType,
             name + " takes " + std::to_string(info->num_args) + " arguments, got " +
                 std::to_string(args.size()));
  for (const Expr& arg : args) {
    KILN_CHECK(arg.defined(), ErrorKind::kInvalidIR, name + ": undefined argument");
    KILN_CHECK(arg.dtype() == args[0].dtype(), ErrorKind::kType,
               name + ": argument dtypes differ: " + args[0].dtype().ToString() + " vs " +
                   arg.dtype().ToString());
  }
  DataType dtype = args[0].dtype();
  KILN_CHECK(!info->float_only || dtype.is_float(), ErrorKind::kType,
             name + " is defined on floating-point values, got " + dtype.ToString());
  if (op == "isnan" || op == "isinf" || op == "isfinite") dtype = DataType::Bool(dtype.lanes());
  return Call(dtype, name, std::move(args));
}

Expr Exp(Expr x) { return Intrinsic("exp", {std::move(x)}); }
Expr Log(Expr x) { return Intrinsic("log", {std::move(x)}); }
Expr Sqrt(Expr x) { return Intrinsic("sqrt", {std::move(x)}); }
Expr Rsqrt(Expr x) { return Intrinsic("rsqrt", {std::move(x)}); }
Expr Tanh(Expr x) { return Intrinsic("tanh", {std::move(x)}); }
Expr Sigmoid(Expr x) { return Intrinsic("sigmoid", {std::move(x)}); }
Expr Erf(Expr x) { return Intrinsic("erf", {std::move(x)}); }
Expr Abs(Expr x) { return Intrinsic("fabs", {std::move(x)}); }
Expr Pow(Expr x, Expr y) { return Intrinsic("pow", {std::move(x), std::move(y)}); }

Expr PaddedLoad(const Tensor& tensor, std::vector<Expr> indices, Expr pad_value) {
  KILN_CHECK(tensor.defined(), ErrorKind::kInvalidIR, "PaddedLoad: undefined tensor");
  KILN_CHECK(indices.size() == tensor.ndim(), ErrorKind::kType,
             "PaddedLoad: tensor " + tensor.name() + " has " + std::to_string(tensor.ndim()) +
                 " dimensions but is indexed with " + std::to_string(indices.size()) + " indices");
  Expr in_bounds;
  for (size_t d = 0; d < indices.size(); ++d) {
    Expr& index = indices[d];
    KILN_CHECK(
        index.defined() && index.dtype().is_int(), ErrorKind::kType,
        "PaddedLoad: index " + std::to_string(d) + " of " + tensor.name() + " is not an integer");
    const Expr& extent = tensor.shape()[d];
    if (detail::IsStageIndexOver(index, extent)) continue;
    auto const_extent = AsConstInt(extent);
    Expr last = const_extent ? IntImm(extent.dtype(), *const_extent - 1) : extent - 1;
    Expr inside = (index >= 0) && (index < extent);
    in_bounds = in_bounds.defined() ? (in_bounds && inside) : inside;
    index = ir::Max(ir::Min(index, last), 0);
  }
  Expr value = tensor(indices);
  if (!in_bounds.defined()) return value;
  return Select(in_bounds, value, std::move(pad_value));
}

}  // namespace kiln::ir::compute
