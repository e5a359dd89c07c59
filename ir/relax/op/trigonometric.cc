// Trigonometric and hyperbolic elementwise ops beyond sin and cos: tan, the inverses (asin,
// acos, atan) and the hyperbolic functions (sinh, cosh, asinh, acosh, atanh). They map one to
// one onto TensorIR intrinsics; ONNX's Asin, Acos, Atan, ... import to them.
#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

void RegisterTrigonometricOps(OpRegistry& r) {
  for (const char* name :
       {"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"}) {
    r.Register(OpInfo{name, 1, 1, {}, [](const OpCall& call) {
                        RequireFloat(call, TensorArg(call, 0), 0);
                        return call.args[0].struct_info();
                      }});
  }
  r.SetPattern({"tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh"},
               OpPattern::kElemWise);
}

}  // namespace kiln::ir::relax
