// Structural equality and hashing of Relax functions over their canonical token streams.
#include "ir/relax/structural.h"

#include "ir/relax/canonical.h"

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

}  // namespace kiln::ir::relax
