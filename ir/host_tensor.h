// HostTensor: a dense, row-major tensor in host memory (64-byte aligned), of any Kiln dtype.
// It is what the reference interpreter computes on, what the CPU runtime passes to kernels,
// and what tests compare. Elements can be read and written as double whatever the dtype
// (float16/bfloat16 converted, bool as 0/1), which keeps the oracle code dtype-generic.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ir/dtype.h"

namespace kiln::ir {

class HostTensor {
 public:
  HostTensor() = default;
  // Zero-filled.
  HostTensor(DataType dtype, std::vector<int64_t> shape);
  // A tensor over memory it does not allocate (a caller's array, read in place): `data` is
  // 64-byte aligned and holds the tensor's bytes; its deleter runs when the last copy of the
  // tensor goes, which is how the caller's array is kept alive. kiln::Error(kType) when `data`
  // is not 64-byte aligned.
  static HostTensor Borrow(DataType dtype, std::vector<int64_t> shape,
                           std::shared_ptr<uint8_t> data);

  DataType dtype() const { return dtype_; }
  const std::vector<int64_t>& shape() const { return shape_; }
  int64_t numel() const { return numel_; }
  size_t nbytes() const { return static_cast<size_t>(numel_) * dtype_.bytes() * dtype_.lanes(); }
  void* data() { return data_.get(); }
  const void* data() const { return data_.get(); }
  bool defined() const { return data_ != nullptr || numel_ == 0; }

  // Element `flat` (row-major index) as a double, and back (rounded/wrapped as a C cast
  // to the dtype would; float16 and bfloat16 round to nearest even).
  double GetDouble(int64_t flat) const;
  void SetDouble(int64_t flat, double value);
  // Integer access without the round trip through double (exact for int64).
  int64_t GetInt(int64_t flat) const;
  void SetInt(int64_t flat, int64_t value);

  // Seeded uniform random values in [low, high) (integers: [low, high] rounded); the same
  // seed gives the same tensor on every machine.
  static HostTensor Random(DataType dtype, std::vector<int64_t> shape, uint64_t seed,
                           double low = -1.0, double high = 1.0);
  HostTensor Clone() const;

  // "float32[4, 8]".
  std::string Describe() const;

 private:
  // Checks the dtype and the dims and counts the elements.
  void SetShape(DataType dtype, std::vector<int64_t> shape);

  DataType dtype_ = DataType::Float(32);
  std::vector<int64_t> shape_;
  int64_t numel_ = 0;
  std::shared_ptr<uint8_t> data_;
};

// The result of comparing an actual tensor with the expected one, elementwise:
// |actual - expected| <= atol + rtol * |expected|, NaN equal to NaN, inf equal to inf.
struct TensorComparison {
  bool ok = true;
  double max_abs_error = 0;
  double max_rel_error = 0;
  int64_t mismatches = 0;
  int64_t first_mismatch = -1;  // flat index
  std::string message;          // empty when ok; otherwise says where and by how much
};
TensorComparison CompareTensors(const HostTensor& expected, const HostTensor& actual, double rtol,
                                double atol);

// Tolerances suited to a dtype when comparing a kernel with the reference interpreter.
struct Tolerance {
  double rtol, atol;
};
Tolerance DefaultTolerance(DataType dtype);

}  // namespace kiln::ir
