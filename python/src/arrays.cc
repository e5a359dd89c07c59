// The dtype mapping between DLPack and Kiln, the strided copy in, and the owning array out.
#include "python/src/arrays.h"

#include <cstring>
#include <vector>

#include "support/error.h"

namespace nb = nanobind;

namespace kiln::python {
namespace {

constexpr uint8_t kCodeInt = static_cast<uint8_t>(nb::dlpack::dtype_code::Int);
constexpr uint8_t kCodeUInt = static_cast<uint8_t>(nb::dlpack::dtype_code::UInt);
constexpr uint8_t kCodeFloat = static_cast<uint8_t>(nb::dlpack::dtype_code::Float);
constexpr uint8_t kCodeBfloat = static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat);
constexpr uint8_t kCodeBool = static_cast<uint8_t>(nb::dlpack::dtype_code::Bool);

nb::dlpack::dtype DlpackOf(ir::DataType dtype) {
  nb::dlpack::dtype out{0, static_cast<uint8_t>(dtype.bits()), 1};
  switch (dtype.code()) {
    case ir::DataType::Code::kBool:
      out.code = kCodeBool, out.bits = 8;
      break;
    case ir::DataType::Code::kInt:
      out.code = kCodeInt;
      break;
    case ir::DataType::Code::kUInt:
      out.code = kCodeUInt;
      break;
    case ir::DataType::Code::kFloat:
      out.code = kCodeFloat;
      break;
    case ir::DataType::Code::kBFloat:
      out.code = kCodeBfloat;
      break;
    case ir::DataType::Code::kHandle:
      throw Error(ErrorKind::kUnsupported, "a handle is not an array element type");
  }
  return out;
}

// Copies dimension `d` onwards of a strided array into dense memory.
void GatherStrided(const uint8_t* src, uint8_t* dst, size_t element, const InputArray& array,
                   size_t d, size_t& written) {
  int64_t extent = static_cast<int64_t>(array.shape(d));
  int64_t stride = array.stride(d) * static_cast<int64_t>(element);
  if (d + 1 == array.ndim()) {
    for (int64_t i = 0; i < extent; ++i) {
      std::memcpy(dst + written, src + i * stride, element);
      written += element;
    }
    return;
  }
  for (int64_t i = 0; i < extent; ++i) {
    GatherStrided(src + i * stride, dst, element, array, d + 1, written);
  }
}

// str(value), as Python spells it.
std::string Str(nb::handle value) {
  nb::object text = nb::steal(PyObject_Str(value.ptr()));
  if (!text.is_valid()) throw nb::python_error();
  return nb::cast<std::string>(text);
}

bool IsRowMajor(const InputArray& array) {
  int64_t expected = 1;
  for (size_t d = array.ndim(); d-- > 0;) {
    if (array.shape(d) != 1 && array.stride(d) != expected) return false;
    expected *= static_cast<int64_t>(array.shape(d));
  }
  return true;
}

}  // namespace

std::optional<ir::DataType> DataTypeOf(const InputArray& array) {
  nb::dlpack::dtype d = array.dtype();
  if (d.lanes != 1) return std::nullopt;
  if (d.code == kCodeBool && d.bits == 8) return ir::DataType::Bool();
  if (d.code == kCodeInt && (d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64)) {
    return ir::DataType::Int(d.bits);
  }
  if (d.code == kCodeUInt && (d.bits == 8 || d.bits == 16 || d.bits == 32 || d.bits == 64)) {
    return ir::DataType::UInt(d.bits);
  }
  if (d.code == kCodeFloat && (d.bits == 16 || d.bits == 32 || d.bits == 64)) {
    return ir::DataType::Float(d.bits);
  }
  if (d.code == kCodeBfloat && d.bits == 16) return ir::DataType::BFloat16();
  return std::nullopt;
}

InputArray AsInputArray(nb::handle value, const std::string& what) {
  InputArray array;
  if (nb::try_cast(value, array, /*convert=*/false)) return array;
  nb::object converted;
  try {
    converted = nb::module_::import_("numpy").attr("asarray")(value);
  } catch (const nb::python_error& e) {
    throw Error(ErrorKind::kType, what + ": not an array (" + std::string(e.what()) + ")");
  }
  KILN_CHECK(nb::try_cast(converted, array, false), ErrorKind::kType,
             what + ": not an array on the CPU (" + Str(value.type().attr("__name__")) + ")");
  return array;
}

std::string DtypeName(nb::handle value, const InputArray& array) {
  if (auto dtype = DataTypeOf(array)) return dtype->ToString();
  if (nb::hasattr(value, "dtype")) return Str(value.attr("dtype"));
  return "an element type Kiln has no dtype for";
}

ir::HostTensor InputTensor(const InputArray& array, ir::DataType dtype, bool* copied) {
  std::vector<int64_t> shape(array.ndim());
  for (size_t d = 0; d < array.ndim(); ++d) shape[d] = static_cast<int64_t>(array.shape(d));
  auto* data = static_cast<uint8_t*>(const_cast<void*>(array.data()));
  if (array.size() > 0 && IsRowMajor(array) && reinterpret_cast<uintptr_t>(data) % 64 == 0) {
    // Kernels only read their inputs. The array (a reference to its producer) lives in the
    // deleter, which may run on a thread without the GIL.
    auto* keep = new InputArray(array);
    return ir::HostTensor::Borrow(dtype, std::move(shape),
                                  std::shared_ptr<uint8_t>(data, [keep](uint8_t*) {
                                    nb::gil_scoped_acquire acquire;
                                    delete keep;
                                  }));
  }
  *copied = true;
  ir::HostTensor tensor(dtype, shape);
  if (tensor.nbytes() == 0) return tensor;
  const auto* src = static_cast<const uint8_t*>(array.data());
  auto* dst = static_cast<uint8_t*>(tensor.data());
  if (IsRowMajor(array)) {
    std::memcpy(dst, src, tensor.nbytes());
  } else {
    size_t written = 0;
    GatherStrided(src, dst, array.itemsize(), array, 0, written);
  }
  return tensor;
}

nb::object ToNumpy(const ir::HostTensor& tensor) {
  auto* owned = new ir::HostTensor(tensor);  // shares the buffer
  nb::capsule owner(owned, [](void* p) noexcept { delete static_cast<ir::HostTensor*>(p); });
  std::vector<size_t> shape(tensor.shape().begin(), tensor.shape().end());
  nb::ndarray<nb::numpy> array(owned->data(), shape.size(), shape.data(), owner, nullptr,
                               DlpackOf(tensor.dtype()));
  return array.cast();
}

}  // namespace kiln::python
