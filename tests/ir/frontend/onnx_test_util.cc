// ModelBuilder and the test shorthands.
#include "onnx_test_util.h"

#include "ir/relax/module.h"

namespace kiln::ir::frontend::onnx::testing {

ModelBuilder::ModelBuilder(int64_t opset) {
  model.set_ir_version(8);
  model.set_producer_name("kiln-test");
  auto* op = model.add_opset_import();
  op->set_domain("");
  op->set_version(opset);
  model.mutable_graph()->set_name("test");
}

ModelBuilder& ModelBuilder::Input(const std::string& name, std::vector<Dim> dims,
                                  int32_t elem_type) {
  auto* v = model.mutable_graph()->add_input();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (const Dim& d : dims) {
    auto* dim = shape->add_dim();
    if (!d.param.empty() && d.param != "?") dim->set_dim_param(d.param);
    if (d.param.empty()) dim->set_dim_value(d.value);
  }
  return *this;
}

ModelBuilder& ModelBuilder::Output(const std::string& name) {
  model.mutable_graph()->add_output()->set_name(name);
  return *this;
}

::onnx::NodeProto& ModelBuilder::Node(const std::string& op, std::vector<std::string> inputs,
                                      std::vector<std::string> outputs, const std::string& name) {
  auto* n = model.mutable_graph()->add_node();
  n->set_op_type(op);
  n->set_name(name);
  for (const std::string& i : inputs) n->add_input(i);
  for (const std::string& o : outputs) n->add_output(o);
  return *n;
}

ModelBuilder& ModelBuilder::InitInts(const std::string& name, const std::vector<int64_t>& values,
                                     std::vector<int64_t> dims) {
  auto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
  return *this;
}

ModelBuilder& ModelBuilder::InitFloats(const std::string& name, const std::vector<float>& values,
                                       std::vector<int64_t> dims) {
  auto* t = model.mutable_graph()->add_initializer();
  t->set_name(name);
  t->set_data_type(::onnx::TensorProto::FLOAT);
  for (int64_t d : dims) t->add_dims(d);
  for (float v : values) t->add_float_data(v);
  return *this;
}

std::string ModelBuilder::Bytes() const { return model.SerializeAsString(); }

relax::IRModule ModelBuilder::Import(const ImportOptions& options) const {
  return ImportOnnxBytes(Bytes(), "test.onnx", options);
}

OnnxImportResult ModelBuilder::TryImport(const ImportOptions& options) const {
  return TryImportOnnxBytes(Bytes(), "test.onnx", options);
}

namespace {

::onnx::AttributeProto* Add(::onnx::NodeProto& node, const std::string& name,
                            ::onnx::AttributeProto::AttributeType type) {
  auto* a = node.add_attribute();
  a->set_name(name);
  a->set_type(type);
  return a;
}

}  // namespace

void SetInt(::onnx::NodeProto& node, const std::string& name, int64_t value) {
  Add(node, name, ::onnx::AttributeProto::INT)->set_i(value);
}

void SetInts(::onnx::NodeProto& node, const std::string& name, const std::vector<int64_t>& values) {
  auto* a = Add(node, name, ::onnx::AttributeProto::INTS);
  for (int64_t v : values) a->add_ints(v);
}

void SetFloat(::onnx::NodeProto& node, const std::string& name, float value) {
  Add(node, name, ::onnx::AttributeProto::FLOAT)->set_f(value);
}

void SetString(::onnx::NodeProto& node, const std::string& name, const std::string& value) {
  Add(node, name, ::onnx::AttributeProto::STRING)->set_s(value);
}

std::string ReturnInfo(const relax::IRModule& module) {
  const relax::Function* main = module.LookupFunction("main");
  return main == nullptr ? "<no main>" : (*main)->ret_struct_info.ToString();
}

std::vector<std::string> CalledOps(const relax::IRModule& module) {
  std::vector<std::string> ops;
  const relax::Function* main = module.LookupFunction("main");
  if (main == nullptr) return ops;
  const auto* seq = (*main)->body.as<relax::SeqExprNode>();
  if (seq == nullptr) return ops;
  for (const relax::BindingBlock& block : seq->blocks) {
    for (const relax::Binding& b : block.bindings) {
      if (const auto* call = b.value.as<relax::CallNode>()) ops.push_back(call->op);
    }
  }
  return ops;
}

std::string TestData(const std::string& relative) {
  return std::string(KILN_SOURCE_DIR) + "/tests/ir/frontend/testdata/" + relative;
}

}  // namespace kiln::ir::frontend::onnx::testing
