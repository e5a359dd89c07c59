// Structural equality and hashing of Relax functions over their canonical token streams.
#include "ir/relax/structural.h"

#include "ir/relax/canonical.h"
#include "ir/structural.h"

namespace kiln::ir::relax {

bool StructuralEqual(const Function& a, const Function& b) {
  CanonicalStream sa, sb;
  sa.AddExpr(a);
  sb.AddExpr(b);
  return sa.tokens() == sb.tokens();
}

uint64_t StructuralHash(const Function& f) {
  CanonicalStream s;
  s.AddExpr(f);
  return s.Hash();
}

std::string CanonicalForm(const Function& f) {
  CanonicalStream s;
  s.AddExpr(f);
  return s.Text();
}

bool StructuralEqual(const IRModule& a, const IRModule& b) {
  if (a.size() != b.size()) return false;
  for (const std::string& name : a.names()) {
    const Function* fa = a.LookupFunction(name);
    const Function* fb = b.LookupFunction(name);
    const ir::PrimFunc* pa = a.LookupPrimFunc(name);
    const ir::PrimFunc* pb = b.LookupPrimFunc(name);
    if (fa != nullptr && fb != nullptr) {
      if (!StructuralEqual(*fa, *fb)) return false;
    } else if (pa != nullptr && pb != nullptr) {
      if (!ir::StructuralEqual(*pa, *pb)) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace kiln::ir::relax
