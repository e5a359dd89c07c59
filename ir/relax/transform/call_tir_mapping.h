// How one call_tir binds the parameters of its PrimFunc, in the caller's terms: which argument
// or output each buffer parameter takes, and what each of the PrimFunc's own shape variables and
// scalar parameters equals (an expression over the caller's shape variables). Every PrimFunc
// has shape variables of its own, so merging several into one function (FuseTIR) must map them
// through the calls; FuseOps uses the same match to leave out calls that cannot be merged.
// Internal to ir/relax/transform.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/function.h"
#include "ir/relax/module.h"

namespace kiln::ir::relax::transform {

struct CallTIRMapping {
  std::string func_name;
  ir::PrimFunc func;
  std::vector<Expr> inputs;          // the fields of the call's argument tuple
  std::vector<StructInfo> outputs;   // the call's out_sinfo (tensors of known shape and dtype)
  std::vector<PrimExpr> tir_values;  // the dims of its shape argument (empty without one)
  // Each buffer parameter: its position among inputs (is_output false) or outputs.
  struct BufferParam {
    ir::Buffer buffer;
    bool is_output = false;
    size_t index = 0;
  };
  std::vector<BufferParam> buffers;
  // The PrimFunc's shape variables and scalar parameters -> caller expressions, cast to the
  // variable's dtype.
  std::unordered_map<const ir::VarNode*, PrimExpr> vars;
  // Scalar parameters passed a Relax variable of unknown value -> that variable.
  std::unordered_map<const ir::VarNode*, Var> scalar_args;
};

// Matches call_tir `call` against its PrimFunc. Returns nullopt, with the reason in `*why`, when
// the call cannot be merged with others: the callee is missing or not in root-block form,
// parameter and argument counts differ, an argument or output has an unknown shape or another
// dtype or rank than its buffer, a buffer is strided, offset or not in global memory, a shape
// variable of the PrimFunc cannot be determined from the call, or a dim provably disagrees.
std::optional<CallTIRMapping> MatchCallTIR(const IRModule& module, const CallNode& call,
                                           std::string* why);

// The root block of `func` (a block named "root" without iteration variables realized as the
// whole body), or nullptr.
const ir::BlockNode* RootBlock(const ir::PrimFunc& func);

// The variables `func` uses without defining them (by a parameter, a loop, a block or a let), in
// order of first use, counting the shapes of its parameter and allocated buffers as uses: the
// shape variables a caller must make known.
std::vector<PrimVar> UndefinedVars(const ir::PrimFunc& func);

}  // namespace kiln::ir::relax::transform
