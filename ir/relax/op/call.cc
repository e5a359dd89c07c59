// call_tir and call_dps_packed: calls in destination-passing style, of a PrimFunc of the same
// module or of a library kernel. The callee writes into outputs the caller allocates, so the
// result's struct info is declared by the call (sinfo_args), not inferred.
#include "ir/relax/op/families.h"
#include "ir/relax/op/infer_util.h"

namespace kiln::ir::relax {

using namespace op_util;  // NOLINT(google-build-using-namespace): the file's helpers

namespace {

StructInfo InferDPS(const OpCall& call, bool tir) {
  if (tir && call.args[0].as<GlobalVarNode>() == nullptr) {
    Fail(call, "the callee must be a GlobalVar naming a PrimFunc, got " +
                   std::string(ExprKindName(call.args[0].kind())));
  }
  if (!tir && call.args[0].as<ExternFuncNode>() == nullptr) {
    Fail(call,
         "the callee must be an ExternFunc, got " + std::string(ExprKindName(call.args[0].kind())));
  }
  const auto* args = call.args[1].struct_info().as<TupleStructInfoNode>();
  if (args == nullptr) {
    Fail(call, "arguments must be a tuple, got " + call.args[1].struct_info().ToString());
  }
  for (size_t i = 0; i < args->fields.size(); ++i) {
    StructInfoKind k = args->fields[i].kind();
    if (k != StructInfoKind::kTensor && k != StructInfoKind::kPrim) {
      Fail(call, "argument " + std::to_string(i) + " must be a tensor or a scalar, got " +
                     args->fields[i].ToString());
    }
  }
  if (call.args.size() == 3) ShapeArg(call, 2);
  if (call.sinfo_args.empty()) Fail(call, "needs the struct info of at least one output");
  for (size_t i = 0; i < call.sinfo_args.size(); ++i) {
    const auto* t = call.sinfo_args[i].as<TensorStructInfoNode>();
    if (t == nullptr || t->unknown_dtype() || !t->shape) {
      Fail(call, "output " + std::to_string(i) +
                     " must be a tensor of known shape and dtype, got " +
                     call.sinfo_args[i].ToString());
    }
  }
  if (call.sinfo_args.size() == 1) return call.sinfo_args[0];
  return TupleStructInfo(call.sinfo_args);
}

}  // namespace

void RegisterCallOps(OpRegistry& r) {
  // call_tir's optional third argument: the values of shape variables the PrimFunc takes as
  // scalar parameters (R.shape([n])).
  r.Register(OpInfo{"call_tir", 2, 3, {}, [](const OpCall& call) { return InferDPS(call, true); }});
  r.Register(OpInfo{
      "call_dps_packed", 2, 2, {}, [](const OpCall& call) { return InferDPS(call, false); }});
}

}  // namespace kiln::ir::relax
