// A small infix printer for expressions, so arith test failures show what was produced.
#pragma once

#include <string>

#include "ir/stmt.h"

namespace kiln::ir::arith::testing {

std::string ToText(const Expr& e);
std::string ToText(const Range& r);
std::string ToText(const BufferRegion& r);

}  // namespace kiln::ir::arith::testing
