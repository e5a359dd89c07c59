// What a legalization rule works with: the op call being legalized and a builder for its
// kernel. The context turns the call's tensor arguments into compute placeholders whose shapes
// are fresh copies of the call's shape variables, and CallKernel turns the stages a rule
// computes into a PrimFunc (CreatePrimFunc), adds it to the module and returns the call_tir
// that replaces the op call, passing only the arguments the kernel reads and, through
// tir_vars, the shape variables that no parameter buffer has as a whole dim.
// Internal to ir/relax/transform/legalize.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "ir/compute/tensor.h"
#include "ir/relax/module.h"

namespace kiln::ir::relax::legalize {

using compute::Tensor;

class LegalizeContext {
 public:
  // Binds a value to a new variable placed before the binding being legalized.
  using Emitter = std::function<Expr(const Expr& value, const std::string& name_hint)>;

  LegalizeContext(const CallNode& call, IRModule& module, Emitter emit);

  const CallNode& call() const { return call_; }
  const std::string& op() const { return call_.op; }
  const Attrs& attrs() const { return call_.attrs; }
  size_t num_args() const { return call_.args.size(); }

  // The struct info of tensor argument `i` (its shape is known: LegalizeOps checks it).
  const TensorStructInfoNode& ArgInfo(size_t i) const;
  // The kernel placeholder of tensor argument `i`, made on first use (named A, B, ...).
  Tensor Input(size_t i);
  // The placeholders of the tensors of tuple argument `i` (a Tuple or a tuple-valued
  // variable, whose fields are bound with TupleGetItem).
  std::vector<Tensor> InputTuple(size_t i);
  // Scalar argument `i` (a Prim) as a kernel expression of `dtype`: its value when known,
  // else a scalar parameter of the kernel.
  ir::Expr Scalar(size_t i, DataType dtype);
  // True when argument `i` is a scalar (a Prim), not a tensor.
  bool IsScalarArg(size_t i) const;

  // A dim of the call (over Relax shape variables) as a kernel expression.
  ir::Expr Dim(const PrimExpr& dim);
  std::vector<ir::Expr> Dims(const std::vector<PrimExpr>& dims);

  // The call's result: tensor `k` of a tuple result, or the tensor result (k = 0).
  const TensorStructInfoNode& OutInfo(size_t k = 0) const;
  std::vector<ir::Expr> OutShape(size_t k = 0);
  DataType OutDType(size_t k = 0) const;

  // The kernel computing `outputs` (compute stages) from the placeholders and scalars they
  // read, added to the module under a unique name from `name_hint`, and the call_tir that
  // runs it. `out_sinfo` declares the outputs' struct info; by default the call's result
  // (a tensor, or the fields of a tuple). At most one kernel per call: kernels own their
  // shape variables.
  Expr CallKernel(const std::string& name_hint, const std::vector<Tensor>& outputs,
                  std::vector<StructInfo> out_sinfo = {});

  Expr Emit(const Expr& value, const std::string& name_hint) { return emit_(value, name_hint); }

  // Throws kiln::Error(kUnsupported) "<op>: <message>".
  [[noreturn]] void Unsupported(const std::string& message) const;

 private:
  struct InputEntry {
    size_t arg = 0;    // argument index
    size_t field = 0;  // field of a tuple argument
    Expr value;        // the Relax value passed to call_tir
    Tensor tensor;     // a tensor input, or
    ir::Var scalar;    // a scalar input
  };
  Tensor MakePlaceholder(size_t arg, size_t field, const Expr& value,
                         const TensorStructInfoNode& info);
  std::string NextInputName();

  const CallNode& call_;
  IRModule& module_;
  Emitter emit_;
  std::vector<InputEntry> inputs_;
  std::map<size_t, std::vector<Tensor>> tuple_inputs_;
  // Relax shape variable -> its kernel copy, and the copies in order of creation.
  std::unordered_map<const ir::VarNode*, ir::Var> var_copies_;
  std::vector<std::pair<ir::Var, PrimVar>> copies_;
  int next_input_ = 0;
  bool kernel_made_ = false;
};

using LegalizeFn = std::function<Expr(LegalizeContext& ctx)>;
using RuleTable = std::map<std::string, LegalizeFn, std::less<>>;

// The rules of each op family, one file each (unary.cc, binary.cc, ...).
void AddUnaryRules(RuleTable& rules);
void AddTrigonometricRules(RuleTable& rules);
void AddBinaryRules(RuleTable& rules);
void AddLinearAlgebraRules(RuleTable& rules);
void AddConvRules(RuleTable& rules);
void AddPoolRules(RuleTable& rules);
void AddNormRules(RuleTable& rules);
void AddNNRules(RuleTable& rules);
void AddReduceRules(RuleTable& rules);
void AddScanRules(RuleTable& rules);
void AddManipulateRules(RuleTable& rules);
void AddIndexRules(RuleTable& rules);
void AddCreateRules(RuleTable& rules);
void AddImageRules(RuleTable& rules);

// Every rule, by op name.
const RuleTable& Rules();

}  // namespace kiln::ir::relax::legalize
