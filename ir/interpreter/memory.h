// The interpreter's memory: typed element access to a HostTensor's bytes, poisoned fresh
// allocations, and BufferView, a Buffer's shape, strides and offset evaluated to numbers over
// one storage, which turns an index tuple into a checked element offset.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/buffer.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/scalar_ops.h"

namespace kiln::ir::interp {

// How one lane is laid out in memory; resolved once per view so loads and stores switch on a
// small enum rather than on a DataType.
enum class ElemKind : uint8_t {
  kBool,
  kI8,
  kI16,
  kI32,
  kI64,
  kU8,
  kU16,
  kU32,
  kU64,
  kF16,
  kBF16,
  kF32,
  kF64
};
ElemKind ElemKindOf(DataType dtype);  // of dtype's lane type; kiln::Error(kType) for handles

Scalar LoadElem(const uint8_t* p, ElemKind kind);
// Stores a canonical value (already wrapped or rounded to the element's dtype).
void StoreElem(uint8_t* p, ElemKind kind, Scalar v);

// Fresh storage for `count` lanes of `dtype`, filled so that reading it before writing it
// shows up: NaN for floats, the byte pattern 0xA5 for integers and bool.
HostTensor AllocatePoisoned(DataType dtype, int64_t count);

struct BufferView {
  const BufferNode* buffer = nullptr;  // names the buffer in errors
  HostTensor storage;                  // shares the bytes it views
  ElemKind kind = ElemKind::kF32;
  int elem_bytes = 4;  // bytes of one lane
  int lanes = 1;       // lanes of the buffer's element dtype
  std::vector<int64_t> shape;
  std::vector<int64_t> strides;  // in elements of the buffer's dtype
  int64_t elem_offset = 0;
  int64_t capacity = 0;  // lanes the storage holds

  // The lane offset into storage of element `index` (ndim values), lane `sub` of a vector
  // element. Throws kiln::Error(kRuntime) naming the buffer, the index and the shape when the
  // index is outside the shape or the storage. `what` is "load" or "store".
  int64_t Offset(const int64_t* index, int sub, const char* what) const;
  uint8_t* At(int64_t offset) const {
    return static_cast<uint8_t*>(const_cast<void*>(storage.data())) + offset * elem_bytes;
  }
};

// A view of `buffer` over `storage` with the given evaluated shape, strides (empty: compact
// row-major) and element offset.
BufferView MakeView(const BufferNode* buffer, HostTensor storage, std::vector<int64_t> shape,
                    std::vector<int64_t> strides, int64_t elem_offset);

// "[3, 7]".
std::string FormatTuple(const int64_t* values, size_t n);

}  // namespace kiln::ir::interp
