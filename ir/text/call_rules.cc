// Intrinsic call dtype rule: every argument has one dtype; the float-only intrinsics need a
// float; the is* predicates give bool, the others the argument dtype.
#include "ir/text/call_rules.h"

#include "ir/op.h"

namespace kiln::ir {

std::optional<DataType> IntrinsicResultType(const std::string& name, const std::vector<Expr>& args,
                                            std::string* error) {
  auto info = LookupIntrinsic(name);
  if (!info) {
    *error = "unknown intrinsic T." + name;
    return std::nullopt;
  }
  if (static_cast<int>(args.size()) != info->num_args) {
    *error = "T." + name + " takes " + std::to_string(info->num_args) + " argument" +
             (info->num_args == 1 ? "" : "s") + ", got " + std::to_string(args.size());
    return std::nullopt;
  }
  if (name == kIfThenElse) {
    try {
      return IfThenElseCall(args[0], args[1], args[2]).dtype();
    } catch (const Error& e) {
      *error = std::string("T.") + e.what();
      return std::nullopt;
    }
  }
  for (const Expr& arg : args) {
    if (!arg.defined() || arg.dtype() != args[0].dtype()) {
      *error = "T." + name + ": argument dtypes differ";
      return std::nullopt;
    }
  }
  DataType dtype = args[0].dtype();
  if (info->float_only && !dtype.is_float()) {
    *error = "T." + name + " is defined on floating-point values, got " + dtype.ToString();
    return std::nullopt;
  }
  if (!dtype.is_float() && !dtype.is_int() && !dtype.is_uint()) {
    *error = "T." + name + ": arguments must be numbers, got " + dtype.ToString();
    return std::nullopt;
  }
  if (name == "isnan" || name == "isinf" || name == "isfinite")
    return DataType::Bool(dtype.lanes());
  return dtype;
}

}  // namespace kiln::ir
