// The entry's parameters and their seeded values.
#include "validate/model_inputs.h"

#include "ir/relax/dim.h"
#include "ir/relax/struct_info.h"
#include "support/error.h"

namespace kiln::validate {

std::vector<EntryParam> EntryParams(const ir::relax::IRModule& module, const std::string& entry) {
  const ir::relax::Function* f = module.LookupFunction(entry);
  KILN_CHECK(f != nullptr, ErrorKind::kInvalidIR, "no entry function " + entry);
  std::vector<EntryParam> out;
  for (const ir::relax::Var& p : (*f)->params) {
    const auto* t = p.struct_info().as<ir::relax::TensorStructInfoNode>();
    KILN_CHECK(t != nullptr && t->shape && !t->unknown_dtype(), ErrorKind::kUnsupported,
               "input " + p.name() + ": a tensor of known dtype and shape expected, got " +
                   p.struct_info().ToString());
    EntryParam e{p.name(), t->dtype, {}};
    for (const ir::relax::PrimExpr& d : *t->shape) {
      std::optional<int64_t> v = ir::AsConstInt(d);
      KILN_CHECK(v.has_value(), ErrorKind::kUnsupported,
                 "input " + p.name() + ": dim " + ir::relax::DimToString(d) +
                     " is symbolic; bind it with --dim NAME=VALUE");
      e.shape.push_back(*v);
    }
    out.push_back(std::move(e));
  }
  return out;
}

ir::HostTensor SeededInput(const EntryParam& param, uint64_t seed) {
  return ir::HostTensor::Random(param.dtype, param.shape, seed, param.dtype.is_float() ? -1 : 0, 1);
}

std::vector<ir::HostTensor> SeededInputs(const std::vector<EntryParam>& params, uint64_t seed) {
  std::vector<ir::HostTensor> out;
  for (size_t i = 0; i < params.size(); ++i) out.push_back(SeededInput(params[i], seed + i));
  return out;
}

}  // namespace kiln::validate
