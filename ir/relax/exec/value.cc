// Run-time values of the reference executor.
#include "ir/relax/exec/value.h"

#include <sstream>

#include "support/error.h"

namespace kiln::ir::relax::exec {

const char* ValueKindName(Value::Kind kind) {
  switch (kind) {
    case Value::Kind::kTensor:
      return "tensor";
    case Value::Kind::kTuple:
      return "tuple";
    case Value::Kind::kShape:
      return "shape";
    case Value::Kind::kPrim:
      return "scalar";
  }
  return "?";
}

Value Value::Tensor(HostTensor tensor) {
  Value v;
  v.data_ = std::move(tensor);
  return v;
}

Value Value::Tuple(std::vector<Value> fields) {
  Value v;
  v.data_ = std::make_shared<const std::vector<Value>>(std::move(fields));
  return v;
}

Value Value::Shape(std::vector<int64_t> dims) {
  Value v;
  v.data_ = ShapeValue{std::move(dims)};
  return v;
}

Value Value::Int(int64_t value, DataType dtype) {
  KILN_CHECK(dtype.is_integral() && dtype.is_scalar(), ErrorKind::kInternal,
             "Value::Int: " + dtype.ToString() + " is not an integer dtype");
  Value v;
  v.data_ = PrimScalar{dtype, value, 0.0};
  return v;
}

Value Value::Float(double value, DataType dtype) {
  KILN_CHECK(dtype.is_float() && dtype.is_scalar(), ErrorKind::kInternal,
             "Value::Float: " + dtype.ToString() + " is not a float dtype");
  Value v;
  v.data_ = PrimScalar{dtype, 0, value};
  return v;
}

Value::Kind Value::kind() const {
  KILN_CHECK(defined(), ErrorKind::kInternal, "an undefined executor value has no kind");
  if (is_tensor()) return Kind::kTensor;
  if (is_tuple()) return Kind::kTuple;
  if (is_shape()) return Kind::kShape;
  return Kind::kPrim;
}

namespace {

[[noreturn]] void WrongKind(const Value& v, const char* wanted) {
  throw Error(ErrorKind::kRuntime,
              std::string("expected a ") + wanted + " value, got " + v.Describe());
}

}  // namespace

const HostTensor& Value::tensor() const {
  if (!is_tensor()) WrongKind(*this, "tensor");
  return std::get<HostTensor>(data_);
}

const std::vector<Value>& Value::fields() const {
  if (!is_tuple()) WrongKind(*this, "tuple");
  return *std::get<TupleFields>(data_);
}

const std::vector<int64_t>& Value::shape() const {
  if (!is_shape()) WrongKind(*this, "shape");
  return std::get<ShapeValue>(data_).dims;
}

const PrimScalar& Value::prim() const {
  if (!is_prim()) WrongKind(*this, "scalar");
  return std::get<PrimScalar>(data_);
}

std::string Value::Describe() const {
  if (!defined()) return "<undefined>";
  switch (kind()) {
    case Kind::kTensor:
      return tensor().Describe();
    case Kind::kTuple: {
      std::string s = "(";
      const auto& f = fields();
      for (size_t i = 0; i < f.size(); ++i) s += (i ? ", " : "") + f[i].Describe();
      return s + (f.size() == 1 ? ",)" : ")");
    }
    case Kind::kShape: {
      std::string s = "shape(";
      const auto& d = shape();
      for (size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
      return s + ")";
    }
    case Kind::kPrim: {
      const PrimScalar& p = prim();
      std::ostringstream os;
      os << p.dtype.ToString() << " ";
      if (p.dtype.is_float()) {
        os << p.float_value;
      } else {
        os << p.int_value;
      }
      return os.str();
    }
  }
  return "?";
}

}  // namespace kiln::ir::relax::exec
