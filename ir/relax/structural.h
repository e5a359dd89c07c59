// Structural equality and hashing of Relax functions, up to the renaming of variables (Relax
// variables and shape variables alike) and of the function itself. Two graphs that compute the
// same thing op by op hash alike on every machine, which is how repeated subgraphs (the
// layers of a transformer) are recognized. Constants compare by dtype, shape and bytes.
#pragma once

#include <cstdint>
#include <string>

#include "ir/relax/module.h"

namespace kiln::ir::relax {

bool StructuralEqual(const Function& a, const Function& b);
uint64_t StructuralHash(const Function& f);
// The canonical token stream, readable; for debugging a hash mismatch.
std::string CanonicalForm(const Function& f);

// Modules: the same function names, and under each name structurally equal functions of the
// same kind (PrimFuncs by ir::StructuralEqual). The order of the functions is not compared.
bool StructuralEqual(const IRModule& a, const IRModule& b);

}  // namespace kiln::ir::relax
