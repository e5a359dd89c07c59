// Typed loads and stores, poisoned allocations and checked buffer indexing.
#include "ir/interpreter/memory.h"

#include <cmath>
#include <cstring>

#include "support/error.h"
#include "support/half.h"

namespace kiln::ir::interp {
namespace {

template <typename T>
T Read(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

template <typename T>
void Write(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace

ElemKind ElemKindOf(DataType dtype) {
  switch (dtype.code()) {
    case DataType::Code::kBool:
      return ElemKind::kBool;
    case DataType::Code::kInt:
      switch (dtype.bits()) {
        case 8:
          return ElemKind::kI8;
        case 16:
          return ElemKind::kI16;
        case 32:
          return ElemKind::kI32;
        case 64:
          return ElemKind::kI64;
      }
      break;
    case DataType::Code::kUInt:
      switch (dtype.bits()) {
        case 8:
          return ElemKind::kU8;
        case 16:
          return ElemKind::kU16;
        case 32:
          return ElemKind::kU32;
        case 64:
          return ElemKind::kU64;
      }
      break;
    case DataType::Code::kFloat:
      switch (dtype.bits()) {
        case 16:
          return ElemKind::kF16;
        case 32:
          return ElemKind::kF32;
        case 64:
          return ElemKind::kF64;
      }
      break;
    case DataType::Code::kBFloat:
      return ElemKind::kBF16;
    case DataType::Code::kHandle:
      break;
  }
  throw Error(ErrorKind::kType, "no memory layout for dtype " + dtype.ToString());
}

Scalar LoadElem(const uint8_t* p, ElemKind kind) {
  switch (kind) {
    case ElemKind::kBool:
      return Scalar::Int(Read<uint8_t>(p) != 0);
    case ElemKind::kI8:
      return Scalar::Int(Read<int8_t>(p));
    case ElemKind::kI16:
      return Scalar::Int(Read<int16_t>(p));
    case ElemKind::kI32:
      return Scalar::Int(Read<int32_t>(p));
    case ElemKind::kI64:
      return Scalar::Int(Read<int64_t>(p));
    case ElemKind::kU8:
      return Scalar::Int(Read<uint8_t>(p));
    case ElemKind::kU16:
      return Scalar::Int(Read<uint16_t>(p));
    case ElemKind::kU32:
      return Scalar::Int(Read<uint32_t>(p));
    case ElemKind::kU64:
      return Scalar::Int(static_cast<int64_t>(Read<uint64_t>(p)));
    case ElemKind::kF16:
      return Scalar::Float(HalfToFloat(Read<uint16_t>(p)));
    case ElemKind::kBF16:
      return Scalar::Float(BFloat16ToFloat(Read<uint16_t>(p)));
    case ElemKind::kF32:
      return Scalar::Float(Read<float>(p));
    case ElemKind::kF64:
      return Scalar::Float(Read<double>(p));
  }
  return Scalar{};
}

void StoreElem(uint8_t* p, ElemKind kind, Scalar v) {
  switch (kind) {
    case ElemKind::kBool:
      return Write<uint8_t>(p, v.i != 0);
    case ElemKind::kI8:
    case ElemKind::kU8:
      return Write<uint8_t>(p, static_cast<uint8_t>(v.i));
    case ElemKind::kI16:
    case ElemKind::kU16:
      return Write<uint16_t>(p, static_cast<uint16_t>(v.i));
    case ElemKind::kI32:
    case ElemKind::kU32:
      return Write<uint32_t>(p, static_cast<uint32_t>(v.i));
    case ElemKind::kI64:
    case ElemKind::kU64:
      return Write<int64_t>(p, v.i);
    case ElemKind::kF16:
      return Write<uint16_t>(p, FloatToHalf(static_cast<float>(v.f)));
    case ElemKind::kBF16:
      return Write<uint16_t>(p, FloatToBFloat16(static_cast<float>(v.f)));
    case ElemKind::kF32:
      return Write<float>(p, static_cast<float>(v.f));
    case ElemKind::kF64:
      return Write<double>(p, v.f);
  }
}

HostTensor AllocatePoisoned(DataType dtype, int64_t count) {
  DataType lane = dtype.element_of();
  HostTensor t(lane, {count * dtype.lanes()});
  if (!lane.is_float()) {
    std::memset(t.data(), 0xA5, t.nbytes());
    return t;
  }
  ElemKind kind = ElemKindOf(lane);
  auto* p = static_cast<uint8_t*>(t.data());
  int bytes = lane.bytes();
  for (int64_t i = 0; i < t.numel(); ++i) StoreElem(p + i * bytes, kind, Scalar::Float(NAN));
  return t;
}

std::string FormatTuple(const int64_t* values, size_t n) {
  std::string s = "[";
  for (size_t i = 0; i < n; ++i) s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}

BufferView MakeView(const BufferNode* buffer, HostTensor storage, std::vector<int64_t> shape,
                    std::vector<int64_t> strides, int64_t elem_offset) {
  BufferView v;
  v.buffer = buffer;
  v.kind = ElemKindOf(buffer->dtype);
  v.elem_bytes = buffer->dtype.bytes();
  v.lanes = buffer->dtype.lanes();
  v.capacity = static_cast<int64_t>(storage.nbytes()) / v.elem_bytes;
  v.storage = std::move(storage);
  if (strides.empty()) {
    strides.assign(shape.size(), 1);
    for (size_t d = shape.size(); d-- > 1;) strides[d - 1] = strides[d] * shape[d];
  }
  if (strides.size() != shape.size()) {
    throw Error(ErrorKind::kInvalidIR, "buffer " + buffer->name + ": " +
                                           std::to_string(strides.size()) + " strides for " +
                                           std::to_string(shape.size()) + " dimensions");
  }
  v.shape = std::move(shape);
  v.strides = std::move(strides);
  v.elem_offset = elem_offset;
  return v;
}

int64_t BufferView::Offset(const int64_t* index, int sub, const char* what) const {
  int64_t element = elem_offset;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape[d]) {
      throw Error(ErrorKind::kRuntime, std::string("out-of-bounds ") + what + " of " +
                                           buffer->name + FormatTuple(index, shape.size()) +
                                           ": shape is " + FormatTuple(shape.data(), shape.size()));
    }
    element += index[d] * strides[d];
  }
  int64_t lane = element * lanes + sub;
  if (element < 0 || lane >= capacity) {
    throw Error(ErrorKind::kRuntime, std::string("out-of-bounds ") + what + " of " + buffer->name +
                                         FormatTuple(index, shape.size()) + ": element " +
                                         std::to_string(element) + " is outside its storage of " +
                                         std::to_string(capacity / lanes) + " elements (strides " +
                                         FormatTuple(strides.data(), strides.size()) + ", offset " +
                                         std::to_string(elem_offset) + ")");
  }
  return lane;
}

}  // namespace kiln::ir::interp
