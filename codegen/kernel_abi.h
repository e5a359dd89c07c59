// The calling convention of every kernel Kiln generates for the CPU (and, with device
// pointers, for the GPU backends): one packed array of 8-byte slots.
//
//   extern "C" int32_t SYMBOL(const kiln_value_t* args, int32_t num_args);
//
// returns 0 on success and a non-zero code on failure (wrong num_args, ...). The slots are,
// in order: one per PrimFunc parameter (a buffer parameter passes its data pointer, a scalar
// parameter its value), then one int64 per symbolic shape variable, in order of first
// appearance in the parameters' buffer shapes. The runtime fills the shape slots from the
// tensors it passes, so a kernel never needs to see tensor metadata.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "ir/function.h"

namespace kiln::codegen {

// One slot of the packed argument array. Matches `kiln_value_t` in generated C.
union PackedValue {
  void* ptr;
  int64_t i;
  double f;
};
static_assert(sizeof(PackedValue) == 8);

enum class SlotKind : uint8_t {
  kBufferData,   // PackedValue::ptr: the data of param `param_index`'s buffer
  kScalarInt,    // PackedValue::i: scalar param `param_index` (any integer dtype)
  kScalarFloat,  // PackedValue::f: scalar param `param_index` (any float dtype)
  kShapeVar,     // PackedValue::i: dimension `dim` of param `param_index`'s buffer
};

struct ArgSlot {
  SlotKind kind;
  std::string name;       // the parameter or shape variable's name
  ir::DataType dtype;     // buffer element dtype, scalar dtype, or the shape var's dtype
  int param_index = -1;   // which PrimFunc parameter
  int dim = -1;           // for kShapeVar: which dimension of that parameter's buffer
};

struct KernelSignature {
  std::string symbol;  // the exported C symbol
  std::vector<ArgSlot> slots;
};

// The signature of the kernel generated for `f` under `symbol`.
KernelSignature SignatureOf(const ir::PrimFunc& f, const std::string& symbol);

}  // namespace kiln::codegen
