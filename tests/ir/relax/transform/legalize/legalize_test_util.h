// Shared pieces of the legalization tests: a one-op Relax module, LegalizeOps followed by the
// checks every legalized module must pass (well formed, no tensor op left, every kernel
// printable TVMScript that parses back to an equal function), running a legalized module with
// the reference executor (every call_tir through the interpreter), and index helpers for the
// plain C++ references the tests compare with.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "ir/relax/block_builder.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/op/registry.h"

namespace kiln::ir::relax::legalize_test {

// main(params) { with dataflow: gv = make(params) } as a module.
IRModule OpModule(const std::vector<Var>& params,
                  const std::function<Expr(const std::vector<Var>&)>& make);
// A parameter of tensor type.
Var TensorParam(const std::string& name, std::vector<PrimExpr> shape,
                DataType dtype = DataType::Float(32));

// transform::LegalizeOps(module) and the checks of every legalized module (gtest failures).
IRModule LegalizeChecked(const IRModule& module);
// The check alone, on a module LegalizeOps produced.
void CheckLegalizedModule(const IRModule& module);

// The names of the PrimFuncs of `module`, in order.
std::vector<std::string> PrimFuncNames(const IRModule& module);

using Value = exec::Value;

// Runs function `name` of a legalized module with the reference executor on `args` (tensors
// for tensor parameters, int64 or double for float32 scalars). A failure fails the test and
// returns an undefined value.
Value RunMain(const IRModule& module, const std::vector<ArgValue>& args,
              const std::string& name = "main");

// ---- references ------------------------------------------------------------------------

using Shape = std::vector<int64_t>;
using Index = std::vector<int64_t>;

int64_t Numel(const Shape& shape);
// Calls fn for every index of `shape` in row-major order.
void ForEachIndex(const Shape& shape, const std::function<void(const Index&)>& fn);
int64_t FlatIndex(const Shape& shape, const Index& index);
double At(const HostTensor& t, const Index& index);
void SetAt(HostTensor& t, const Index& index, double value);
// The index of an input of shape `in` that numpy broadcasting reads for output index `out`.
Index BroadcastIndex(const Shape& in, const Index& out);

HostTensor Random(DataType dtype, const Shape& shape, uint64_t seed, double lo = -1.0,
                  double hi = 1.0);

// Elementwise comparison with the dtype's default tolerance (or the given one).
void ExpectClose(const HostTensor& expected, const HostTensor& actual, double rtol = -1,
                 double atol = -1);

}  // namespace kiln::ir::relax::legalize_test
