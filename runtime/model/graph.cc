// The compiled graph's JSON form and its validation.
#include "runtime/model/graph.h"

#include <limits>
#include <set>

#include "support/error.h"

namespace kiln::runtime::model {
namespace {

using nlohmann::json;

// Bounds on what a graph may claim, so that a hostile file cannot make the loader allocate or
// recurse without limit. Real models are far below them.
constexpr size_t kMaxEntries = 1 << 20;
constexpr size_t kMaxRank = 32;
constexpr int kMaxDimDepth = 32;

const char* OpName(DimExpr::Op op) {
  switch (op) {
    case DimExpr::Op::kAdd:
      return "+";
    case DimExpr::Op::kSub:
      return "-";
    case DimExpr::Op::kMul:
      return "*";
    case DimExpr::Op::kFloorDiv:
      return "//";
    case DimExpr::Op::kFloorMod:
      return "%";
    case DimExpr::Op::kMin:
      return "min";
    case DimExpr::Op::kMax:
      return "max";
    case DimExpr::Op::kConst:
    case DimExpr::Op::kVar:
      break;
  }
  return "?";
}

const std::map<std::string, DimExpr::Op>& OpsByName() {
  static const std::map<std::string, DimExpr::Op> ops = {
      {"+", DimExpr::Op::kAdd},       {"-", DimExpr::Op::kSub},      {"*", DimExpr::Op::kMul},
      {"//", DimExpr::Op::kFloorDiv}, {"%", DimExpr::Op::kFloorMod}, {"min", DimExpr::Op::kMin},
      {"max", DimExpr::Op::kMax}};
  return ops;
}

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kParse, "graph.json: " + where + ": " + what);
}

// JSON accessors that name the field on a fault instead of throwing json's exceptions.
const json& Field(const json& object, const char* key, const std::string& where) {
  if (!object.is_object()) Fail(where, "an object expected");
  auto it = object.find(key);
  if (it == object.end()) Fail(where, std::string("field '") + key + "' missing");
  return *it;
}

int64_t Int(const json& v, const std::string& where) {
  if (!v.is_number_integer()) Fail(where, "an integer expected");
  return v.get<int64_t>();
}

uint64_t Unsigned(const json& v, const std::string& where) {
  if (!v.is_number_unsigned() && !(v.is_number_integer() && v.get<int64_t>() >= 0)) {
    Fail(where, "a non-negative integer expected");
  }
  return v.get<uint64_t>();
}

std::string String(const json& v, const std::string& where) {
  if (!v.is_string()) Fail(where, "a string expected");
  return v.get<std::string>();
}

const json& Array(const json& v, const std::string& where) {
  if (!v.is_array()) Fail(where, "an array expected");
  if (v.size() > kMaxEntries) Fail(where, "more than " + std::to_string(kMaxEntries) + " entries");
  return v;
}

int64_t Index(const json& v, size_t size, const std::string& where) {
  int64_t i = Int(v, where);
  if (i < 0 || static_cast<size_t>(i) >= size) {
    Fail(where, "index " + std::to_string(i) + " out of range [0, " + std::to_string(size) + ")");
  }
  return i;
}

json DimToJson(const DimExpr& e) {
  switch (e.op) {
    case DimExpr::Op::kConst:
      return e.value;
    case DimExpr::Op::kVar:
      return e.var;
    default:
      return json::array({OpName(e.op), DimToJson(e.operands.at(0)), DimToJson(e.operands.at(1))});
  }
}

DimExpr DimFromJson(const json& v, const std::set<std::string>& dims, const std::string& where,
                    int depth) {
  if (depth > kMaxDimDepth) Fail(where, "dim expression nested too deeply");
  if (v.is_number_integer()) return DimExpr::Const(v.get<int64_t>());
  if (v.is_string()) {
    std::string name = v.get<std::string>();
    if (!dims.count(name)) Fail(where, "dim '" + name + "' is not one of the graph's dims");
    return DimExpr::Var(name);
  }
  if (!v.is_array() || v.size() != 3 || !v[0].is_string()) {
    Fail(where, "a dim (integer, dim name or [op, a, b]) expected");
  }
  auto it = OpsByName().find(v[0].get<std::string>());
  if (it == OpsByName().end()) Fail(where, "unknown dim operation " + v[0].dump());
  DimExpr e;
  e.op = it->second;
  e.operands.push_back(DimFromJson(v[1], dims, where, depth + 1));
  e.operands.push_back(DimFromJson(v[2], dims, where, depth + 1));
  return e;
}

const char* ValueKindName(ValueKind kind) {
  switch (kind) {
    case ValueKind::kInput:
      return "input";
    case ValueKind::kConstant:
      return "constant";
    case ValueKind::kKernelOutput:
      return "kernel_output";
    case ValueKind::kView:
      return "view";
  }
  return "?";
}

const char* SlotKindName(codegen::SlotKind kind) {
  switch (kind) {
    case codegen::SlotKind::kBufferData:
      return "buffer";
    case codegen::SlotKind::kScalarInt:
      return "int";
    case codegen::SlotKind::kScalarFloat:
      return "float";
    case codegen::SlotKind::kShapeVar:
      return "shape";
  }
  return "?";
}

bool MulOverflows(int64_t a, int64_t b, int64_t* out) { return __builtin_mul_overflow(a, b, out); }

}  // namespace

std::string DimExpr::ToString() const {
  switch (op) {
    case Op::kConst:
      return std::to_string(value);
    case Op::kVar:
      return var;
    case Op::kMin:
    case Op::kMax:
      return std::string(OpName(op)) + "(" + operands.at(0).ToString() + ", " +
             operands.at(1).ToString() + ")";
    default:
      return "(" + operands.at(0).ToString() + " " + OpName(op) + " " + operands.at(1).ToString() +
             ")";
  }
}

int64_t EvaluateDim(const DimExpr& e, const DimEnv& env) {
  switch (e.op) {
    case DimExpr::Op::kConst:
      return e.value;
    case DimExpr::Op::kVar: {
      auto it = env.find(e.var);
      KILN_CHECK(it != env.end(), ErrorKind::kRuntime, "dim " + e.var + " is not bound");
      return it->second;
    }
    default:
      break;
  }
  int64_t a = EvaluateDim(e.operands.at(0), env);
  int64_t b = EvaluateDim(e.operands.at(1), env);
  int64_t r = 0;
  bool overflow = false;
  switch (e.op) {
    case DimExpr::Op::kAdd:
      overflow = __builtin_add_overflow(a, b, &r);
      break;
    case DimExpr::Op::kSub:
      overflow = __builtin_sub_overflow(a, b, &r);
      break;
    case DimExpr::Op::kMul:
      overflow = MulOverflows(a, b, &r);
      break;
    case DimExpr::Op::kFloorDiv:
    case DimExpr::Op::kFloorMod: {
      KILN_CHECK(b != 0, ErrorKind::kRuntime, "division by zero in dim " + e.ToString());
      KILN_CHECK(!(a == std::numeric_limits<int64_t>::min() && b == -1), ErrorKind::kRuntime,
                 "overflow in dim " + e.ToString());
      int64_t q = a / b;
      if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
      r = e.op == DimExpr::Op::kFloorDiv ? q : a - q * b;
      break;
    }
    case DimExpr::Op::kMin:
      r = std::min(a, b);
      break;
    case DimExpr::Op::kMax:
      r = std::max(a, b);
      break;
    default:
      break;
  }
  KILN_CHECK(!overflow, ErrorKind::kRuntime, "overflow in dim " + e.ToString());
  return r;
}

nlohmann::json GraphToJson(const Graph& graph) {
  json values = json::array();
  for (const GraphValue& v : graph.values) {
    json shape = json::array();
    for (const DimExpr& d : v.shape) shape.push_back(DimToJson(d));
    json entry = {{"name", v.name},
                  {"kind", ValueKindName(v.kind)},
                  {"dtype", v.dtype.ToString()},
                  {"shape", shape}};
    if (v.kind == ValueKind::kInput) entry["input"] = v.input_index;
    if (v.kind == ValueKind::kConstant) entry["constant"] = v.constant_index;
    if (v.kind == ValueKind::kView) entry["source"] = v.source;
    if (v.kind == ValueKind::kView && !v.check.empty()) entry["check"] = v.check;
    values.push_back(entry);
  }
  json constants = json::array();
  for (const ConstantRef& c : graph.constants) {
    constants.push_back({{"offset", c.offset}, {"nbytes", c.nbytes}});
  }
  json kernels = json::array();
  for (const GraphKernel& k : graph.kernels) {
    json slots = json::array();
    for (const codegen::ArgSlot& s : k.slots) {
      slots.push_back({{"kind", SlotKindName(s.kind)},
                       {"name", s.name},
                       {"dtype", s.dtype.ToString()},
                       {"param", s.param_index},
                       {"dim", s.dim}});
    }
    json kernel = {{"symbol", k.symbol}, {"task", k.task}, {"slots", slots}};
    if (!k.library.empty()) kernel["library"] = {{"name", k.library}, {"attrs", k.attrs}};
    kernels.push_back(std::move(kernel));
  }
  json steps = json::array();
  for (const Step& s : graph.steps) {
    json args = json::array();
    for (const StepArg& a : s.args) {
      args.push_back(a.value >= 0 ? json{{"value", a.value}}
                                  : json{{"scalar", DimToJson(a.scalar)}});
    }
    steps.push_back({{"kernel", s.kernel}, {"args", args}, {"outputs", s.outputs}});
  }
  return {{"dims", graph.dims},       {"inputs", graph.inputs},
          {"outputs", graph.outputs}, {"tuple_output", graph.tuple_output},
          {"values", values},         {"constants", constants},
          {"kernels", kernels},       {"steps", steps}};
}

Graph GraphFromJson(const nlohmann::json& root, uint64_t constants_bytes) {
  Graph g;
  std::set<std::string> dims;
  for (const json& d : Array(Field(root, "dims", "graph"), "dims")) {
    std::string name = String(d, "dims");
    if (name.empty() || !dims.insert(name).second)
      Fail("dims", "empty or repeated dim '" + name + "'");
    g.dims.push_back(name);
  }
  const json& values = Array(Field(root, "values", "graph"), "values");
  const json& inputs = Array(Field(root, "inputs", "graph"), "inputs");
  const json& constants = Array(Field(root, "constants", "graph"), "constants");
  for (size_t i = 0; i < constants.size(); ++i) {
    std::string where = "constants[" + std::to_string(i) + "]";
    ConstantRef c;
    c.offset = Unsigned(Field(constants[i], "offset", where), where + ".offset");
    c.nbytes = Unsigned(Field(constants[i], "nbytes", where), where + ".nbytes");
    if (c.offset > constants_bytes || c.nbytes > constants_bytes - c.offset) {
      Fail(where, "bytes [" + std::to_string(c.offset) + ", +" + std::to_string(c.nbytes) +
                      ") lie outside constants.bin (" + std::to_string(constants_bytes) +
                      " bytes)");
    }
    g.constants.push_back(c);
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    g.inputs.push_back(Index(inputs[i], values.size(), "inputs[" + std::to_string(i) + "]"));
  }
  // The step that makes each value available: -1 for inputs and constants.
  std::vector<int64_t> defined_at(values.size(), std::numeric_limits<int64_t>::max());
  for (size_t i = 0; i < values.size(); ++i) {
    std::string where = "values[" + std::to_string(i) + "]";
    const json& v = values[i];
    GraphValue value;
    value.name = String(Field(v, "name", where), where + ".name");
    std::string kind = String(Field(v, "kind", where), where + ".kind");
    std::string dtype = String(Field(v, "dtype", where), where + ".dtype");
    std::optional<ir::DataType> parsed = ir::DataType::Parse(dtype);
    if (!parsed || parsed->is_void() || parsed->lanes() != 1 || parsed->bytes() <= 0) {
      Fail(where + ".dtype", "not a tensor element dtype: '" + dtype + "'");
    }
    value.dtype = *parsed;
    const json& shape = Array(Field(v, "shape", where), where + ".shape");
    if (shape.size() > kMaxRank) Fail(where + ".shape", "rank above " + std::to_string(kMaxRank));
    for (const json& d : shape) value.shape.push_back(DimFromJson(d, dims, where + ".shape", 0));
    if (kind == "input") {
      value.kind = ValueKind::kInput;
      value.input_index = Index(Field(v, "input", where), inputs.size(), where + ".input");
      if (g.inputs[value.input_index] != static_cast<int64_t>(i)) {
        Fail(where, "input " + std::to_string(value.input_index) + " names another value");
      }
      defined_at[i] = -1;
    } else if (kind == "constant") {
      value.kind = ValueKind::kConstant;
      value.constant_index =
          Index(Field(v, "constant", where), g.constants.size(), where + ".constant");
      int64_t bytes = value.dtype.bytes();
      for (const DimExpr& d : value.shape) {
        if (d.op != DimExpr::Op::kConst || d.value < 0 || MulOverflows(bytes, d.value, &bytes)) {
          Fail(where + ".shape", "a constant's shape must be non-negative integers");
        }
      }
      if (static_cast<uint64_t>(bytes) != g.constants[value.constant_index].nbytes) {
        Fail(where, "shape and dtype make " + std::to_string(bytes) + " bytes, the constant has " +
                        std::to_string(g.constants[value.constant_index].nbytes));
      }
      defined_at[i] = -1;
    } else if (kind == "kernel_output") {
      value.kind = ValueKind::kKernelOutput;
    } else if (kind == "view") {
      value.kind = ValueKind::kView;
      value.source = Index(Field(v, "source", where), i, where + ".source");
      if (g.values[value.source].dtype != value.dtype) {
        Fail(where, "a view must keep its source's dtype");
      }
      if (v.contains("check")) {
        value.check = String(v["check"], where + ".check");
        if (value.check.empty() || value.check.size() > 4096) {
          Fail(where + ".check", "the text of a check must have 1 to 4096 characters");
        }
        if (value.shape.size() != g.values[value.source].shape.size()) {
          Fail(where, "a checked view must keep its source's rank");
        }
      }
    } else {
      Fail(where + ".kind", "'" + kind + "' is not input, constant, kernel_output or view");
    }
    g.values.push_back(std::move(value));
  }
  for (size_t i = 0; i < g.inputs.size(); ++i) {
    if (g.values[g.inputs[i]].kind != ValueKind::kInput) {
      Fail("inputs[" + std::to_string(i) + "]", "names a value that is not an input");
    }
  }

  const json& kernels = Array(Field(root, "kernels", "graph"), "kernels");
  for (size_t k = 0; k < kernels.size(); ++k) {
    std::string where = "kernels[" + std::to_string(k) + "]";
    GraphKernel kernel;
    kernel.symbol = String(Field(kernels[k], "symbol", where), where + ".symbol");
    kernel.task = String(Field(kernels[k], "task", where), where + ".task");
    if (kernel.symbol.empty()) Fail(where + ".symbol", "empty");
    const json& slots = Array(Field(kernels[k], "slots", where), where + ".slots");
    for (size_t s = 0; s < slots.size(); ++s) {
      std::string at = where + ".slots[" + std::to_string(s) + "]";
      codegen::ArgSlot slot;
      std::string kind = String(Field(slots[s], "kind", at), at + ".kind");
      if (kind == "buffer") {
        slot.kind = codegen::SlotKind::kBufferData;
      } else if (kind == "int") {
        slot.kind = codegen::SlotKind::kScalarInt;
      } else if (kind == "shape") {
        slot.kind = codegen::SlotKind::kShapeVar;
      } else {
        Fail(at + ".kind", "'" + kind + "' is not buffer, int or shape");
      }
      slot.name = String(Field(slots[s], "name", at), at + ".name");
      std::string dtype = String(Field(slots[s], "dtype", at), at + ".dtype");
      std::optional<ir::DataType> parsed = ir::DataType::Parse(dtype);
      if (!parsed) Fail(at + ".dtype", "unknown dtype '" + dtype + "'");
      slot.dtype = *parsed;
      int64_t param = Int(Field(slots[s], "param", at), at + ".param");
      int64_t dim = Int(Field(slots[s], "dim", at), at + ".dim");
      if (param < 0 || param >= static_cast<int64_t>(kMaxEntries))
        Fail(at + ".param", "out of range");
      if (dim < -1 || dim >= static_cast<int64_t>(kMaxRank)) Fail(at + ".dim", "out of range");
      slot.param_index = static_cast<int>(param);
      slot.dim = static_cast<int>(dim);
      kernel.slots.push_back(slot);
    }
    if (kernels[k].contains("library")) {
      const json& library = kernels[k]["library"];
      std::string at = where + ".library";
      kernel.library = String(Field(library, "name", at), at + ".name");
      if (kernel.library.empty()) Fail(at + ".name", "empty");
      const json& attrs = Field(library, "attrs", at);
      if (!attrs.is_object()) Fail(at + ".attrs", "an object expected");
      for (const auto& [key, value] : attrs.items()) {
        kernel.attrs[key] = Int(value, at + ".attrs." + key);
      }
      for (size_t s = 0; s < kernel.slots.size(); ++s) {
        if (kernel.slots[s].kind != codegen::SlotKind::kBufferData ||
            kernel.slots[s].param_index != static_cast<int>(s)) {
          Fail(where + ".slots[" + std::to_string(s) + "]",
               "a library call takes its tensors in parameter order (buffer " + std::to_string(s) +
                   " expected)");
        }
      }
    }
    g.kernels.push_back(std::move(kernel));
  }

  // A view is available once its source is (sources come first, so one pass suffices).
  auto propagate_views = [&] {
    for (size_t i = 0; i < g.values.size(); ++i) {
      if (g.values[i].kind == ValueKind::kView) defined_at[i] = defined_at[g.values[i].source];
    }
  };
  propagate_views();
  const json& steps = Array(Field(root, "steps", "graph"), "steps");
  for (size_t s = 0; s < steps.size(); ++s) {
    std::string where = "steps[" + std::to_string(s) + "]";
    Step step;
    step.kernel = Index(Field(steps[s], "kernel", where), g.kernels.size(), where + ".kernel");
    const json& args = Array(Field(steps[s], "args", where), where + ".args");
    for (size_t a = 0; a < args.size(); ++a) {
      std::string at = where + ".args[" + std::to_string(a) + "]";
      StepArg arg;
      if (args[a].is_object() && args[a].contains("value")) {
        arg.value = Index(args[a]["value"], g.values.size(), at + ".value");
      } else {
        arg.scalar = DimFromJson(Field(args[a], "scalar", at), dims, at + ".scalar", 0);
      }
      step.args.push_back(std::move(arg));
    }
    const json& outputs = Array(Field(steps[s], "outputs", where), where + ".outputs");
    for (size_t o = 0; o < outputs.size(); ++o) {
      std::string at = where + ".outputs[" + std::to_string(o) + "]";
      int64_t id = Index(outputs[o], g.values.size(), at);
      if (g.values[id].kind != ValueKind::kKernelOutput) Fail(at, "not a kernel_output value");
      if (defined_at[id] != std::numeric_limits<int64_t>::max()) {
        Fail(at, "value " + std::to_string(id) + " is written by two steps");
      }
      defined_at[id] = static_cast<int64_t>(s);
      step.outputs.push_back(id);
    }
    propagate_views();
    std::set<int64_t> written(step.outputs.begin(), step.outputs.end());
    for (size_t a = 0; a < step.args.size(); ++a) {
      int64_t id = step.args[a].value;
      if (id < 0 || written.count(id)) continue;
      if (defined_at[id] >= static_cast<int64_t>(s)) {
        Fail(where + ".args[" + std::to_string(a) + "]",
             "value " + std::to_string(id) + " is used before a step writes it");
      }
    }
    for (int64_t id : step.outputs) {
      bool passed = false;
      for (const StepArg& a : step.args) passed = passed || a.value == id;
      if (!passed) Fail(where, "output value " + std::to_string(id) + " is not an argument");
    }
    const GraphKernel& kernel = g.kernels[step.kernel];
    for (size_t k = 0; k < kernel.slots.size(); ++k) {
      const codegen::ArgSlot& slot = kernel.slots[k];
      std::string at = where + " (slot " + std::to_string(k) + " of " + kernel.symbol + ")";
      if (static_cast<size_t>(slot.param_index) >= step.args.size()) {
        Fail(at, "parameter " + std::to_string(slot.param_index) + " has no argument");
      }
      const StepArg& arg = step.args[slot.param_index];
      if (slot.kind == codegen::SlotKind::kScalarInt) {
        if (arg.value >= 0) Fail(at, "a scalar argument expected");
        continue;
      }
      if (arg.value < 0) Fail(at, "a tensor argument expected");
      const GraphValue& value = g.values[arg.value];
      if (slot.kind == codegen::SlotKind::kBufferData && value.dtype != slot.dtype) {
        Fail(at, "the kernel takes " + slot.dtype.ToString() + ", the value is " +
                     value.dtype.ToString());
      }
      if (slot.kind == codegen::SlotKind::kShapeVar &&
          (slot.dim < 0 || static_cast<size_t>(slot.dim) >= value.shape.size())) {
        Fail(at, "dim " + std::to_string(slot.dim) + " of a rank-" +
                     std::to_string(value.shape.size()) + " value");
      }
    }
    g.steps.push_back(std::move(step));
  }
  for (size_t i = 0; i < g.values.size(); ++i) {
    if (defined_at[i] == std::numeric_limits<int64_t>::max()) {
      Fail("values[" + std::to_string(i) + "]", "no step writes it");
    }
  }
  const json& outputs = Array(Field(root, "outputs", "graph"), "outputs");
  if (outputs.empty()) Fail("outputs", "the graph returns nothing");
  for (size_t i = 0; i < outputs.size(); ++i) {
    g.outputs.push_back(Index(outputs[i], g.values.size(), "outputs[" + std::to_string(i) + "]"));
  }
  const json& tuple = Field(root, "tuple_output", "graph");
  if (!tuple.is_boolean()) Fail("tuple_output", "a boolean expected");
  g.tuple_output = tuple.get<bool>();
  if (!g.tuple_output && g.outputs.size() != 1) Fail("outputs", "several outputs need a tuple");
  return g;
}

}  // namespace kiln::runtime::model
