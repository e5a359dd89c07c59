// Graph checks, parameters with symbolic shapes, topological conversion of the nodes with
// every unsupported node collected, and the function's return value.
#include "ir/frontend/onnx/graph_importer.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "ir/frontend/onnx/converter.h"
#include "ir/frontend/onnx/schema_versions.h"
#include "ir/relax/well_formed.h"
#include "support/logging.h"

namespace kiln::ir::frontend::onnx {

namespace {

using relax::Expr;

// A name usable as a variable in printed IR: letters, digits and '_', not starting with a
// digit.
std::string Identifier(const std::string& name, const std::string& fallback) {
  std::string id;
  for (char c : name) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (id.empty()) id = fallback;
  if (std::isdigit(static_cast<unsigned char>(id[0]))) id = "v" + id;
  return id;
}

// The size a graph input declares for a dim, when it declares one. Exporters write -1 for a
// dim they do not know, which the reader already drops; 0 is a size (an empty axis, as ONNX's
// empty-set reduction cases declare it), not an unknown.
std::optional<int64_t> DeclaredSize(const OnnxDim& d) {
  if (d.value && *d.value >= 0) return d.value;
  return std::nullopt;
}

// Whether a dim_param names a dim: PaddlePaddle writes "?" for a dim it does not know, which
// is no name to share between inputs (nor a printable one).
bool IsDimName(const std::string& param) {
  return std::any_of(param.begin(), param.end(),
                     [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; });
}

// Why `value` cannot stand for the graph input `input` (empty when it can).
std::string BoundValueMismatch(const OnnxValueInfo& input, const HostTensor& value) {
  std::optional<DataType> dtype = ToKilnDType(input.elem_type);
  if (dtype && *dtype != value.dtype()) {
    return "is " + value.Describe() + ", but the graph input is " + OnnxDTypeName(input.elem_type);
  }
  if (input.shape) {
    bool ok = input.shape->size() == value.shape().size();
    for (size_t i = 0; ok && i < input.shape->size(); ++i) {
      const OnnxDim& d = (*input.shape)[i];
      std::optional<int64_t> size = DeclaredSize(d);
      ok = !size || *size == value.shape()[i];
    }
    if (!ok) return "is " + value.Describe() + ", which does not fit the declared shape";
  }
  return "";
}

class GraphImporter {
 public:
  GraphImporter(const OnnxModel& model, const ImportOptions& options, OnnxImportResult& result)
      : model_(model), options_(options), result_(result) {}

  void Run();

 private:
  void AddIssue(const OnnxNode* node, ErrorKind kind, const std::string& reason);
  void AddIssue(const OnnxNode* node, const Error& e) { AddIssue(node, e.kind(), e.what()); }
  bool CheckOpsets();
  void DeclareInitializers();
  std::vector<relax::Var> DeclareParams();
  relax::StructInfo ParamInfo(const OnnxValueInfo& input);
  // The dim ImportOptions::dim_values binds to `key`, else a shape variable `var_name`.
  PrimExpr NewDim(const std::string& key, const std::string& var_name);
  // Node indices in a topological order; empty with an error when the graph is broken.
  std::optional<std::vector<int>> SortNodes();
  void FindConverters();
  void ConvertNode(const OnnxNode& node);
  void BuildOutputs();

  const OnnxModel& model_;
  const ImportOptions& options_;
  OnnxImportResult& result_;
  relax::BlockBuilder builder_;
  std::map<std::string, Value> values_;
  std::set<std::string> failed_;  // values whose producer could not be converted
  std::map<std::string, const OnnxTensor*> initializers_;
  std::map<std::string, PrimExpr> dim_params_;
  std::set<std::string> param_names_;
  std::set<std::string> needed_inputs_;
  std::set<std::string> shaping_inputs_;
  std::vector<const ConverterEntry*> converters_;  // per node index; nullptr: unsupported
  std::vector<int64_t> versions_;                  // per node index: its op's schema version
};

void GraphImporter::AddIssue(const OnnxNode* node, ErrorKind kind, const std::string& reason) {
  OnnxIssue issue;
  if (node != nullptr) {
    issue.node_index = node->index;
    issue.op_type = node->op_type;
    issue.node_name = node->name;
  }
  issue.kind = kind;
  issue.reason = reason;
  (kind == ErrorKind::kUnsupported ? result_.unsupported : result_.errors).push_back(issue);
}

bool GraphImporter::CheckOpsets() {
  auto it = model_.opsets.find("");
  result_.opset = it == model_.opsets.end() ? 0 : it->second;
  bool uses_default = false;
  for (const OnnxNode& n : model_.nodes) uses_default |= n.domain.empty();
  if (uses_default && it == model_.opsets.end()) {
    AddIssue(nullptr, ErrorKind::kParse,
             model_.source +
                 ": opset_import has no version for the default domain ai.onnx, "
                 "which the nodes use");
    return false;
  }
  if (result_.opset > NewestKnownOpset()) {
    // Its ops may have versions Kiln has never seen: resolving them to older ones would be a
    // guess.
    AddIssue(nullptr, ErrorKind::kUnsupported,
             model_.source + ": opset " + std::to_string(result_.opset) +
                 " of ai.onnx is newer than the newest Kiln knows (" +
                 std::to_string(NewestKnownOpset()) + ")");
    return false;
  }
  return true;
}

void GraphImporter::DeclareInitializers() {
  for (const OnnxTensor& t : model_.initializers) {
    initializers_[t.name] = &t;
    if (!t.value) {
      AddIssue(nullptr, t.error_kind, t.error);
      failed_.insert(t.name);
      continue;
    }
    values_[t.name] = Value(*t.value);
  }
  for (const std::string& name : model_.sparse_initializers) {
    AddIssue(nullptr, ErrorKind::kUnsupported,
             model_.source + ": sparse initializer '" + name + "' is not supported");
    failed_.insert(name);
  }
}

relax::StructInfo GraphImporter::ParamInfo(const OnnxValueInfo& input) {
  std::string where = model_.source + ": graph input '" + input.name + "'";
  if (input.kind != OnnxTypeKind::kTensor) {
    throw Error(ErrorKind::kUnsupported, where + " is a " + OnnxTypeKindName(input.kind) +
                                             "; only tensor inputs are supported");
  }
  std::optional<DataType> dtype = ToKilnDType(input.elem_type);
  if (!dtype) {
    throw Error(
        IsOnnxDType(input.elem_type) ? ErrorKind::kUnsupported : ErrorKind::kParse,
        where + " has dtype " + OnnxDTypeName(input.elem_type) + ", which Kiln does not support");
  }
  if (!input.shape) return relax::TensorStructInfo(*dtype, relax::kUnknownNDim);
  std::vector<PrimExpr> dims;
  for (size_t i = 0; i < input.shape->size(); ++i) {
    const OnnxDim& d = (*input.shape)[i];
    if (std::optional<int64_t> size = DeclaredSize(d)) {
      dims.push_back(relax::DimConst(*size));
    } else if (IsDimName(d.param)) {
      auto it = dim_params_.find(d.param);
      if (it == dim_params_.end()) {
        it = dim_params_.emplace(d.param, NewDim(d.param, Identifier(d.param, "dim"))).first;
      }
      dims.push_back(it->second);
    } else {
      // An unnamed unknown dim (none, -1 or a dim_param such as "?"): a fresh variable,
      // not shared with any other, which ImportOptions::dim_values binds by the name it gets.
      std::string name = Identifier(input.name, "x") + "_dim" + std::to_string(i);
      dims.push_back(NewDim(name, name));
    }
  }
  return relax::TensorStructInfo(dims, *dtype);
}

PrimExpr GraphImporter::NewDim(const std::string& key, const std::string& var_name) {
  // By the dim_param as written ("p2o.DynamicDimension.0") or by the name Kiln's IR gives it
  // ("p2o_DynamicDimension_0": what `tune tasks` prints and the user passes back with --dim).
  auto bound = options_.dim_values.find(key);
  if (bound == options_.dim_values.end()) bound = options_.dim_values.find(var_name);
  if (bound == options_.dim_values.end()) return relax::SymbolicDim(var_name);
  if (bound->second < 0) {
    throw Error(ErrorKind::kType, model_.source + ": ImportOptions: dim '" + key +
                                      "' is bound to " + std::to_string(bound->second) +
                                      ", a negative size");
  }
  return relax::DimConst(bound->second);
}

std::vector<relax::Var> GraphImporter::DeclareParams() {
  std::vector<relax::Var> params;
  for (const OnnxValueInfo& input : model_.inputs) {
    if (initializers_.count(input.name) != 0) continue;  // a default value: a constant
    auto bound = options_.input_values.find(input.name);
    if (bound != options_.input_values.end()) {
      if (std::string problem = BoundValueMismatch(input, bound->second); !problem.empty()) {
        AddIssue(nullptr, ErrorKind::kType,
                 model_.source + ": ImportOptions: input_values['" + input.name + "'] " + problem);
        failed_.insert(input.name);
        continue;
      }
      values_[input.name] = Value(bound->second);
      continue;
    }
    try {
      relax::Var v(Identifier(input.name, "input"), ParamInfo(input));
      params.push_back(v);
      param_names_.insert(input.name);
      result_.param_names.push_back(input.name);
      values_[input.name] = Value(Expr(v));
    } catch (const Error& e) {
      AddIssue(nullptr, e);
      failed_.insert(input.name);
    }
  }
  for (const auto& [name, value] : options_.input_values) {
    bool found = false;
    for (const OnnxValueInfo& input : model_.inputs) found |= input.name == name;
    if (!found) {
      AddIssue(nullptr, ErrorKind::kType,
               model_.source + ": ImportOptions: input_values names '" + name +
                   "', which is not a graph input");
    }
  }
  if (options_.keep_params_as_inputs) {
    for (const OnnxTensor& t : model_.initializers) {
      if (!t.value || !t.value->dtype().is_float()) continue;
      bool is_input = false;
      for (const OnnxValueInfo& input : model_.inputs) is_input |= input.name == t.name;
      if (is_input) continue;
      std::vector<PrimExpr> dims;
      for (int64_t d : t.value->shape()) dims.push_back(relax::DimConst(d));
      relax::Var v(Identifier(t.name, "param"), relax::TensorStructInfo(dims, t.value->dtype()));
      params.push_back(v);
      result_.param_names.push_back(t.name);
      values_[t.name] = Value(Expr(v));
    }
  }
  return params;
}

std::optional<std::vector<int>> GraphImporter::SortNodes() {
  const std::vector<OnnxNode>& nodes = model_.nodes;
  std::map<std::string, int> producer;  // value -> node index
  std::set<std::string> defined;
  for (const OnnxValueInfo& input : model_.inputs) defined.insert(input.name);
  for (const OnnxTensor& t : model_.initializers) defined.insert(t.name);
  for (const std::string& t : model_.sparse_initializers) defined.insert(t);
  std::vector<std::string> problems;
  for (const OnnxNode& n : nodes) {
    for (const std::string& out : n.outputs) {
      if (out.empty()) continue;
      auto [it, added] = producer.emplace(out, n.index);
      if (!added) {
        problems.push_back("value '" + out + "' is produced by " + nodes[it->second].Describe() +
                           " and again by " + n.Describe());
      } else if (defined.count(out) != 0) {
        problems.push_back(n.Describe() + " produces '" + out +
                           "', which is already a graph input or initializer");
      }
    }
  }
  std::vector<std::vector<int>> users(nodes.size());
  std::vector<int> pending(nodes.size(), 0);
  for (const OnnxNode& n : nodes) {
    std::set<int> deps;
    for (size_t i = 0; i < n.inputs.size(); ++i) {
      const std::string& in = n.inputs[i];
      if (in.empty()) continue;
      auto p = producer.find(in);
      if (p != producer.end()) {
        deps.insert(p->second);
      } else if (defined.count(in) == 0) {
        problems.push_back(n.Describe() + ": input " + std::to_string(i) + " '" + in +
                           "' is not a graph input, an initializer or the output of any node");
      }
    }
    for (int d : deps) {
      if (d == n.index) {
        problems.push_back(n.Describe() + " uses its own output");
        continue;
      }
      users[d].push_back(n.index);
      ++pending[n.index];
    }
  }
  for (const OnnxValueInfo& out : model_.outputs) {
    if (producer.count(out.name) == 0 && defined.count(out.name) == 0) {
      problems.push_back("graph output '" + out.name +
                         "' is not a graph input, an initializer or the output of any node");
    }
  }
  if (problems.empty()) {
    // Kahn's algorithm, taking the lowest index first so a sorted graph keeps its order.
    std::set<int> ready;
    for (size_t i = 0; i < nodes.size(); ++i) {
      if (pending[i] == 0) ready.insert(static_cast<int>(i));
    }
    std::vector<int> order;
    while (!ready.empty()) {
      int n = *ready.begin();
      ready.erase(ready.begin());
      order.push_back(n);
      for (int u : users[n]) {
        if (--pending[u] == 0) ready.insert(u);
      }
    }
    if (order.size() == nodes.size()) return order;
    std::string cycle;
    int shown = 0;
    for (size_t i = 0; i < nodes.size() && shown < 8; ++i) {
      if (pending[i] == 0) continue;
      cycle += (shown++ > 0 ? ", " : "") + nodes[i].Describe();
    }
    problems.push_back("the graph has a cycle: these nodes wait on each other: " + cycle);
  }
  std::string message = model_.source + ": malformed graph: " + problems[0];
  for (size_t i = 1; i < problems.size() && i < 10; ++i) message += "; " + problems[i];
  if (problems.size() > 10) {
    message += "; and " + std::to_string(problems.size() - 10) + " more";
  }
  AddIssue(nullptr, ErrorKind::kParse, message);
  return std::nullopt;
}

void GraphImporter::FindConverters() {
  std::set<std::string> functions(model_.local_functions.begin(), model_.local_functions.end());
  const ConverterTable& table = ConverterTable::Global();
  converters_.assign(model_.nodes.size(), nullptr);
  versions_.assign(model_.nodes.size(), 0);
  for (const OnnxNode& n : model_.nodes) {
    ++result_.op_counts[n.domain.empty() ? n.op_type : n.domain + "." + n.op_type];
    if (functions.count(n.domain + ":" + n.op_type) != 0) {
      AddIssue(&n, ErrorKind::kUnsupported,
               "calls the model-local function " + n.op_type + ", which is not inlined");
      continue;
    }
    if (!n.domain.empty()) {
      AddIssue(&n, ErrorKind::kUnsupported,
               "ops of domain '" + n.domain + "' are not supported (only ai.onnx)");
      continue;
    }
    ConverterLookup lookup = table.Find(n.op_type, result_.opset);
    converters_[n.index] = lookup.entry;
    versions_[n.index] = lookup.version;
    if (lookup.entry == nullptr) AddIssue(&n, lookup.kind, lookup.why);
  }
}

void GraphImporter::ConvertNode(const OnnxNode& node) {
  auto fail_outputs = [&] {
    for (const std::string& out : node.outputs) failed_.insert(out);
  };
  const ConverterEntry* entry = converters_[node.index];
  bool inputs_ok = true;
  for (const std::string& in : node.inputs) inputs_ok &= in.empty() || failed_.count(in) == 0;
  if (entry == nullptr || !inputs_ok) return fail_outputs();
  try {
    NodeContext ctx(
        node, result_.opset, versions_[node.index],
        ImportState{&builder_, &values_, &param_names_, &needed_inputs_, &shaping_inputs_});
    Outputs outputs = entry->fn(ctx);
    std::vector<std::string> unused = ctx.UnusedAttributes();
    if (!unused.empty()) {
      std::string names;
      for (const std::string& a : unused) names += (names.empty() ? "'" : ", '") + a + "'";
      throw Error(ErrorKind::kUnsupported,
                  "attribute" + std::string(unused.size() > 1 ? "s " : " ") + names + " of " +
                      node.op_type + " " + (unused.size() > 1 ? "are" : "is") + " not supported");
    }
    for (size_t i = 0; i < node.outputs.size(); ++i) {
      if (node.outputs[i].empty()) continue;
      if (i >= outputs.size() || !outputs[i].defined()) {
        throw Error(ErrorKind::kUnsupported, "output " + std::to_string(i) + " '" +
                                                 node.outputs[i] + "' of " + node.op_type +
                                                 " is not supported");
      }
      values_[node.outputs[i]] = std::move(outputs[i]);
    }
  } catch (const Error& e) {
    AddIssue(&node, e);
    fail_outputs();
  }
}

void GraphImporter::BuildOutputs() {
  std::vector<Expr> outputs;
  for (const OnnxValueInfo& out : model_.outputs) {
    if (failed_.count(out.name) != 0) return;
    auto it = values_.find(out.name);
    if (it == values_.end()) {
      AddIssue(nullptr, ErrorKind::kInternal,
               model_.source + ": graph output '" + out.name + "' has no value");
      return;
    }
    outputs.push_back(Materialize(it->second, builder_));
    result_.output_names.push_back(out.name);
  }
  if (outputs.empty()) {
    AddIssue(nullptr, ErrorKind::kParse, model_.source + ": the graph has no outputs");
    return;
  }
  if (!result_.unsupported.empty() || !result_.errors.empty()) return;
  relax::Var result = builder_.EmitOutput(outputs.size() == 1 ? outputs[0] : relax::Tuple(outputs));
  builder_.EndDataflow();
  builder_.EndFunction(result);
  relax::IRModule module = builder_.Finalize();
  relax::CheckWellFormed(module);
  result_.module = std::move(module);
}

void GraphImporter::Run() {
  if (!CheckOpsets()) return;
  DeclareInitializers();
  std::vector<relax::Var> params = DeclareParams();
  std::optional<std::vector<int>> order = SortNodes();
  if (!order) return;
  FindConverters();
  builder_.BeginFunction("main", params);
  builder_.BeginDataflow();
  for (int index : *order) ConvertNode(model_.nodes[index]);
  result_.inputs_needed_at_import.assign(needed_inputs_.begin(), needed_inputs_.end());
  result_.inputs_shaping_at_run_time.assign(shaping_inputs_.begin(), shaping_inputs_.end());
  BuildOutputs();
  KILN_LOG_DEBUG("onnx import {}: {} nodes, {} unsupported, {} errors", model_.source,
                 model_.nodes.size(), result_.unsupported.size(), result_.errors.size());
}

}  // namespace

OnnxImportResult ImportModel(const OnnxModel& model, const ImportOptions& options) {
  OnnxImportResult result;
  result.source = model.source;
  GraphImporter importer(model, options, result);
  try {
    importer.Run();
  } catch (const Error& e) {
    result.module.reset();
    OnnxIssue issue;
    issue.kind = e.kind();
    issue.reason = model.source + ": " + e.what();
    (e.kind() == ErrorKind::kUnsupported ? result.unsupported : result.errors).push_back(issue);
  }
  // Prescanned issues (no converter) and conversion issues in one order: by node.
  auto by_node = [](const OnnxIssue& a, const OnnxIssue& b) { return a.node_index < b.node_index; };
  std::stable_sort(result.unsupported.begin(), result.unsupported.end(), by_node);
  std::stable_sort(result.errors.begin(), result.errors.end(), by_node);
  return result;
}

}  // namespace kiln::ir::frontend::onnx
