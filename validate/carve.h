// Test carving (the first step of validating a model on a new device): run the model on the
// reference device and record every kernel call as it happened, so that each call can be
// replayed on the new device with realistic inputs and the model can be moved over call by
// call (validate/replay.h, validate/offload.h).
//
// A carve is a directory:
//   carve.json        the model, its entry and dims, the model's inputs and outputs, and per
//                     call_tir in the order run: its index, the PrimFunc and its task, the
//                     Relax function and binding, the values of the PrimFunc's symbolic dims
//                     and scalar parameters, and its inputs and outputs as tensor digests
//   tensors/D.bin     each tensor's raw elements, stored once by its digest (FNV-1a over dtype,
//                     shape and bytes), so the same weight passed to twelve calls costs once
// A tensor larger than the cap keeps its digest and a sample: kCarveSampleElements elements at
// indices drawn from its digest (tensors/D.sample.bin). A call that reads such a tensor cannot
// be replayed, and says so; an output beyond the cap is compared on its sample. The first call
// whose outputs hold a NaN or an infinity is named.
// The reference is the TensorIR interpreter (ir/relax/exec/reference_executor.h), or the
// workloads' loops as written built for this CPU (much faster on convolutions and GEMMs).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/module.h"

namespace kiln::validate {

// How many elements a tensor beyond the cap keeps.
inline constexpr int64_t kCarveSampleElements = 4096;

struct TensorRef {
  std::string digest;  // 16 hex digits
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<int64_t> shape;
  bool stored = true;  // false: beyond the carve's cap, only the digest and a sample kept
};

// One argument of a call_tir's argument tuple: a tensor or a scalar.
struct CallArg {
  bool is_tensor = true;
  TensorRef tensor;
  ir::DataType dtype = ir::DataType::Int(64);  // a scalar's
  int64_t int_value = 0;
  double float_value = 0;
};

struct CarvedCall {
  int64_t index = 0;
  std::string prim_func;  // the PrimFunc called
  std::string task;       // its task's name (ExtractTasks: the first structurally equal call)
  std::string function;   // the Relax function of the call
  std::string binding;    // the variable it binds
  std::map<std::string, int64_t> bound;  // the PrimFunc's symbolic dims and scalars, by name
  std::vector<CallArg> inputs;
  std::vector<int64_t> tir_vars;
  std::vector<TensorRef> outputs;
  double reference_seconds = 0;
};

struct Carve {
  std::string model;  // what was carved (a path or a name)
  std::string entry;
  std::string reference;           // "interpreter", or the reference device's description
  std::vector<TensorRef> inputs;   // the model's
  std::vector<TensorRef> outputs;  // the model's, flattened from tuples
  std::vector<CarvedCall> calls;
  std::optional<int64_t> first_non_finite;  // the first call with a NaN or Inf output
  double seconds = 0;                       // the reference run
  // What the tensors directory holds.
  int64_t stored_tensors = 0;
  uint64_t stored_bytes = 0;
  uint64_t referenced_bytes = 0;  // every tensor of every call, as if each were stored
};

// The content-addressed tensors of a carve directory.
class TensorStore {
 public:
  // `dir` is the carve directory (tensors/ is made under it). Tensors above `cap_bytes` are
  // not stored.
  TensorStore(std::string dir, uint64_t cap_bytes);

  TensorRef Put(const ir::HostTensor& tensor);
  // kiln::Error(kIO) naming the file when it is missing, or the tensor was beyond the cap.
  ir::HostTensor Get(const TensorRef& ref) const;
  // The raw elements' file (what measurers read as a kernel's input).
  std::string PathOf(const TensorRef& ref) const;
  // A tensor beyond the cap: the flat indices its sample keeps (ascending, the same on every
  // machine), and the sample's elements (1-D, in that order). kiln::Error(kIO) naming the file
  // when it is missing.
  static std::vector<int64_t> SampleIndices(const TensorRef& ref);
  ir::HostTensor GetSample(const TensorRef& ref) const;
  // The digest Put would give, without storing.
  static std::string Digest(const ir::HostTensor& tensor);
  const std::string& dir() const { return dir_; }

 private:
  std::string SamplePathOf(const TensorRef& ref) const;

  std::string dir_;
  uint64_t cap_bytes_;
};

class TargetDevice;

// Runs `entry` of `module` (prepared: fused and legalized) on `inputs`, storing every call's
// tensors in `store`: each call on the interpreter, or on `reference` when given (the loops as
// written built for this CPU, validate/target_device.h). kiln::Error as the reference executor
// throws, or naming the call the reference device failed.
Carve CarveModel(const ir::relax::IRModule& module, const std::string& entry,
                 const std::string& model_name, const std::vector<ir::HostTensor>& inputs,
                 TensorStore& store, TargetDevice* reference = nullptr);

// One call run on the reference device as CarveModel runs it; kiln::Error(kRuntime) naming the
// call when the device fails it.
ir::relax::exec::Value RunOnReference(TargetDevice& reference, const ir::relax::IRModule& module,
                                      const ir::relax::exec::CallTIRSite& site,
                                      const std::vector<ir::relax::exec::Value>& args,
                                      const std::vector<int64_t>& tir_vars,
                                      const ir::relax::exec::ShapeEnv& env);

// `actual` against the carved `expected`: every element when it was stored, else its sample's
// (the first bad index is then the full tensor's).
struct Tolerances;
struct TensorDiff;
TensorDiff DiffWithCarved(const TensorStore& store, const TensorRef& expected,
                          const ir::HostTensor& actual, const Tolerances& tolerances);

// The task name of each PrimFunc of `module` that `entry` calls (structurally equal PrimFuncs
// share the name of the first called).
std::map<std::string, std::string> TaskNamesOfPrimFuncs(const ir::relax::IRModule& module,
                                                        const std::string& entry);

// The values of `func`'s symbolic dims (from its buffer parameters' shapes against
// `tensor_shapes`, in parameter order) and of its trailing scalar parameters (`scalars`).
std::map<std::string, int64_t> BoundValues(const ir::PrimFunc& func,
                                           const std::vector<std::vector<int64_t>>& tensor_shapes,
                                           const std::vector<int64_t>& scalars);

void SaveCarve(const Carve& carve, const std::string& dir);
// kiln::Error(kParse) naming the file and field for a malformed carve.json; kIO when missing.
Carve LoadCarve(const std::string& dir);
// The same on carve.json's text; `where` names it in messages (what the fuzzer drives).
Carve ParseCarve(const std::string& text, const std::string& where);

}  // namespace kiln::validate
