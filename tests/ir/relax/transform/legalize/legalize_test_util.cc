// The one-op module builder, the legalized-module checks and the call_tir runner.
#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "ir/relax/expr_functor.h"
#include "ir/relax/printer.h"
#include "ir/relax/structural.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/text/printer.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/relax/well_formed.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"

namespace kiln::ir::relax::legalize_test {

IRModule OpModule(const std::vector<Var>& params,
                  const std::function<Expr(const std::vector<Var>&)>& make) {
  BlockBuilder bb;
  bb.BeginFunction("main", params);
  bb.BeginDataflow();
  Var gv = bb.EmitOutput(make(params), "gv");
  bb.EndDataflow();
  bb.EndFunction(gv);
  return bb.Finalize();
}

Var TensorParam(const std::string& name, std::vector<PrimExpr> shape, DataType dtype) {
  return Var(name, TensorStructInfo(std::move(shape), dtype));
}

namespace {

// Collects the op names still called.
class OpCollector : public ExprVisitor {
 public:
  std::vector<std::string> ops;

 protected:
  void VisitExpr_(const CallNode* op) override {
    if (!op->op.empty()) ops.push_back(op->op);
    ExprVisitor::VisitExpr_(op);
  }
};

}  // namespace

void CheckLegalizedModule(const IRModule& module) {
  EXPECT_NO_THROW(CheckWellFormed(module)) << DebugPrint(module);
  // The whole module is printable TVMScript that parses back to the same module.
  std::string text = PrintModule(module);
  try {
    IRModule parsed = ParseModule(text, "<legalized>");
    EXPECT_EQ(PrintModule(parsed), text);
    EXPECT_EQ(parsed.names(), module.names());
    for (const std::string& name : module.names()) {
      if (const Function* f = module.LookupFunction(name)) {
        const Function* g = parsed.LookupFunction(name);
        EXPECT_TRUE(g != nullptr && StructuralEqual(*f, *g)) << "function " << name;
      }
    }
  } catch (const Error& e) {
    ADD_FAILURE() << "the legalized module does not parse back: " << e.what() << "\n" << text;
  }
  std::vector<std::string> allowed = transform::NonTensorOps();
  for (const std::string& name : module.names()) {
    if (const Function* f = module.LookupFunction(name)) {
      OpCollector c;
      c.VisitExpr(*f);
      for (const std::string& op : c.ops) {
        EXPECT_TRUE(std::find(allowed.begin(), allowed.end(), op) != allowed.end())
            << "op " << op << " is left in " << name << ":\n"
            << DebugPrint(module);
      }
      continue;
    }
    const ir::PrimFunc& f = *module.LookupPrimFunc(name);
    text = PrintPrimFunc(f);
    try {
      ir::PrimFunc parsed = ParsePrimFunc(text, name);
      EXPECT_TRUE(ir::StructuralEqual(parsed, f)) << "kernel " << name << " does not round trip:\n"
                                                  << text << "\nparsed back as\n"
                                                  << PrintPrimFunc(parsed);
      EXPECT_EQ(PrintPrimFunc(parsed), text);
    } catch (const Error& e) {
      ADD_FAILURE() << "kernel " << name << " does not parse: " << e.what() << "\n" << text;
    }
  }
}

IRModule LegalizeChecked(const IRModule& module) {
  IRModule out = transform::LegalizeOps(module);
  CheckLegalizedModule(out);
  return out;
}

std::vector<std::string> PrimFuncNames(const IRModule& module) {
  std::vector<std::string> names;
  for (const std::string& name : module.names()) {
    if (module.LookupPrimFunc(name) != nullptr) names.push_back(name);
  }
  return names;
}

Value RunMain(const IRModule& module, const std::vector<ArgValue>& args, const std::string& name) {
  std::vector<Value> values;
  for (const ArgValue& a : args) {
    if (const auto* t = std::get_if<HostTensor>(&a)) {
      values.push_back(Value::Tensor(*t));
    } else if (const auto* i = std::get_if<int64_t>(&a)) {
      values.push_back(Value::Int(*i));
    } else {
      values.push_back(Value::Float(std::get<double>(a)));
    }
  }
  try {
    return exec::Run(module, name, values);
  } catch (const Error& e) {
    std::string kernels;
    for (const std::string& k : PrimFuncNames(module)) {
      kernels += PrintPrimFunc(*module.LookupPrimFunc(k)) + "\n";
    }
    ADD_FAILURE() << "running " << name << " failed: " << e.what() << "\n"
                  << DebugPrint(module) << kernels;
    return Value();
  }
}

int64_t Numel(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

void ForEachIndex(const Shape& shape, const std::function<void(const Index&)>& fn) {
  if (Numel(shape) == 0) return;
  Index index(shape.size(), 0);
  while (true) {
    fn(index);
    size_t d = shape.size();
    while (d > 0) {
      --d;
      if (++index[d] < shape[d]) break;
      index[d] = 0;
      if (d == 0) return;
    }
    if (shape.empty()) return;
  }
}

int64_t FlatIndex(const Shape& shape, const Index& index) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + index[d];
  return flat;
}

double At(const HostTensor& t, const Index& index) {
  return t.GetDouble(FlatIndex(t.shape(), index));
}

void SetAt(HostTensor& t, const Index& index, double value) {
  t.SetDouble(FlatIndex(t.shape(), index), value);
}

Index BroadcastIndex(const Shape& in, const Index& out) {
  Index index(in.size());
  size_t offset = out.size() - in.size();
  for (size_t d = 0; d < in.size(); ++d) index[d] = in[d] == 1 ? 0 : out[offset + d];
  return index;
}

HostTensor Random(DataType dtype, const Shape& shape, uint64_t seed, double lo, double hi) {
  return HostTensor::Random(dtype, shape, seed, lo, hi);
}

void ExpectClose(const HostTensor& expected, const HostTensor& actual, double rtol, double atol) {
  ASSERT_EQ(expected.shape(), actual.shape());
  ASSERT_EQ(expected.dtype(), actual.dtype());
  Tolerance tol = DefaultTolerance(expected.dtype());
  if (rtol >= 0) tol.rtol = rtol;
  if (atol >= 0) tol.atol = atol;
  TensorComparison c = CompareTensors(expected, actual, tol.rtol, tol.atol);
  EXPECT_TRUE(c.ok) << c.message;
}

}  // namespace kiln::ir::relax::legalize_test
