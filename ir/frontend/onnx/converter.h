// The converter interface: a table from (ONNX op type, range of its schema versions) to a
// function that turns one node into Relax, and the NodeContext that function works with (its inputs
// as Relax expressions or as values known at import time, its attributes, and the block builder).
// Converters live one file per op family (convert_*.cc). Internal to ir/frontend/onnx.
//
// A converter must read (or Ignore) every attribute it handles: an attribute it did not look
// at makes the node unsupported, so an attribute Kiln does not implement is never silently
// dropped. Likewise an output the converter does not produce makes the node unsupported.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "ir/frontend/onnx/onnx_model.h"
#include "ir/frontend/onnx/sym_tensor.h"
#include "ir/relax/block_builder.h"
#include "ir/relax/op/registry.h"

namespace kiln::ir::frontend::onnx {

// The newest schema version a converter registered without an explicit one implements: Kiln's
// converters were written against opset 17, and every later version of an op (schema_versions.h)
// is claimed by its converter explicitly, once its semantics are implemented.
inline constexpr int64_t kBaseMaxVersion = 17;

// What the importer knows of an ONNX value: its Relax expression once it has one, and its
// contents when they are known at import time (a constant of any dtype, or integer elements
// that may be symbolic; a float tensor's elements too when they are integers, as a Cast of a
// shape to float makes them). A value known at import time gets a Relax expression only when a
// node that is not evaluated at import time uses it.
struct Value {
  Value() = default;
  Value(relax::Expr e) : expr(std::move(e)) {}     // NOLINT: implicit on purpose
  Value(HostTensor t) : constant(std::move(t)) {}  // NOLINT
  Value(SymTensor s) : known(std::move(s)) {}      // NOLINT
  bool defined() const { return expr.defined() || constant || known; }

  relax::Expr expr;
  std::optional<HostTensor> constant;
  std::optional<SymTensor> known;
};
using Outputs = std::vector<Value>;

// The importer's state that node conversion reads and extends.
struct ImportState {
  relax::BlockBuilder* builder = nullptr;
  std::map<std::string, Value>* values = nullptr;
  const std::set<std::string>* graph_inputs = nullptr;  // the parameters of main
  std::set<std::string>* needed_inputs = nullptr;       // graph inputs a node needed to know
  std::set<std::string>* shaping_inputs = nullptr;      // graph inputs deciding run-time shapes
};

// The Relax expression of `v`, emitting what it takes (a Constant for known contents, a
// shape_to_tensor of symbolic ones); cached in `v`.
relax::Expr Materialize(Value& v, relax::BlockBuilder& builder);
// The struct info `v` has or would have once materialized.
relax::StructInfo ValueInfo(const Value& v);

class NodeContext {
 public:
  NodeContext(const OnnxNode& node, int64_t opset, int64_t version, ImportState state)
      : node_(node), opset_(opset), version_(version), state_(state) {}

  const OnnxNode& node() const { return node_; }
  // The model's opset of ai.onnx.
  int64_t opset() const { return opset_; }
  // The schema version of the node's op that the opset selects (schema_versions.h): what
  // decides the op's inputs, attributes and semantics.
  int64_t version() const { return version_; }

  // ---- Inputs (an omitted optional input has an empty name) --------------------------------
  size_t num_inputs() const { return node_.inputs.size(); }
  bool HasInput(size_t i) const { return i < node_.inputs.size() && !node_.inputs[i].empty(); }
  // Fails (kParse) when input `i` is missing.
  Value& InputValue(size_t i);
  relax::Expr Input(size_t i);
  relax::StructInfo InputInfo(size_t i);
  // Input `i` as a tensor (fails otherwise).
  const relax::TensorStructInfoNode* InputTensor(size_t i);
  DataType InputDType(size_t i);
  // The rank; Unsupported when it is not known at import time.
  int InputRank(size_t i);
  std::optional<std::vector<PrimExpr>> InputShape(size_t i);
  // The shape; Unsupported (naming `why`) when it is not known at import time.
  std::vector<PrimExpr> RequireShape(size_t i);

  // Contents known at import time: integer elements (maybe symbolic), or a constant tensor.
  // Known is for integer and bool tensors only; KnownIntegers also gives a float tensor whose
  // elements are integers (a shape cast to float, a constant such as 0.0 or 1.0), as the dims
  // its elements equal.
  std::optional<SymTensor> Known(size_t i);
  std::optional<SymTensor> KnownIntegers(size_t i);
  std::optional<HostTensor> Constant(size_t i);
  std::optional<std::vector<int64_t>> ConstInts(size_t i);
  // Unsupported (RequireKnown) otherwise.
  std::vector<int64_t> RequireConstInts(size_t i, const std::string& what);
  // Unsupported: input `i` (<what>) must be known at import time. When it is a graph input,
  // the message says so and the importer lists it in OnnxImportResult::inputs_needed_at_import.
  [[noreturn]] void RequireKnown(size_t i, const std::string& what);
  // Input `i` decides a shape at run time (a Reshape target not known at import time): when it
  // is a graph input, the importer lists it in OnnxImportResult::inputs_shaping_at_run_time.
  void NoteRuntimeShape(size_t i);
  // RequireKnown for all of `inputs` (index, what) at once: every present one whose contents
  // are not known is listed, so a caller binds them all in one go.
  void RequireAllKnown(const std::vector<std::pair<size_t, std::string>>& inputs);
  // A one-element constant as a double.
  std::optional<double> ConstScalar(size_t i);
  // True when every present input's contents are known integers (so the node can be
  // evaluated on SymTensors).
  bool AllInputsKnown();

  // ---- Attributes (each read marks the attribute as handled) ---------------------------------
  bool HasAttr(const std::string& name) const;
  const OnnxAttribute* Attr(const std::string& name);
  int64_t Int(const std::string& name, int64_t default_value);
  std::optional<int64_t> OptInt(const std::string& name);
  // A float attribute as the double of its shortest decimal form (epsilon=1e-5f reads 1e-5),
  // which is what the exporter meant.
  double Float(const std::string& name, double default_value);
  std::string String(const std::string& name, const std::string& default_value);
  std::vector<int64_t> Ints(const std::string& name, std::vector<int64_t> default_value = {});
  std::optional<std::vector<int64_t>> OptInts(const std::string& name);
  std::vector<float> Floats(const std::string& name, std::vector<float> default_value = {});
  // A tensor attribute; fails when it could not be decoded.
  std::optional<HostTensor> Tensor(const std::string& name);
  // Marks attributes that do not change the result (documentation-only, training-only, ...).
  void Ignore(const std::string& name) { used_.insert(name); }
  // Attributes the converter never read.
  std::vector<std::string> UnusedAttributes() const;

  // ---- Dims the node needs equal ------------------------------------------------------------
  // An operand of a dim check: a tensor expression, named in messages by `label` ("input 1").
  // An operand without an expression stands for dims the node fixes (Expand's target shape):
  // it is never cast, so its dims are preferred as the representative.
  struct Operand {
    Operand(relax::Expr e, std::string l) : expr(std::move(e)), label(std::move(l)) {}
    static Operand Fixed(std::string label, std::vector<PrimExpr> dims) {
      Operand o(relax::Expr(), std::move(label));
      o.fixed_dims = std::move(dims);
      return o;
    }
    relax::Expr expr;
    std::string label;
    std::vector<PrimExpr> fixed_dims;  // when `expr` is undefined
  };
  // Slots (operand, axis) whose dims the node needs equal; with `broadcast`, a dim that is
  // provably 1 stretches to the others instead (numpy broadcasting).
  struct DimGroup {
    std::vector<std::pair<size_t, int>> slots;
    bool broadcast = false;
  };
  // `operands` brought into agreement over `groups`. Dims provably equal (or provably 1 where
  // broadcasting) are left alone; dims provably different (768 vs 512) are an Invalid error
  // naming both operands and shapes; for any other pair a representative is picked (the
  // simplest dim: fewest operations, a constant before a variable, then the earlier operand)
  // and every other operand of the group is cast to it with a match_cast whose note names
  // this node: "ONNX node 614 'p2o.Add.249' (Add): input 1 must match input 0", so that the
  // run-time check says which node needed what. Operands of unknown shape pass as they are.
  // Returns the operands' expressions, cast where needed.
  std::vector<relax::Expr> AgreeDims(const std::vector<Operand>& operands,
                                     const std::vector<DimGroup>& groups);
  // AgreeDims for numpy (multidirectional) broadcasting of `operands`, aligned on the last dim.
  std::vector<relax::Expr> Broadcast(const std::vector<Operand>& operands);
  // Broadcast of the node's inputs `inputs`, labelled "input i".
  std::vector<relax::Expr> BroadcastInputs(const std::vector<size_t>& inputs);

  // ---- Building ----------------------------------------------------------------------------
  // Binds a call, tuple or projection to a new variable; other expressions are returned as is.
  relax::Expr Emit(const relax::Expr& e);
  // Emit(relax::Call(op, args, attrs)).
  relax::Expr Call(const std::string& op, std::vector<relax::Expr> args,
                   relax::Attrs attrs = relax::Attrs());
  // A 0-d constant.
  relax::Expr Scalar(double value, DataType dtype);
  relax::Expr Materialize(Value& v);
  relax::BlockBuilder& builder() { return *state_.builder; }

  // ---- Failing -----------------------------------------------------------------------------
  // kUnsupported: a valid node Kiln cannot convert (the importer adds the node).
  [[noreturn]] void Unsupported(const std::string& reason) const;
  // kParse: the node breaks the op's specification.
  [[noreturn]] void Invalid(const std::string& reason) const;

 private:
  const OnnxAttribute* FindAttr(const std::string& name, OnnxAttribute::Type type);

  const OnnxNode& node_;
  int64_t opset_;
  int64_t version_;
  ImportState state_;
  std::set<std::string> used_;
};

using ConvertFn = Outputs (*)(NodeContext& ctx);

struct ConverterEntry {
  std::string op_type;
  int64_t min_version = 1;
  int64_t max_version = kBaseMaxVersion;
  ConvertFn fn = nullptr;
};

// What ConverterTable::Find made of a node's op: its schema version, and why there is no
// converter when there is none (kUnsupported, or kParse for an op the opset does not have).
struct ConverterLookup {
  const ConverterEntry* entry = nullptr;
  int64_t version = 0;
  ErrorKind kind = ErrorKind::kUnsupported;
  std::string why;
};

class ConverterTable {
 public:
  static const ConverterTable& Global();
  // `fn` converts the schema versions [min_version, max_version] of `op_type`.
  void Add(const std::string& op_type, int64_t min_version, ConvertFn fn,
           int64_t max_version = kBaseMaxVersion);
  // An op Kiln knows it cannot convert, and why.
  void AddUnsupported(const std::string& op_type, const std::string& reason);
  // The converter for the version of `op_type` that `opset` selects.
  ConverterLookup Find(const std::string& op_type, int64_t opset) const;
  std::vector<std::string> OpTypes() const;
  // The newest schema version of `op_type` some converter implements (0 when none does).
  int64_t MaxVersion(const std::string& op_type) const;

 private:
  std::map<std::string, std::vector<ConverterEntry>> entries_;
  std::map<std::string, std::string> unsupported_;
};

// One per convert_*.cc.
void RegisterElementwiseConverters(ConverterTable& table);
void RegisterLinalgConverters(ConverterTable& table);
void RegisterNNConverters(ConverterTable& table);
void RegisterPoolConverters(ConverterTable& table);
void RegisterReduceConverters(ConverterTable& table);
void RegisterManipulateConverters(ConverterTable& table);
void RegisterShapeConverters(ConverterTable& table);
void RegisterLossConverters(ConverterTable& table);
void RegisterQuantizeConverters(ConverterTable& table);
void RegisterResizeConverters(ConverterTable& table);
void RegisterAttentionConverters(ConverterTable& table);

// Shared helpers for converters.
// `axis` in [-rank, rank) normalized, or Invalid naming `what`.
int NormalizeAxis(const NodeContext& ctx, int64_t axis, int rank, const char* what = "axis");
relax::Attrs AxisAttrs(const std::vector<int64_t>& axes, bool keepdims);
// x reshaped to `dims` (a Relax reshape to a ShapeExpr).
relax::Expr ReshapeTo(NodeContext& ctx, const relax::Expr& x, const std::vector<PrimExpr>& dims);
// `x` reversed along `axis` (a strided_slice with step -1).
relax::Expr Reverse(NodeContext& ctx, const relax::Expr& x, int axis);
// The dims of tensor `e` when every one is a constant; empty otherwise.
std::vector<int64_t> StaticShape(const relax::Expr& e);
// The call a variable of the function being built is bound to; null for anything else (the
// patterns recognised across nodes: a GNN aggregation, a masked attention).
const relax::CallNode* BoundCall(NodeContext& ctx, const relax::Expr& e);
// The name of a dtype for messages ("float32").
std::string DTypeName(DataType dtype);
// Unsupported unless input `i` has a floating-point dtype.
void RequireFloatInput(NodeContext& ctx, size_t i);
// 16-bit floats (float16, bfloat16) are stored at 16 bits and computed at 32: an op that sums
// (MatMul, Conv, Softmax) accumulates in float32 and rounds its result once, as ONNX Runtime's
// kernels and ONNX's reference do; summing at 16 bits loses a bit every few terms.
bool Is16BitFloat(DataType dtype);
// `x` cast to `dtype` (Relax's astype).
relax::Expr AsType(NodeContext& ctx, const relax::Expr& x, DataType dtype);

}  // namespace kiln::ir::frontend::onnx
