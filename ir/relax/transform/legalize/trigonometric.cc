// Trigonometric and hyperbolic ops beyond sin and cos (tan, asin, acos, atan, sinh, cosh,
// asinh, acosh, atanh): one "compute" stage calling the intrinsic of the same name, as the
// unary ops.
#include "ir/compute/math.h"
#include "ir/relax/transform/legalize/compute_util.h"

namespace kiln::ir::relax::legalize {

void AddTrigonometricRules(RuleTable& r) {
  for (const char* op :
       {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"}) {
    std::string name = op;
    r[name] = [name](LegalizeContext& ctx) {
      Tensor x = ctx.Input(0);
      Tensor out = compute::Compute(
          x.shape(),
          [&](const std::vector<ir::Var>& i) { return compute::Intrinsic(name, {x(i)}); },
          "compute");
      return ctx.CallKernel(name, {out});
    };
  }
}

}  // namespace kiln::ir::relax::legalize
