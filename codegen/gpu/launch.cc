// Launch extents evaluated for concrete shapes.
#include "codegen/gpu/launch.h"

#include "ir/arith/analyzer.h"
#include "ir/substitute.h"
#include "support/error.h"

namespace kiln::codegen::gpu {

using namespace ir;

int64_t EvaluateExtent(const Expr& e, const std::map<std::string, int64_t>& values) {
  KILN_CHECK(e.defined(), ErrorKind::kInvalidIR, "launch extent: undefined expression");
  VarMap vars;
  ForEachVar(e, [&](const Var& v) {
    auto it = values.find(v.name());
    KILN_CHECK(it != values.end(), ErrorKind::kInvalidIR,
               "launch extent: variable " + v.name() + " has no value");
    vars[v.get()] = IntImm(v.dtype(), it->second);
  });
  arith::Analyzer analyzer;
  auto value = AsConstInt(analyzer.Simplify(Substitute(e, vars)));
  KILN_CHECK(value.has_value(), ErrorKind::kInvalidIR, "launch extent: not computable");
  KILN_CHECK(*value >= 1, ErrorKind::kRuntime,
             "launch extent evaluates to " + std::to_string(*value) + ", not a positive count");
  return *value;
}

ConcreteLaunch Concretize(const KernelLaunch& launch,
                          const std::map<std::string, int64_t>& values) {
  ConcreteLaunch c;
  c.symbol = launch.symbol;
  for (int axis = 0; axis < 3; ++axis) {
    c.grid[axis] = EvaluateExtent(launch.extents.grid[axis], values);
    c.block[axis] = EvaluateExtent(launch.extents.block[axis], values);
  }
  return c;
}

std::string DescribeLaunch(const ConcreteLaunch& launch) {
  auto triple = [](const std::array<int64_t, 3>& v) {
    return "(" + std::to_string(v[0]) + ", " + std::to_string(v[1]) + ", " + std::to_string(v[2]) +
           ")";
  };
  return launch.symbol + ": grid " + triple(launch.grid) + " block " + triple(launch.block);
}

}  // namespace kiln::codegen::gpu
