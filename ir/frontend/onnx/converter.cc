// NodeContext (inputs, attributes, emission), materialization of values known at import time,
// and the converter table.
#include "ir/frontend/onnx/converter.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "ir/frontend/onnx/schema_versions.h"
#include "ir/functor.h"

namespace kiln::ir::frontend::onnx {

using relax::Expr;
using relax::StructInfo;

relax::Expr Materialize(Value& v, relax::BlockBuilder& builder) {
  if (v.expr.defined()) return v.expr;
  if (v.constant) {
    v.expr = relax::Constant(*v.constant);
    return v.expr;
  }
  KILN_CHECK(v.known.has_value(), ErrorKind::kInternal,
             "onnx import: materializing an empty value");
  const SymTensor& s = *v.known;
  if (s.IsConstant()) {
    v.constant = s.ToHostTensor();
    v.expr = relax::Constant(*v.constant);
    return v.expr;
  }
  // Symbolic elements: a shape value turned into an int64 tensor, then shaped and cast.
  Expr e = builder.Emit(relax::Call("shape_to_tensor", {relax::ShapeExpr(s.elems)}));
  if (s.rank() != 1) {
    std::vector<PrimExpr> dims;
    for (int64_t d : s.shape) dims.push_back(relax::DimConst(d));
    e = builder.Emit(relax::Call("reshape", {e, relax::ShapeExpr(dims)}));
  }
  if (s.dtype != DataType::Int(64)) {
    e = builder.Emit(relax::Call("astype", {e}, relax::Attrs().Set("dtype", s.dtype)));
  }
  v.expr = e;
  return e;
}

StructInfo ValueInfo(const Value& v) {
  if (v.expr.defined()) return v.expr.struct_info();
  auto info = [](const std::vector<int64_t>& shape, DataType dtype) {
    std::vector<PrimExpr> dims;
    for (int64_t d : shape) dims.push_back(relax::DimConst(d));
    return relax::TensorStructInfo(dims, dtype);
  };
  if (v.constant) return info(v.constant->shape(), v.constant->dtype());
  if (v.known) return info(v.known->shape, v.known->dtype);
  return StructInfo();
}

// ---- NodeContext: inputs ----------------------------------------------------------------------

Value& NodeContext::InputValue(size_t i) {
  if (!HasInput(i)) {
    Invalid("input " + std::to_string(i) + " is required but missing (the node has " +
            std::to_string(node_.inputs.size()) + " inputs)");
  }
  auto it = state_.values->find(node_.inputs[i]);
  KILN_CHECK(it != state_.values->end(), ErrorKind::kInternal,
             "onnx import: input '" + node_.inputs[i] + "' has no value");
  return it->second;
}

Expr NodeContext::Input(size_t i) { return Materialize(InputValue(i)); }

StructInfo NodeContext::InputInfo(size_t i) { return ValueInfo(InputValue(i)); }

const relax::TensorStructInfoNode* NodeContext::InputTensor(size_t i) {
  Value& v = InputValue(i);
  if (!v.expr.defined()) Materialize(v);
  const auto* t = v.expr.struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr) {
    Invalid("input " + std::to_string(i) + " '" + node_.inputs[i] +
            "' is not a tensor: " + v.expr.struct_info().ToString());
  }
  return t;
}

DataType NodeContext::InputDType(size_t i) {
  Value& v = InputValue(i);
  if (v.constant) return v.constant->dtype();
  if (v.known) return v.known->dtype;
  DataType d = InputTensor(i)->dtype;
  if (d.is_void()) Unsupported("the dtype of input " + std::to_string(i) + " is not known");
  return d;
}

int NodeContext::InputRank(size_t i) {
  Value& v = InputValue(i);
  if (v.constant) return static_cast<int>(v.constant->shape().size());
  if (v.known) return v.known->rank();
  const relax::TensorStructInfoNode* t = InputTensor(i);
  if (t->unknown_ndim()) {
    Unsupported("the rank of input " + std::to_string(i) + " '" + node_.inputs[i] +
                "' is not known at import time");
  }
  return t->ndim;
}

std::optional<std::vector<PrimExpr>> NodeContext::InputShape(size_t i) {
  StructInfo info = ValueInfo(InputValue(i));
  const auto* t = info.as<relax::TensorStructInfoNode>();
  if (t == nullptr) InputTensor(i);  // fails with the message
  return t->shape;
}

std::vector<PrimExpr> NodeContext::RequireShape(size_t i) {
  auto shape = InputShape(i);
  if (!shape) {
    Unsupported("the shape of input " + std::to_string(i) + " '" + node_.inputs[i] +
                "' is not known at import time");
  }
  return *shape;
}

std::optional<SymTensor> NodeContext::Known(size_t i) {
  Value& v = InputValue(i);
  if (v.known) return v.known->dtype.is_float() ? std::nullopt : v.known;
  if (v.constant) return SymTensor::FromHostTensor(*v.constant);
  if (const auto* c = v.expr.as<relax::ConstantNode>()) return SymTensor::FromHostTensor(c->data);
  return std::nullopt;
}

std::optional<SymTensor> NodeContext::KnownIntegers(size_t i) {
  Value& v = InputValue(i);
  if (v.known) return v.known;
  std::optional<HostTensor> c = Constant(i);
  if (!c || !c->dtype().is_float() || c->numel() > kMaxKnownElements) return Known(i);
  SymTensor s;
  s.dtype = c->dtype();
  s.shape = c->shape();
  for (int64_t k = 0; k < c->numel(); ++k) {
    double x = c->GetDouble(k);
    // Integers of shape arithmetic only: far from where a double stops being exact.
    if (!(std::abs(x) <= 1e15) || x != std::floor(x)) return std::nullopt;
    s.elems.push_back(relax::DimConst(static_cast<int64_t>(x)));
  }
  return s;
}

std::optional<HostTensor> NodeContext::Constant(size_t i) {
  Value& v = InputValue(i);
  if (v.constant) return v.constant;
  if (v.known && v.known->IsConstant()) return v.known->ToHostTensor();
  if (const auto* c = v.expr.as<relax::ConstantNode>()) return c->data;
  return std::nullopt;
}

std::optional<std::vector<int64_t>> NodeContext::ConstInts(size_t i) {
  if (auto k = Known(i)) return k->ConstValues();
  return std::nullopt;
}

std::vector<int64_t> NodeContext::RequireConstInts(size_t i, const std::string& what) {
  auto values = ConstInts(i);
  if (!values) {
    if (HasInput(i) && !InputDType(i).is_integral()) {
      Invalid("input " + std::to_string(i) + " (" + what + ") must be an integer tensor, got " +
              DTypeName(InputDType(i)));
    }
    RequireKnown(i, what);
  }
  return *values;
}

void NodeContext::NoteRuntimeShape(size_t i) {
  const std::string& name = node_.inputs.at(i);
  if (state_.graph_inputs != nullptr && state_.shaping_inputs != nullptr &&
      state_.graph_inputs->count(name) != 0) {
    state_.shaping_inputs->insert(name);
  }
}

void NodeContext::RequireAllKnown(const std::vector<std::pair<size_t, std::string>>& inputs) {
  std::vector<std::pair<size_t, std::string>> missing;
  for (const auto& [i, what] : inputs) {
    if (HasInput(i) && !Known(i) && !Constant(i)) missing.emplace_back(i, what);
  }
  if (missing.empty()) return;
  for (size_t k = 1; k < missing.size(); ++k) {
    const std::string& name = node_.inputs[missing[k].first];
    if (state_.graph_inputs != nullptr && state_.needed_inputs != nullptr &&
        state_.graph_inputs->count(name) != 0) {
      state_.needed_inputs->insert(name);
    }
  }
  RequireKnown(missing[0].first, missing[0].second);
}

void NodeContext::RequireKnown(size_t i, const std::string& what) {
  const std::string& name = node_.inputs.at(i);
  if (state_.graph_inputs != nullptr && state_.graph_inputs->count(name) != 0) {
    if (state_.needed_inputs != nullptr) state_.needed_inputs->insert(name);
    Unsupported("input " + std::to_string(i) + " (" + what + ") is the graph input '" + name +
                "', whose value must be known at import time (give it with "
                "ImportOptions::input_values)");
  }
  Unsupported("input " + std::to_string(i) + " (" + what + ") '" + name +
              "' must be known at import time, but it is computed at run time");
}

std::optional<double> NodeContext::ConstScalar(size_t i) {
  auto c = Constant(i);
  if (!c || c->numel() != 1) return std::nullopt;
  return c->GetDouble(0);
}

bool NodeContext::AllInputsKnown() {
  for (size_t i = 0; i < node_.inputs.size(); ++i) {
    if (HasInput(i) && !Known(i)) return false;
  }
  return true;
}

// ---- NodeContext: attributes ------------------------------------------------------------------

bool NodeContext::HasAttr(const std::string& name) const {
  return std::any_of(node_.attributes.begin(), node_.attributes.end(),
                     [&](const OnnxAttribute& a) { return a.name == name; });
}

const OnnxAttribute* NodeContext::Attr(const std::string& name) {
  used_.insert(name);
  for (const OnnxAttribute& a : node_.attributes) {
    if (a.name != name) continue;
    if (!a.ref_attr_name.empty()) {
      Unsupported("attribute '" + name + "' refers to a function attribute");
    }
    return &a;
  }
  return nullptr;
}

const OnnxAttribute* NodeContext::FindAttr(const std::string& name, OnnxAttribute::Type type) {
  const OnnxAttribute* a = Attr(name);
  if (a == nullptr) return nullptr;
  if (a->type != type) {
    Invalid(std::string("attribute '") + name + "' must be of type " + OnnxAttributeTypeName(type) +
            ", got " + OnnxAttributeTypeName(a->type));
  }
  return a;
}

int64_t NodeContext::Int(const std::string& name, int64_t default_value) {
  return OptInt(name).value_or(default_value);
}

std::optional<int64_t> NodeContext::OptInt(const std::string& name) {
  const OnnxAttribute* a = FindAttr(name, OnnxAttribute::Type::kInt);
  if (a == nullptr) return std::nullopt;
  return a->i;
}

double NodeContext::Float(const std::string& name, double default_value) {
  const OnnxAttribute* a = FindAttr(name, OnnxAttribute::Type::kFloat);
  if (a == nullptr) return default_value;
  if (!std::isfinite(a->f)) return a->f;
  char text[32];
  for (int digits = 1; digits <= 9; ++digits) {
    std::snprintf(text, sizeof(text), "%.*g", digits, static_cast<double>(a->f));
    if (std::strtof(text, nullptr) == a->f) return std::strtod(text, nullptr);
  }
  return a->f;
}

std::string NodeContext::String(const std::string& name, const std::string& default_value) {
  const OnnxAttribute* a = FindAttr(name, OnnxAttribute::Type::kString);
  return a == nullptr ? default_value : a->s;
}

std::vector<int64_t> NodeContext::Ints(const std::string& name,
                                       std::vector<int64_t> default_value) {
  return OptInts(name).value_or(std::move(default_value));
}

std::optional<std::vector<int64_t>> NodeContext::OptInts(const std::string& name) {
  const OnnxAttribute* a = FindAttr(name, OnnxAttribute::Type::kInts);
  if (a == nullptr) return std::nullopt;
  return a->ints;
}

std::vector<float> NodeContext::Floats(const std::string& name, std::vector<float> default_value) {
  const OnnxAttribute* a = FindAttr(name, OnnxAttribute::Type::kFloats);
  return a == nullptr ? std::move(default_value) : a->floats;
}

std::optional<HostTensor> NodeContext::Tensor(const std::string& name) {
  const OnnxAttribute* a = FindAttr(name, OnnxAttribute::Type::kTensor);
  if (a == nullptr) return std::nullopt;
  if (!a->tensor || !a->tensor->value) {
    throw Error(a->tensor ? a->tensor->error_kind : ErrorKind::kParse,
                a->tensor ? a->tensor->error : "attribute '" + name + "' holds no tensor");
  }
  return a->tensor->value;
}

std::vector<std::string> NodeContext::UnusedAttributes() const {
  std::vector<std::string> unused;
  for (const OnnxAttribute& a : node_.attributes) {
    if (used_.count(a.name) == 0) unused.push_back(a.name);
  }
  return unused;
}

// ---- NodeContext: dims the node needs equal -----------------------------------------------------

namespace {

// Counts the operations of a dim expression (a variable or constant has none).
class OpCounter : public ir::IRVisitor {
 public:
  int count = 0;
  void VisitExpr(const PrimExpr& e) override {
    if (e.as<ir::VarNode>() == nullptr && !AsConstInt(e)) ++count;
    ir::IRVisitor::VisitExpr(e);
  }
};

// How complex a dim is, for picking the representative of dims that must agree: fewer
// operations first, and a constant before a variable.
int DimCost(const PrimExpr& dim) {
  if (AsConstInt(dim)) return 0;
  OpCounter counter;
  counter.VisitExpr(dim);
  return 1 + 2 * counter.count;
}

}  // namespace

std::vector<Expr> NodeContext::AgreeDims(const std::vector<Operand>& operands,
                                         const std::vector<DimGroup>& groups) {
  size_t n = operands.size();
  std::vector<std::optional<std::vector<PrimExpr>>> shapes(n);
  std::vector<DataType> dtypes(n, DataType::Void());
  for (size_t i = 0; i < n; ++i) {
    if (!operands[i].expr.defined()) {
      shapes[i] = operands[i].fixed_dims;
      continue;
    }
    if (const auto* t = operands[i].expr.struct_info().as<relax::TensorStructInfoNode>()) {
      shapes[i] = t->shape;
      dtypes[i] = t->dtype;
    }
  }
  std::vector<std::optional<std::vector<PrimExpr>>> target = shapes;
  std::vector<std::vector<size_t>> matched_to(n);  // the operands whose dims each one takes
  for (const DimGroup& group : groups) {
    struct Member {
      size_t operand;
      int axis;
      PrimExpr dim;
    };
    std::vector<Member> members;
    for (auto [operand, axis] : group.slots) {
      if (operand >= n || !shapes[operand]) continue;
      KILN_CHECK(axis >= 0 && static_cast<size_t>(axis) < shapes[operand]->size(),
                 ErrorKind::kInternal, "NodeContext::AgreeDims: axis out of range");
      const PrimExpr& dim = (*shapes[operand])[axis];
      if (group.broadcast && IsConstInt(dim, 1)) continue;
      members.push_back({operand, axis, dim});
    }
    if (members.size() < 2) continue;
    // Fixed dims first (they cannot be cast), then the simplest, then the earliest slot.
    const Member* rep = &members[0];
    auto key = [&](const Member& m) {
      return std::make_pair(operands[m.operand].expr.defined() ? 1 : 0, DimCost(m.dim));
    };
    for (const Member& m : members) {
      if (key(m) < key(*rep)) rep = &m;
    }
    for (const Member& m : members) {
      if (&m == rep || relax::ProveDimEqual(m.dim, rep->dim)) continue;
      // Dims that can never agree are left for the op's own check, which names them; a fixed
      // operand cannot be cast.
      if (relax::ProveDimNotEqual(m.dim, rep->dim) || !operands[m.operand].expr.defined()) {
        continue;
      }
      (*target[m.operand])[m.axis] = rep->dim;
      std::vector<size_t>& to = matched_to[m.operand];
      if (std::find(to.begin(), to.end(), rep->operand) == to.end()) to.push_back(rep->operand);
    }
  }
  std::vector<Expr> out;
  for (size_t i = 0; i < n; ++i) {
    out.push_back(operands[i].expr);
    if (matched_to[i].empty()) continue;
    std::vector<size_t>& to = matched_to[i];
    std::sort(to.begin(), to.end());
    std::string whom;
    for (size_t k = 0; k < to.size(); ++k) {
      whom += (k == 0 ? "" : k + 1 == to.size() ? " and " : ", ") + operands[to[k]].label;
    }
    std::string note =
        "ONNX " + node_.Describe() + ": " + operands[i].label + " must match " + whom;
    out.back() = state_.builder->EmitMatchCast(
        operands[i].expr, relax::TensorStructInfo(*target[i], dtypes[i]), "matched", note);
  }
  return out;
}

std::vector<Expr> NodeContext::Broadcast(const std::vector<Operand>& operands) {
  std::vector<int> ranks;
  int rank = 0;
  for (const Operand& o : operands) {
    int r = -1;
    if (!o.expr.defined()) {
      r = static_cast<int>(o.fixed_dims.size());
    } else if (const auto* t = o.expr.struct_info().as<relax::TensorStructInfoNode>()) {
      r = t->ndim;
    }
    ranks.push_back(r);
    rank = std::max(rank, r);
  }
  std::vector<DimGroup> groups;
  for (int k = 1; k <= rank; ++k) {
    DimGroup group;
    group.broadcast = true;
    for (size_t i = 0; i < operands.size(); ++i) {
      if (ranks[i] >= k) group.slots.emplace_back(i, ranks[i] - k);
    }
    groups.push_back(std::move(group));
  }
  return AgreeDims(operands, groups);
}

std::vector<Expr> NodeContext::BroadcastInputs(const std::vector<size_t>& inputs) {
  std::vector<Operand> operands;
  for (size_t i : inputs) operands.emplace_back(Input(i), "input " + std::to_string(i));
  return Broadcast(operands);
}

// ---- NodeContext: building and failing --------------------------------------------------------

Expr NodeContext::Emit(const Expr& e) {
  switch (e.kind()) {
    case relax::ExprKind::kCall:
    case relax::ExprKind::kTuple:
    case relax::ExprKind::kTupleGetItem:
      return state_.builder->Emit(e);
    default:
      return e;
  }
}

Expr NodeContext::Call(const std::string& op, std::vector<Expr> args, relax::Attrs attrs) {
  return Emit(relax::Call(op, std::move(args), std::move(attrs)));
}

Expr NodeContext::Scalar(double value, DataType dtype) {
  HostTensor t(dtype, {});
  t.SetDouble(0, value);
  return relax::Constant(t);
}

Expr NodeContext::Materialize(Value& v) {
  return ::kiln::ir::frontend::onnx::Materialize(v, *state_.builder);
}

void NodeContext::Unsupported(const std::string& reason) const {
  throw Error(ErrorKind::kUnsupported, reason);
}

void NodeContext::Invalid(const std::string& reason) const {
  throw Error(ErrorKind::kParse, reason);
}

// ---- Shared helpers ---------------------------------------------------------------------------

int NormalizeAxis(const NodeContext& ctx, int64_t axis, int rank, const char* what) {
  if (axis < -rank || axis >= rank) {
    ctx.Invalid(std::string(what) + " " + std::to_string(axis) + " is out of range for a " +
                std::to_string(rank) + "-D tensor");
  }
  return static_cast<int>(axis < 0 ? axis + rank : axis);
}

relax::Attrs AxisAttrs(const std::vector<int64_t>& axes, bool keepdims) {
  relax::Attrs attrs;
  attrs.Set("axis", axes);
  attrs.Set("keepdims", keepdims);
  return attrs;
}

std::vector<int64_t> StaticShape(const Expr& e) {
  const auto* t = e.struct_info().as<relax::TensorStructInfoNode>();
  if (t == nullptr || !t->shape) return {};
  std::vector<int64_t> dims;
  for (const PrimExpr& d : *t->shape) {
    auto v = AsConstInt(d);
    if (!v) return {};
    dims.push_back(*v);
  }
  return dims;
}

const relax::CallNode* BoundCall(NodeContext& ctx, const Expr& e) {
  if (e.as<relax::VarNode>() == nullptr) return nullptr;
  Expr value = ctx.builder().LookupBinding(relax::Var(e.ptr()));
  return value.defined() ? value.as<relax::CallNode>() : nullptr;
}

Expr ReshapeTo(NodeContext& ctx, const Expr& x, const std::vector<PrimExpr>& dims) {
  return ctx.Call("reshape", {x, relax::ShapeExpr(dims)});
}

Expr Reverse(NodeContext& ctx, const Expr& x, int axis) {
  // From the last element to before the first, whatever the dim (symbolic ones too).
  relax::Attrs attrs;
  attrs.Set("axes", {axis})
      .Set("begin", {-1})
      .Set("end", {-std::numeric_limits<int64_t>::max()})
      .Set("strides", {-1});
  return ctx.Call("strided_slice", {x}, attrs);
}

std::string DTypeName(DataType dtype) { return dtype.ToString(); }

void RequireFloatInput(NodeContext& ctx, size_t i) {
  DataType d = ctx.InputDType(i);
  if (!d.is_float()) {
    ctx.Unsupported("input " + std::to_string(i) + " has dtype " + DTypeName(d) +
                    "; this op is supported for floating-point tensors only");
  }
}

bool Is16BitFloat(DataType dtype) { return dtype.is_float() && dtype.bits() == 16; }

relax::Expr AsType(NodeContext& ctx, const relax::Expr& x, DataType dtype) {
  return ctx.Call("astype", {x}, relax::Attrs().Set("dtype", dtype));
}

// ---- ConverterTable ---------------------------------------------------------------------------

const ConverterTable& ConverterTable::Global() {
  static const ConverterTable* table = [] {
    auto* t = new ConverterTable();
    RegisterElementwiseConverters(*t);
    RegisterLinalgConverters(*t);
    RegisterNNConverters(*t);
    RegisterPoolConverters(*t);
    RegisterReduceConverters(*t);
    RegisterManipulateConverters(*t);
    RegisterShapeConverters(*t);
    RegisterLossConverters(*t);
    RegisterQuantizeConverters(*t);
    RegisterResizeConverters(*t);
    RegisterAttentionConverters(*t);
    return t;
  }();
  return *table;
}

void ConverterTable::Add(const std::string& op_type, int64_t min_version, ConvertFn fn,
                         int64_t max_version) {
  KILN_CHECK(min_version <= max_version, ErrorKind::kInternal,
             "onnx converter for " + op_type + ": versions " + std::to_string(min_version) +
                 " to " + std::to_string(max_version) + " are an empty range");
  entries_[op_type].push_back(ConverterEntry{op_type, min_version, max_version, fn});
}

void ConverterTable::AddUnsupported(const std::string& op_type, const std::string& reason) {
  unsupported_[op_type] = reason;
}

namespace {

// "1, 11 and 13": the schema versions of `op_type` in [lo, hi].
std::string VersionList(const std::string& op_type, int64_t lo, int64_t hi) {
  std::vector<int64_t> listed;
  if (const std::vector<int64_t>* versions = OnnxSchemaVersions(op_type)) {
    for (int64_t v : *versions) {
      if (lo <= v && v <= hi) listed.push_back(v);
    }
  }
  std::string text;
  for (size_t i = 0; i < listed.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == listed.size() ? " and " : ", ") + std::to_string(listed[i]);
  }
  return text;
}

}  // namespace

ConverterLookup ConverterTable::Find(const std::string& op_type, int64_t opset) const {
  ConverterLookup lookup;
  auto unsupported = unsupported_.find(op_type);
  const std::vector<int64_t>* versions = OnnxSchemaVersions(op_type);
  if (versions == nullptr) {
    lookup.why = unsupported != unsupported_.end()
                     ? op_type + " is not supported: " + unsupported->second
                     : "no converter for op " + op_type + " (ai.onnx has no such operator)";
    return lookup;
  }
  std::optional<int64_t> version = OnnxSchemaVersion(op_type, opset);
  if (!version) {
    lookup.kind = ErrorKind::kParse;
    lookup.why = op_type + " does not exist at opset " + std::to_string(opset) +
                 " of ai.onnx: its first version is " + std::to_string(versions->front());
    return lookup;
  }
  lookup.version = *version;
  auto it = entries_.find(op_type);
  if (it != entries_.end()) {
    for (const ConverterEntry& e : it->second) {
      if (e.min_version <= *version && *version <= e.max_version) {
        lookup.entry = &e;
        return lookup;
      }
    }
  }
  std::string used =
      op_type + " version " + std::to_string(*version) + " (opset " + std::to_string(opset) + ")";
  if (unsupported != unsupported_.end()) {
    lookup.why = op_type + " is not supported: " + unsupported->second;
  } else if (it == entries_.end()) {
    lookup.why = "no converter for op " + op_type;
  } else {
    std::string implemented;
    for (const ConverterEntry& e : it->second) {
      std::string list = VersionList(op_type, e.min_version, e.max_version);
      if (!list.empty()) implemented += (implemented.empty() ? "" : ", ") + list;
    }
    bool newer = *version > MaxVersion(op_type);
    lookup.why = used + " is not supported: Kiln implements " + op_type +
                 (implemented.find(' ') == std::string::npos ? " version " : " versions ") +
                 implemented +
                 (newer ? ", and the model's version changed the op's semantics"
                        : ", and the model's older version has other semantics");
  }
  return lookup;
}

int64_t ConverterTable::MaxVersion(const std::string& op_type) const {
  int64_t newest = 0;
  auto it = entries_.find(op_type);
  if (it == entries_.end()) return 0;
  const std::vector<int64_t>* versions = OnnxSchemaVersions(op_type);
  for (const ConverterEntry& e : it->second) {
    for (int64_t v : versions ? *versions : std::vector<int64_t>{}) {
      if (e.min_version <= v && v <= e.max_version) newest = std::max(newest, v);
    }
  }
  return newest;
}

std::vector<std::string> ConverterTable::OpTypes() const {
  std::vector<std::string> ops;
  for (const auto& [op, entries] : entries_) ops.push_back(op);
  return ops;
}

}  // namespace kiln::ir::frontend::onnx
