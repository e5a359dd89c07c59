// Run-time shape ops. Their semantics follow the struct info inference in ir/relax/op/shape.cc
// (the same index normalization and slice clamping), so a static shape and the run-time one
// cannot disagree.
#include "ir/relax/exec/shape_ops.h"

#include <algorithm>

#include "support/error.h"

namespace kiln::ir::relax::exec {

namespace {

[[noreturn]] void Fail(const CallNode& call, const std::string& message) {
  throw Error(ErrorKind::kRuntime, "R." + call.op + ": " + message);
}

const std::vector<int64_t>& ShapeArg(const CallNode& call, const std::vector<Value>& args,
                                     size_t i) {
  if (i >= args.size() || !args[i].is_shape()) {
    Fail(call, "argument " + std::to_string(i) + " must be a shape, got " +
                   (i < args.size() ? args[i].Describe() : std::string("nothing")));
  }
  return args[i].shape();
}

Value ShapeGet(const CallNode& call, const std::vector<Value>& args) {
  const std::vector<int64_t>& s = ShapeArg(call, args, 0);
  int64_t n = static_cast<int64_t>(s.size());
  int64_t index = call.attrs.GetInt("index");
  int64_t i = index < 0 ? index + n : index;
  if (i < 0 || i >= n) {
    Fail(call, "index " + std::to_string(index) + " is out of range for a shape of rank " +
                   std::to_string(n));
  }
  return Value::Int(s[i]);
}

Value ShapeSlice(const CallNode& call, const std::vector<Value>& args) {
  const std::vector<int64_t>& s = ShapeArg(call, args, 0);
  int64_t n = static_cast<int64_t>(s.size());
  auto clamp = [&](int64_t v) { return std::clamp(v < 0 ? v + n : v, int64_t{0}, n); };
  int64_t begin = clamp(call.attrs.GetInt("begin"));
  int64_t end = call.attrs.Has("end") ? clamp(call.attrs.GetInt("end")) : n;
  if (end < begin) end = begin;
  return Value::Shape(std::vector<int64_t>(s.begin() + begin, s.begin() + end));
}

Value ShapeConcat(const CallNode& call, const std::vector<Value>& args) {
  std::vector<int64_t> dims;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_shape()) {
      dims.insert(dims.end(), args[i].shape().begin(), args[i].shape().end());
    } else if (args[i].is_prim() && !args[i].prim().dtype.is_float()) {
      dims.push_back(args[i].prim().int_value);
    } else {
      Fail(call, "argument " + std::to_string(i) + " must be a shape or an integer, got " +
                     args[i].Describe());
    }
  }
  return Value::Shape(std::move(dims));
}

Value TensorToShape(const CallNode& call, const std::vector<Value>& args) {
  if (args.empty() || !args[0].is_tensor()) {
    Fail(call, "needs a tensor, got " + (args.empty() ? "nothing" : args[0].Describe()));
  }
  const HostTensor& t = args[0].tensor();
  if (t.shape().size() != 1 || !t.dtype().is_int() || !t.dtype().is_scalar()) {
    Fail(call, "needs a 1-D integer tensor, got " + t.Describe());
  }
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < t.numel(); ++i) dims.push_back(t.GetInt(i));
  return Value::Shape(std::move(dims));
}

Value ShapeToTensor(const CallNode& call, const std::vector<Value>& args) {
  const std::vector<int64_t>& s = ShapeArg(call, args, 0);
  HostTensor t(DataType::Int(64), {static_cast<int64_t>(s.size())});
  for (size_t i = 0; i < s.size(); ++i) t.SetInt(static_cast<int64_t>(i), s[i]);
  return Value::Tensor(std::move(t));
}

}  // namespace

bool IsShapeOp(const std::string& op) {
  return op == "shape_of" || op == "shape_get" || op == "shape_slice" || op == "shape_concat" ||
         op == "tensor_to_shape" || op == "shape_to_tensor";
}

Value RunShapeOp(const CallNode& call, const std::vector<Value>& args) {
  if (call.op == "shape_of") {
    if (args.empty() || !args[0].is_tensor()) {
      Fail(call, "needs a tensor, got " + (args.empty() ? "nothing" : args[0].Describe()));
    }
    return Value::Shape(args[0].tensor().shape());
  }
  if (call.op == "shape_get") return ShapeGet(call, args);
  if (call.op == "shape_slice") return ShapeSlice(call, args);
  if (call.op == "shape_concat") return ShapeConcat(call, args);
  if (call.op == "tensor_to_shape") return TensorToShape(call, args);
  if (call.op == "shape_to_tensor") return ShapeToTensor(call, args);
  throw Error(ErrorKind::kInternal, "RunShapeOp: " + call.op + " is not a shape op");
}

}  // namespace kiln::ir::relax::exec
