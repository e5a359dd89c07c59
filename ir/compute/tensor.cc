// Tensors and compute stages. A stage learns which tensors it loads while its index function
// runs: each Tensor::operator() call reports to the innermost stage being defined on this
// thread, which later maps the buffers in its value back to their tensors.
#include "ir/compute/tensor.h"

#include <unordered_map>

#include "ir/compute/reduce.h"
#include "ir/functor.h"

namespace kiln::ir::compute {
namespace {

// A stage whose index function is running: its index variables and extents, and the
// tensors loaded so far.
struct LoadLog {
  const std::vector<Var>* axis = nullptr;
  const std::vector<Expr>* shape = nullptr;
  std::vector<Tensor> tensors;
};
thread_local std::vector<LoadLog*> active_logs;

// Makes `log` the innermost log for its lifetime (also when the index function throws).
class ScopedLoadLog {
 public:
  explicit ScopedLoadLog(LoadLog* log) { active_logs.push_back(log); }
  ~ScopedLoadLog() { active_logs.pop_back(); }
  ScopedLoadLog(const ScopedLoadLog&) = delete;
  ScopedLoadLog& operator=(const ScopedLoadLog&) = delete;
};

void RecordLoad(const Tensor& tensor) {
  if (active_logs.empty()) return;
  std::vector<Tensor>& tensors = active_logs.back()->tensors;
  for (const Tensor& t : tensors) {
    if (t.same_as(tensor)) return;
  }
  tensors.push_back(tensor);
}

// The buffers an expression loads, in order of first appearance.
class LoadedBuffers : public IRVisitor {
 public:
  std::vector<Buffer> buffers;
  void VisitExpr_(const BufferLoadNode* op) override {
    bool seen = false;
    for (const Buffer& b : buffers) seen = seen || b.same_as(op->buffer);
    if (!seen) buffers.push_back(op->buffer);
    IRVisitor::VisitExpr_(op);
  }
};

void CheckShape(const std::string& what, const std::vector<Expr>& shape) {
  for (size_t d = 0; d < shape.size(); ++d) {
    KILN_CHECK(shape[d].defined() && shape[d].dtype().is_int() && shape[d].dtype().is_scalar(),
               ErrorKind::kType,
               what + ": dimension " + std::to_string(d) + " of the shape is not a scalar integer");
    auto value = AsConstInt(shape[d]);
    KILN_CHECK(!value || *value >= 0, ErrorKind::kType,
               what + ": dimension " + std::to_string(d) + " of the shape is negative");
  }
}

}  // namespace

const std::string& Tensor::name() const { return ptr_->name; }
DataType Tensor::dtype() const { return ptr_->buffer->dtype; }
const std::vector<Expr>& Tensor::shape() const { return ptr_->buffer->shape; }
size_t Tensor::ndim() const { return ptr_->buffer.ndim(); }
const Buffer& Tensor::buffer() const { return ptr_->buffer; }
bool Tensor::is_placeholder() const { return ptr_->is_placeholder; }

Expr Tensor::operator()(const std::vector<Expr>& indices) const {
  KILN_CHECK(defined(), ErrorKind::kInvalidIR, "load from an undefined tensor");
  KILN_CHECK(indices.size() == ndim(), ErrorKind::kType,
             "tensor " + name() + " has " + std::to_string(ndim()) +
                 " dimensions but is indexed with " + std::to_string(indices.size()) + " indices");
  for (size_t d = 0; d < indices.size(); ++d) {
    KILN_CHECK(
        indices[d].defined() && indices[d].dtype().is_integral() && indices[d].dtype().is_scalar(),
        ErrorKind::kType,
        "tensor " + name() + ": index " + std::to_string(d) + " is not a scalar integer" +
            (indices[d].defined() ? " (" + indices[d].dtype().ToString() + ")" : ""));
  }
  RecordLoad(*this);
  return BufferLoad(buffer(), indices);
}

Expr Tensor::operator()(const std::vector<Var>& indices) const {
  return (*this)(std::vector<Expr>(indices.begin(), indices.end()));
}

Tensor Placeholder(std::string name, std::vector<Expr> shape, DataType dtype) {
  KILN_CHECK(!name.empty(), ErrorKind::kInvalidIR, "Placeholder: empty name");
  CheckShape("placeholder " + name, shape);
  KILN_CHECK(
      dtype.is_scalar() && !dtype.is_handle() && !dtype.is_void(), ErrorKind::kType,
      "placeholder " + name + ": dtype " + dtype.ToString() + " is not a scalar element type");
  auto node = std::make_shared<TensorNode>();
  node->name = name;
  node->buffer = DeclBuffer(std::move(name), dtype, std::move(shape));
  node->is_placeholder = true;
  return Tensor(std::move(node));
}

namespace detail {
void CheckArity(const std::string& name, size_t arity, size_t ndim) {
  KILN_CHECK(arity == ndim, ErrorKind::kType,
             "Compute " + name + ": the index function takes " + std::to_string(arity) +
                 " indices but the shape has " + std::to_string(ndim) + " dimensions");
}

bool IsStageIndexOver(const Expr& index, const Expr& extent) {
  const auto* var = index.as<VarNode>();
  if (var == nullptr) return false;
  for (const LoadLog* log : active_logs) {
    for (size_t d = 0; d < log->axis->size(); ++d) {
      if ((*log->axis)[d].get() != var) continue;
      const Expr& own = (*log->shape)[d];
      auto a = AsConstInt(own), b = AsConstInt(extent);
      return own.same_as(extent) || (a && b && *a == *b);
    }
  }
  return false;
}
}  // namespace detail

Tensor ComputeStage(std::vector<Expr> shape, const IndexFunction& fn, std::string name,
                    std::vector<std::string> axis_names) {
  const std::string what = "Compute " + name;
  KILN_CHECK(!name.empty(), ErrorKind::kInvalidIR, "Compute: empty stage name");
  KILN_CHECK(static_cast<bool>(fn), ErrorKind::kInvalidIR, what + ": no index function");
  CheckShape(what, shape);
  KILN_CHECK(axis_names.empty() || axis_names.size() == shape.size(), ErrorKind::kInvalidIR,
             what + ": " + std::to_string(axis_names.size()) + " axis names for " +
                 std::to_string(shape.size()) + " dimensions");

  auto node = std::make_shared<TensorNode>();
  node->name = name;
  node->is_placeholder = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    std::string axis_name = axis_names.empty() ? "i" + std::to_string(d) : axis_names[d];
    node->axis.emplace_back(std::move(axis_name), shape[d].dtype());
  }

  LoadLog log;
  log.axis = &node->axis;
  log.shape = &shape;
  Expr value;
  {
    ScopedLoadLog scope(&log);
    value = fn(node->axis);
  }
  KILN_CHECK(value.defined(), ErrorKind::kInvalidIR,
             what + ": the index function returned nothing");

  LoadedBuffers loads;
  DataType dtype = value.dtype();
  if (auto reduction = AsReduction(value)) {
    KILN_CHECK(!ContainsReduction(reduction->source) &&
                   (!reduction->condition.defined() || !ContainsReduction(reduction->condition)),
               ErrorKind::kInvalidIR, what + ": a reducer inside a reducer");
    dtype = reduction->source.dtype();
    loads.VisitExpr(reduction->source);
    if (reduction->condition.defined()) loads.VisitExpr(reduction->condition);
    node->reduction = std::move(*reduction);
  } else {
    KILN_CHECK(!ContainsReduction(value), ErrorKind::kInvalidIR,
               what + ": a reducer (Sum, Max, Min, Prod) must be the whole value of its stage");
    node->body = value;
    loads.VisitExpr(value);
  }
  KILN_CHECK(dtype.is_scalar() && !dtype.is_handle() && !dtype.is_void(), ErrorKind::kType,
             what + ": the value's dtype " + dtype.ToString() + " is not a scalar element type");

  for (const Buffer& buffer : loads.buffers) {
    const Tensor* found = nullptr;
    for (const Tensor& t : log.tensors) {
      if (t.buffer().same_as(buffer)) found = &t;
    }
    KILN_CHECK(found != nullptr, ErrorKind::kInvalidIR,
               what + ": loads buffer " + buffer->name +
                   ", which was not loaded through a Tensor inside the index function");
    node->inputs.push_back(*found);
  }
  node->buffer = DeclBuffer(std::move(name), dtype, std::move(shape));
  return Tensor(std::move(node));
}

}  // namespace kiln::ir::compute
