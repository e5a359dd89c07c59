// PackArguments and CallKernel.
#include "runtime/kernel_args.h"

#include <algorithm>

#include "support/error.h"

namespace kiln::runtime {

using codegen::ArgSlot;
using codegen::PackedValue;
using codegen::SlotKind;

int NumParams(const codegen::KernelSignature& signature) {
  int n = 0;
  for (const ArgSlot& slot : signature.slots) n = std::max(n, slot.param_index + 1);
  return n;
}

std::vector<PackedValue> PackArguments(const codegen::KernelSignature& signature,
                                       std::vector<ir::ArgValue>& args) {
  const std::string where = "kernel " + signature.symbol;
  int num_params = NumParams(signature);
  KILN_CHECK(static_cast<int>(args.size()) == num_params, ErrorKind::kType,
             where + ": expected " + std::to_string(num_params) + " arguments, got " +
                 std::to_string(args.size()));
  std::vector<PackedValue> packed(signature.slots.size());
  for (size_t s = 0; s < signature.slots.size(); ++s) {
    const ArgSlot& slot = signature.slots[s];
    KILN_CHECK(slot.param_index >= 0, ErrorKind::kType,
               where + ": slot " + std::to_string(s) + " has no parameter index");
    ir::ArgValue& arg = args[slot.param_index];
    std::string param =
        where + ": parameter " + std::to_string(slot.param_index) + " (" + slot.name + ")";
    switch (slot.kind) {
      case SlotKind::kBufferData: {
        auto* tensor = std::get_if<ir::HostTensor>(&arg);
        KILN_CHECK(tensor != nullptr, ErrorKind::kType, param + " expects a tensor");
        KILN_CHECK(
            tensor->dtype() == slot.dtype, ErrorKind::kType,
            param + " expects a " + slot.dtype.ToString() + " tensor, got " + tensor->Describe());
        packed[s].ptr = tensor->data();
        break;
      }
      case SlotKind::kScalarInt: {
        auto* value = std::get_if<int64_t>(&arg);
        KILN_CHECK(value != nullptr, ErrorKind::kType, param + " expects an integer");
        packed[s].i = *value;
        break;
      }
      case SlotKind::kScalarFloat: {
        auto* value = std::get_if<double>(&arg);
        KILN_CHECK(value != nullptr, ErrorKind::kType, param + " expects a float");
        packed[s].f = *value;
        break;
      }
      case SlotKind::kShapeVar: {
        auto* tensor = std::get_if<ir::HostTensor>(&arg);
        KILN_CHECK(tensor != nullptr, ErrorKind::kType,
                   where + ": shape variable " + slot.name + " comes from " + param +
                       ", which is not a tensor");
        KILN_CHECK(slot.dim >= 0 && slot.dim < static_cast<int>(tensor->shape().size()),
                   ErrorKind::kType,
                   where + ": shape variable " + slot.name + " is dimension " +
                       std::to_string(slot.dim) + " of " + param + ", a " + tensor->Describe());
        packed[s].i = tensor->shape()[slot.dim];
        break;
      }
    }
  }
  return packed;
}

void CallKernel(KernelFunction kernel, const codegen::KernelSignature& signature,
                const std::vector<PackedValue>& packed) {
  int32_t code = kernel(packed.data(), static_cast<int32_t>(packed.size()));
  KILN_CHECK(code == 0, ErrorKind::kRuntime,
             "kernel " + signature.symbol + " returned code " + std::to_string(code));
}

}  // namespace kiln::runtime
