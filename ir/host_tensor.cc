// HostTensor storage, element access by dtype, random fill and comparison.
#include "ir/host_tensor.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "support/error.h"
#include "support/half.h"

namespace kiln::ir {
namespace {

// splitmix64: a tiny, fully specified generator, so random inputs match across machines.
uint64_t SplitMix(uint64_t& state) {
  uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

template <typename T>
T Load(const uint8_t* base, int64_t i) {
  T v;
  std::memcpy(&v, base + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

template <typename T>
void Store(uint8_t* base, int64_t i, T v) {
  std::memcpy(base + i * static_cast<int64_t>(sizeof(T)), &v, sizeof(T));
}

}  // namespace

void HostTensor::SetShape(DataType dtype, std::vector<int64_t> shape) {
  KILN_CHECK(dtype.lanes() >= 1 && !dtype.is_handle(), ErrorKind::kType,
             "HostTensor: no tensor of dtype " + dtype.ToString());
  dtype_ = dtype;
  shape_ = std::move(shape);
  numel_ = 1;
  for (int64_t d : shape_) {
    KILN_CHECK(d >= 0, ErrorKind::kInvalidIR,
               "HostTensor: negative dimension " + std::to_string(d));
    numel_ *= d;
  }
}

HostTensor HostTensor::Borrow(DataType dtype, std::vector<int64_t> shape,
                              std::shared_ptr<uint8_t> data) {
  HostTensor tensor;
  tensor.SetShape(dtype, std::move(shape));
  KILN_CHECK(reinterpret_cast<uintptr_t>(data.get()) % 64 == 0, ErrorKind::kType,
             "HostTensor: borrowed memory for " + tensor.Describe() + " is not 64-byte aligned");
  tensor.data_ = std::move(data);
  return tensor;
}

HostTensor::HostTensor(DataType dtype, std::vector<int64_t> shape) {
  SetShape(dtype, std::move(shape));
  size_t bytes = std::max<size_t>(nbytes(), 1);
  size_t rounded = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, rounded);
  KILN_CHECK(p != nullptr, ErrorKind::kRuntime, "HostTensor: out of memory for " + Describe());
  std::memset(p, 0, rounded);
  data_ = std::shared_ptr<uint8_t>(static_cast<uint8_t*>(p), [](uint8_t* q) { std::free(q); });
}

double HostTensor::GetDouble(int64_t i) const {
  const uint8_t* b = data_.get();
  switch (dtype_.code()) {
    case DataType::Code::kBool:
      return Load<uint8_t>(b, i) != 0;
    case DataType::Code::kInt:
    case DataType::Code::kUInt:
      return static_cast<double>(GetInt(i));
    case DataType::Code::kFloat:
      if (dtype_.bits() == 16) return HalfToFloat(Load<uint16_t>(b, i));
      if (dtype_.bits() == 32) return Load<float>(b, i);
      return Load<double>(b, i);
    case DataType::Code::kBFloat:
      return BFloat16ToFloat(Load<uint16_t>(b, i));
    case DataType::Code::kHandle:
      break;
  }
  throw Error(ErrorKind::kInternal, "HostTensor::GetDouble on " + dtype_.ToString());
}

void HostTensor::SetDouble(int64_t i, double v) {
  uint8_t* b = data_.get();
  switch (dtype_.code()) {
    case DataType::Code::kBool:
      return Store<uint8_t>(b, i, v != 0);
    case DataType::Code::kInt:
    case DataType::Code::kUInt:
      // Out-of-range and NaN casts are undefined in C++; saturate instead of trapping.
      if (std::isnan(v)) return SetInt(i, 0);
      if (v >= 9.2e18) return SetInt(i, INT64_MAX);
      if (v <= -9.2e18) return SetInt(i, INT64_MIN);
      return SetInt(i, static_cast<int64_t>(v));
    case DataType::Code::kFloat:
      if (dtype_.bits() == 16) return Store<uint16_t>(b, i, FloatToHalf(static_cast<float>(v)));
      if (dtype_.bits() == 32) return Store<float>(b, i, static_cast<float>(v));
      return Store<double>(b, i, v);
    case DataType::Code::kBFloat:
      return Store<uint16_t>(b, i, FloatToBFloat16(static_cast<float>(v)));
    case DataType::Code::kHandle:
      break;
  }
  throw Error(ErrorKind::kInternal, "HostTensor::SetDouble on " + dtype_.ToString());
}

int64_t HostTensor::GetInt(int64_t i) const {
  const uint8_t* b = data_.get();
  if (dtype_.is_bool()) return Load<uint8_t>(b, i) != 0;
  if (dtype_.is_float()) return static_cast<int64_t>(GetDouble(i));
  // Each branch converts to int64_t itself: a ?: over int32_t and uint32_t would be unsigned.
  bool is_signed = dtype_.is_int();
  switch (dtype_.bits()) {
    case 8:
      return is_signed ? int64_t{Load<int8_t>(b, i)} : int64_t{Load<uint8_t>(b, i)};
    case 16:
      return is_signed ? int64_t{Load<int16_t>(b, i)} : int64_t{Load<uint16_t>(b, i)};
    case 32:
      return is_signed ? int64_t{Load<int32_t>(b, i)} : int64_t{Load<uint32_t>(b, i)};
    case 64:
      return is_signed ? Load<int64_t>(b, i) : static_cast<int64_t>(Load<uint64_t>(b, i));
  }
  throw Error(ErrorKind::kInternal, "HostTensor::GetInt on " + dtype_.ToString());
}

void HostTensor::SetInt(int64_t i, int64_t v) {
  uint8_t* b = data_.get();
  if (dtype_.is_bool()) return Store<uint8_t>(b, i, v != 0);
  if (dtype_.is_float()) return SetDouble(i, static_cast<double>(v));
  // Wraps modulo 2^bits, as a C cast to the unsigned type of that width does.
  switch (dtype_.bits()) {
    case 8:
      return Store<uint8_t>(b, i, static_cast<uint8_t>(v));
    case 16:
      return Store<uint16_t>(b, i, static_cast<uint16_t>(v));
    case 32:
      return Store<uint32_t>(b, i, static_cast<uint32_t>(v));
    case 64:
      return Store<uint64_t>(b, i, static_cast<uint64_t>(v));
  }
  throw Error(ErrorKind::kInternal, "HostTensor::SetInt on " + dtype_.ToString());
}

HostTensor HostTensor::Random(DataType dtype, std::vector<int64_t> shape, uint64_t seed, double low,
                              double high) {
  HostTensor t(dtype, std::move(shape));
  uint64_t state = seed;
  for (int64_t i = 0; i < t.numel(); ++i) {
    double u = static_cast<double>(SplitMix(state) >> 11) * 0x1.0p-53;  // [0, 1)
    if (dtype.is_float()) {
      t.SetDouble(i, low + u * (high - low));
    } else if (dtype.is_bool()) {
      t.SetInt(i, u < 0.5);
    } else {
      double lo = std::ceil(low), hi = std::floor(high);
      t.SetInt(i, static_cast<int64_t>(lo + std::floor(u * (hi - lo + 1))));
    }
  }
  return t;
}

HostTensor HostTensor::Clone() const {
  HostTensor copy(dtype_, shape_);
  std::memcpy(copy.data(), data(), nbytes());
  return copy;
}

std::string HostTensor::Describe() const {
  std::ostringstream os;
  os << dtype_.ToString() << "[";
  for (size_t i = 0; i < shape_.size(); ++i) os << (i ? ", " : "") << shape_[i];
  os << "]";
  return os.str();
}

TensorComparison CompareTensors(const HostTensor& expected, const HostTensor& actual, double rtol,
                                double atol) {
  TensorComparison result;
  if (expected.shape() != actual.shape()) {
    result.ok = false;
    result.message =
        "shape differs: expected " + expected.Describe() + ", got " + actual.Describe();
    return result;
  }
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double e = expected.GetDouble(i), a = actual.GetDouble(i);
    if (std::isnan(e) && std::isnan(a)) continue;
    if (std::isinf(e) && e == a) continue;
    double abs_err = std::fabs(a - e);
    if (std::isnan(abs_err)) abs_err = INFINITY;
    double rel_err = abs_err / std::max(std::fabs(e), 1e-30);
    result.max_abs_error = std::max(result.max_abs_error, abs_err);
    if (std::fabs(e) > atol) result.max_rel_error = std::max(result.max_rel_error, rel_err);
    if (!(abs_err <= atol + rtol * std::fabs(e))) {
      if (result.mismatches++ == 0) {
        result.first_mismatch = i;
        std::ostringstream os;
        os << "element " << i << ": expected " << e << ", got " << a;
        result.message = os.str();
      }
    }
  }
  if (result.mismatches > 0) {
    result.ok = false;
    result.message += " (" + std::to_string(result.mismatches) + " of " +
                      std::to_string(expected.numel()) + " elements differ)";
  }
  return result;
}

Tolerance DefaultTolerance(DataType dtype) {
  if (dtype.is_float()) {
    if (dtype.code() == DataType::Code::kBFloat) return {2e-2, 2e-2};
    if (dtype.bits() == 16) return {1e-2, 1e-2};
    if (dtype.bits() == 32) return {1e-4, 1e-5};
    return {1e-9, 1e-12};
  }
  return {0, 0};  // integers and bool: exact
}

}  // namespace kiln::ir
