// Round trip: every module in tests/ir/relax/testdata/*.relax parses, is well formed, prints,
// and parses back to a structurally equal module that prints to the same text. The same holds
// for modules built in C++ with the block builder, for names the printer must rename, and for
// constants of every dtype, bit for bit (all 65536 float16 and bfloat16 patterns included).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <vector>

#include "ir/relax/block_builder.h"
#include "ir/relax/op/registry.h"
#include "ir/relax/well_formed.h"
#include "ir/text/parser.h"
#include "tests/ir/relax/text/test_util.h"

namespace kiln::ir {
// How the test runner shows a dtype parameter: its name, not its bytes.
void PrintTo(const DataType& dtype, std::ostream* os) { *os << dtype.ToString(); }
}  // namespace kiln::ir

namespace kiln::ir::relax {
namespace {

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  for (const auto& entry : std::filesystem::directory_iterator(testing::CorpusDir())) {
    if (entry.path().extension() == ".relax") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(RelaxTextCorpus, HasAtLeastFifteenModules) { EXPECT_GE(CorpusFiles().size(), 15u); }

class CorpusRoundTrip : public ::testing::TestWithParam<std::string> {};

TEST_P(CorpusRoundTrip, ParsePrintParse) {
  std::string text = testing::ReadText(testing::CorpusDir() / GetParam());
  IRModule module;
  try {
    module = ParseModule(text, GetParam());
  } catch (const Error& e) {
    FAIL() << e.what();
  }
  ASSERT_GT(module.size(), 0u);
  EXPECT_NO_THROW(CheckWellFormed(module));
  testing::ExpectRoundTrip(module);
  // Every constant in the metadata section is as exact as inline.
  PrintOptions all_metadata;
  all_metadata.max_inline_constant_elements = -1;
  testing::ExpectRoundTrip(module, all_metadata);
}

INSTANTIATE_TEST_SUITE_P(Corpus, CorpusRoundTrip, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param.substr(0, info.param.find('.'));
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

Var TensorVar(const std::string& name, std::vector<PrimExpr> shape,
              const std::string& dtype = "float32") {
  return Var(name, TensorStructInfo(std::move(shape), dtype));
}

// The block builder's modules: what front ends and passes produce.
TEST(RelaxTextRoundTrip, BlockBuilderModuleWithKernelsAndCalls) {
  ir::PrimFunc add = ir::ParsePrimFunc(R"(
@T.prim_func
def add_one(var_A: T.handle, var_B: T.handle):
    n = T.int64()
    A = T.match_buffer(var_A, (n,))
    B = T.match_buffer(var_B, (n,))
    for i in range(n):
        with T.block("B"):
            vi = T.axis.spatial(n, i)
            B[vi] = A[vi] + T.float32(1.0)
)");
  PrimVar n = SymbolicDim("n");
  Var x = TensorVar("x", {n, 64});
  Var w = TensorVar("w", {64, 10});
  BlockBuilder bb;
  GlobalVar kernel = bb.AddFunction("add_one", add);

  PrimVar head_n = SymbolicDim("n");  // head's own shape variable, named like main's
  Var h = TensorVar("h", {head_n, 10});
  bb.BeginFunction("head", {h});
  bb.BeginDataflow();
  Var s = bb.Emit(Call("nn.softmax", {h}, Attrs().Set("axis", -1)));
  Var out = bb.EmitOutput(Call("astype", {s}, Attrs().Set("dtype", DataType::Float(16))));
  bb.EndDataflow();
  GlobalVar head = bb.EndFunction(out);

  bb.BeginFunction("main", {x, w});
  bb.BeginDataflow();
  Var mm = bb.Emit(Call("matmul", {x, w}));
  Var flat = bb.Emit(Call("reshape", {mm, ShapeExpr({DimConst(-1)})}));
  Var inc = bb.Emit(CallTIR(kernel, {flat}, {TensorStructInfo({n * DimConst(10)}, "float32")}));
  Var back = bb.Emit(Call("reshape", {inc, ShapeExpr({n, DimConst(10)})}));
  Var lib = bb.Emit(CallDPSPacked("cblas.relu", {back}, {TensorStructInfo({n, 10}, "float32")}));
  Var gv = bb.EmitOutput(CallFunction(head, {lib}));
  bb.EndDataflow();
  Var cast = bb.EmitMatchCast(gv, TensorStructInfo(DataType::Float(16), 2));
  // A function as a value: its signature's shape variable (head's n) is not main's n.
  Var fn = bb.Emit(head, "fn");
  bb.EndFunction(Tuple({cast, fn}));
  IRModule module = bb.Finalize();
  ASSERT_NO_THROW(CheckWellFormed(module));
  std::string text = testing::ExpectRoundTrip(module);
  EXPECT_NE(text.find("R.call_tir(cls.add_one, (lv1,), out_ty=R.Tensor((n * 10,), "
                      "dtype=\"float32\"))"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("= cls.head(lv4)"), std::string::npos) << text;
  // TVM 0.24+ declares shape variables above the module, older TVM in each function.
  EXPECT_NE(text.find("\nn_1 = TypeVar(\"n_1\")\n@I.ir_module"), std::string::npos) << text;
  PrintOptions tvm023;
  tvm023.dialect = TirDialect::kTvm023;
  std::string old_text = PrintModule(module, tvm023);
  EXPECT_NE(old_text.find("        n_1 = T.int64()\n"), std::string::npos) << old_text;
  EXPECT_NE(old_text.find("R.call_tir(cls.add_one, (lv1,), out_sinfo=R.Tensor((n * 10,), "
                          "dtype=\"float32\"))"),
            std::string::npos)
      << old_text;
  EXPECT_NE(text.find("fn: R.Callable((R.Tensor((n_1, 10), dtype=\"float32\"),), "
                      "R.Tensor((n_1, 10), dtype=\"float16\")) = cls.head"),
            std::string::npos)
      << text;
}

// Names the printer has to change: duplicates, characters Python names cannot hold, Python
// keywords, and a Relax variable and a shape variable of the same name.
TEST(RelaxTextRoundTrip, NamesAreMadeUniqueAndValid) {
  PrimVar n = SymbolicDim("n");
  PrimVar n2 = SymbolicDim("n");  // another variable with the same name
  Var a = TensorVar("input.1", {n, n2});
  Var b = TensorVar("class", {n2});
  Var c = TensorVar("n", {n});
  IRModule module;
  Var x1 = DataflowVar("x", a.struct_info());
  Var x2 = Var("x", TensorStructInfo({n, n2}, "float32"));
  Expr add1 = Call("add", {a, b});
  BindingBlock block{{VarBinding(x1, add1), VarBinding(x2, Call("multiply", {x1, x1}))}, true};
  module.Add("main", MakeFunction({a, b, c}, SeqExpr({block}, x2)));
  std::string text = testing::ExpectRoundTrip(module);
  EXPECT_NE(text.find("def main(input_1: R.Tensor((n, n_1), dtype=\"float32\"), class_1: "
                      "R.Tensor((n_1,), dtype=\"float32\"), n_2: R.Tensor((n,), "
                      "dtype=\"float32\"))"),
            std::string::npos)
      << text;
  // Before TVM 0.24 the signature names them in strings: they are declared below it.
  PrintOptions tvm023;
  tvm023.dialect = TirDialect::kTvm023;
  std::string old_text = PrintModule(module, tvm023);
  EXPECT_NE(old_text.find("def main(input_1: R.Tensor((\"n\", \"n_1\"), "
                          "dtype=\"float32\"), class_1: R.Tensor((\"n_1\",), dtype=\"float32\"), "
                          "n_2: R.Tensor((\"n\",), dtype=\"float32\"))"),
            std::string::npos)
      << old_text;
  EXPECT_NE(text.find("x_1: R.Tensor((n, n_1), dtype=\"float32\") = R.multiply(x, x)"),
            std::string::npos)
      << text;
}

// Every bit pattern of a 16-bit float survives the text exactly (NaN as the canonical NaN).
class SixteenBitFloats : public ::testing::TestWithParam<DataType> {};

TEST_P(SixteenBitFloats, EveryPatternRoundTrips) {
  DataType dtype = GetParam();
  HostTensor all(dtype, {256, 256});
  HostTensor nan(dtype, {});
  nan.SetDouble(0, std::nan(""));
  uint16_t canonical_nan;
  std::memcpy(&canonical_nan, nan.data(), 2);
  auto* bits = static_cast<uint16_t*>(all.data());
  for (int i = 0; i < 65536; ++i) {
    bits[i] = static_cast<uint16_t>(i);
    if (std::isnan(all.GetDouble(i))) bits[i] = canonical_nan;
  }
  Var x = TensorVar("x", {256, 256}, dtype.ToString());
  IRModule module;
  module.Add("main", testing::ReturnThroughBinding({x}, Call("add", {x, Constant(all)})));
  std::string text = testing::ExpectRoundTrip(module);
  IRModule parsed = ParseModule(text);
  const auto* constant = testing::FirstBoundValue(*parsed.LookupFunction("main"))
                             .as<CallNode>()
                             ->args[1]
                             .as<ConstantNode>();
  ASSERT_NE(constant, nullptr);
  EXPECT_EQ(std::memcmp(constant->data.data(), all.data(), all.nbytes()), 0);
}

INSTANTIATE_TEST_SUITE_P(Dtypes, SixteenBitFloats,
                         ::testing::Values(DataType::Float(16), DataType::BFloat16()),
                         [](const auto& info) { return info.param.ToString(); });

// Random bit patterns of wider types, and integers at their limits.
TEST(RelaxTextRoundTrip, RandomWideConstantsAreExact) {
  std::mt19937_64 rng(7);
  IRModule module;
  std::vector<Expr> fields;
  for (DataType dtype : {DataType::Float(32), DataType::Float(64), DataType::Int(8),
                         DataType::Int(64), DataType::UInt(64), DataType::UInt(16)}) {
    HostTensor t(dtype, {3, 333});
    auto* bytes = static_cast<uint8_t*>(t.data());
    for (size_t i = 0; i < t.nbytes(); ++i) bytes[i] = static_cast<uint8_t>(rng());
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (dtype.is_float() && !std::isfinite(t.GetDouble(i))) t.SetDouble(i, 1.0 / (i + 3));
    }
    fields.push_back(Constant(t));
  }
  HostTensor flags(DataType::Bool(), {5});
  for (int i = 0; i < 5; ++i) flags.SetInt(i, i % 2);
  fields.push_back(Constant(flags));
  module.Add("main", MakeFunction({}, SeqExpr({}, Tuple(fields))));
  testing::ExpectRoundTrip(module);
  PrintOptions inline_all;
  inline_all.max_inline_constant_elements = 1 << 20;
  std::string text = testing::ExpectRoundTrip(module, inline_all);
  EXPECT_EQ(text.find("metadata"), std::string::npos);
}

}  // namespace
}  // namespace kiln::ir::relax
