// The run-time values of a Relax program as the reference executor computes them: a tensor in
// host memory, a tuple of values, a shape (concrete int64 dims) or a scalar (a Relax PrimValue:
// an integer or a float of a given dtype). Values are immutable once made; copies of a tensor
// value share its storage.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "ir/host_tensor.h"

namespace kiln::ir::relax::exec {

class Value;

// A shape value: the dims of R.shape([...]) once every symbolic dim is known.
struct ShapeValue {
  std::vector<int64_t> dims;
};

// A scalar: integers (and bool) are held exactly in `int_value`, floats in `float_value`.
struct PrimScalar {
  DataType dtype = DataType::Int(64);
  int64_t int_value = 0;
  double float_value = 0;
  double AsDouble() const {
    return dtype.is_float() ? float_value : static_cast<double>(int_value);
  }
};

class Value {
 public:
  enum class Kind : uint8_t { kTensor, kTuple, kShape, kPrim };

  Value() = default;
  static Value Tensor(HostTensor tensor);
  static Value Tuple(std::vector<Value> fields);
  static Value Shape(std::vector<int64_t> dims);
  static Value Int(int64_t value, DataType dtype = DataType::Int(64));
  static Value Float(double value, DataType dtype = DataType::Float(32));

  bool defined() const { return !std::holds_alternative<std::monostate>(data_); }
  Kind kind() const;
  bool is_tensor() const { return std::holds_alternative<HostTensor>(data_); }
  bool is_tuple() const { return std::holds_alternative<TupleFields>(data_); }
  bool is_shape() const { return std::holds_alternative<ShapeValue>(data_); }
  bool is_prim() const { return std::holds_alternative<PrimScalar>(data_); }

  // Typed reads; each throws kiln::Error(kRuntime) saying what the value is instead.
  const HostTensor& tensor() const;
  const std::vector<Value>& fields() const;
  const std::vector<int64_t>& shape() const;
  const PrimScalar& prim() const;

  // "float32[4, 8]", "(float32[4], int64 3)", "shape(2, 3)", "int64 3", "float32 0.5".
  std::string Describe() const;

 private:
  // Shared so that copying a deep tuple is cheap.
  using TupleFields = std::shared_ptr<const std::vector<Value>>;
  std::variant<std::monostate, HostTensor, TupleFields, ShapeValue, PrimScalar> data_;
};

const char* ValueKindName(Value::Kind kind);  // "tensor", "tuple", "shape", "scalar"

}  // namespace kiln::ir::relax::exec
