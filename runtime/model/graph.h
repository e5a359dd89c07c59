// The compiled graph of a model artifact: the Relax entry function after fusion, lowered to
// what the executor needs and nothing more. Values are the function's inputs, its constants,
// the outputs of kernel calls and views (a reshape-like re-view of another value's memory);
// steps are the kernel calls in program order; a kernel is either generated (in kernels.so) or
// a library function called by name (a packed call, as Relax's call_dps_packed). Dims are integer
// expressions over the model's symbolic dims (DimExpr), evaluated once the inputs' shapes bind
// them.
//
// The JSON form is what the artifact stores (graph.json). Parsing validates everything an
// executor relies on (indices in range, values defined before use, each kernel output written
// by exactly one step, ranks and sizes bounded), so a malformed graph is a kiln::Error(kParse)
// naming the field, never a crash later.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "codegen/kernel_abi.h"
#include "ir/dtype.h"

namespace kiln::runtime::model {

// An integer expression over symbolic dims: a constant, a dim's name, or an operation.
struct DimExpr {
  enum class Op : uint8_t { kConst, kVar, kAdd, kSub, kMul, kFloorDiv, kFloorMod, kMin, kMax };
  Op op = Op::kConst;
  int64_t value = 0;              // kConst
  std::string var;                // kVar
  std::vector<DimExpr> operands;  // two for the operations

  static DimExpr Const(int64_t v) { return {Op::kConst, v, {}, {}}; }
  static DimExpr Var(std::string name) { return {Op::kVar, 0, std::move(name), {}}; }
  // "batch", "seq_len * 4", "64".
  std::string ToString() const;
};

using DimEnv = std::map<std::string, int64_t>;

// The value of `e` once `env` binds its dims. kiln::Error(kRuntime) naming the dim when one is
// unbound, on a division by zero or on overflow.
int64_t EvaluateDim(const DimExpr& e, const DimEnv& env);

enum class ValueKind : uint8_t { kInput, kConstant, kKernelOutput, kView };

struct GraphValue {
  std::string name;  // the Relax variable's name (or "const3")
  ValueKind kind = ValueKind::kKernelOutput;
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<DimExpr> shape;
  int64_t input_index = -1;     // kInput: which parameter
  int64_t constant_index = -1;  // kConstant: which entry of Graph::constants
  int64_t source = -1;          // kView: the value whose memory this re-views
  // kView: when set, the view is a checked cast (Relax's match_cast): its source must have
  // exactly the view's shape, else the run fails with this text, then "expected S, got S'"
  // ("ONNX node 614 'p2o.Add.249' (Add): input 1 must match input 0"). The check is made when
  // the plan for the inputs' shapes is made, before any kernel runs.
  std::string check = {};
};

// Where a constant's bytes are in constants.bin.
struct ConstantRef {
  uint64_t offset = 0;
  uint64_t nbytes = 0;
};

struct GraphKernel {
  std::string symbol;  // exported by the kernels library; for a library call, its name
  std::string task;    // the task it compiles (its name in the manifest)
  std::vector<codegen::ArgSlot> slots;
  // A library function (runtime/model/library_function.h) called instead of a kernel of the
  // library, with these attributes; its slots are all buffers. Empty: a generated kernel.
  std::string library = {};
  std::map<std::string, int64_t> attrs = {};
};

// One PrimFunc parameter of a call: a buffer (a value) or an integer scalar.
struct StepArg {
  int64_t value = -1;  // -1: a scalar
  DimExpr scalar;
};

struct Step {
  int64_t kernel = 0;
  std::vector<StepArg> args;     // one per PrimFunc parameter, outputs last
  std::vector<int64_t> outputs;  // the values this call writes (also in args)
};

struct Graph {
  std::vector<std::string> dims;  // symbolic dims, bound from the inputs' shapes
  std::vector<int64_t> inputs;    // value ids, in parameter order
  std::vector<int64_t> outputs;   // value ids; several make a tuple result
  bool tuple_output = false;
  std::vector<GraphValue> values;
  std::vector<ConstantRef> constants;
  std::vector<GraphKernel> kernels;
  std::vector<Step> steps;
};

nlohmann::json GraphToJson(const Graph& graph);
// Validates as the header says; `constants_bytes` is the size of constants.bin, which every
// constant must lie inside. kiln::Error(kParse) naming the field on any fault.
Graph GraphFromJson(const nlohmann::json& json, uint64_t constants_bytes);

}  // namespace kiln::runtime::model
