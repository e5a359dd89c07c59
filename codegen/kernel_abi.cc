// SignatureOf: the packed slots of a kernel, derived from its PrimFunc's parameters.
#include "codegen/kernel_abi.h"

#include <unordered_set>

#include "codegen/passes/ir_utils.h"

namespace kiln::codegen {

using namespace ir;

KernelSignature SignatureOf(const PrimFunc& f, const std::string& symbol) {
  KernelSignature sig;
  sig.symbol = symbol;
  std::unordered_set<const VarNode*> defined;
  for (size_t i = 0; i < f->params.size(); ++i) {
    const Var& param = f->params[i];
    defined.insert(param.get());
    ArgSlot slot;
    slot.name = param.name();
    slot.param_index = static_cast<int>(i);
    if (auto buffer = f->BufferOf(param)) {
      slot.kind = SlotKind::kBufferData;
      slot.dtype = (*buffer)->dtype;
    } else {
      DataType t = param.dtype();
      KILN_CHECK(!t.is_handle() && t.is_scalar(), ErrorKind::kUnsupported,
                 "function " + f->name + ": parameter " + param.name() + " of type " +
                     t.ToString() + " has no buffer and is not a scalar");
      slot.kind = t.is_float() ? SlotKind::kScalarFloat : SlotKind::kScalarInt;
      slot.dtype = t;
    }
    sig.slots.push_back(std::move(slot));
  }
  // Shape variables: a Var that is a whole dimension of a parameter's buffer, in order of
  // first appearance.
  for (size_t i = 0; i < f->params.size(); ++i) {
    auto buffer = f->BufferOf(f->params[i]);
    if (!buffer) continue;
    for (size_t d = 0; d < (*buffer)->shape.size(); ++d) {
      const auto* var = (*buffer)->shape[d].as<VarNode>();
      if (var == nullptr || defined.count(var)) continue;
      defined.insert(var);
      sig.slots.push_back(ArgSlot{SlotKind::kShapeVar, var->name, var->dtype, static_cast<int>(i),
                                  static_cast<int>(d)});
    }
  }
  // Every other variable in buffer metadata must be one of those: the runtime has no other
  // way to pass it.
  for (size_t i = 0; i < f->params.size(); ++i) {
    auto buffer = f->BufferOf(f->params[i]);
    if (!buffer) continue;
    std::vector<Expr> meta = (*buffer)->shape;
    meta.insert(meta.end(), (*buffer)->strides.begin(), (*buffer)->strides.end());
    if ((*buffer)->elem_offset.defined()) meta.push_back((*buffer)->elem_offset);
    for (const Expr& e : meta) {
      ForEachVar(e, [&](const Var& v) {
        KILN_CHECK(defined.count(v.get()) > 0, ErrorKind::kUnsupported,
                   "function " + f->name + ": variable " + v.name() + " in the shape of buffer " +
                       (*buffer)->name + " is neither a parameter nor a whole dimension of a " +
                       "parameter's buffer, so no kernel argument can carry it");
      });
    }
  }
  return sig;
}

}  // namespace kiln::codegen
