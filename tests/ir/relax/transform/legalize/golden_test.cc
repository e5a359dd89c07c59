// Golden text of legalized modules: the whole module as TVMScript (ir/relax/text's
// PrintModule: the graph, then each kernel printed by ir/text), compared byte for byte with
// testdata/NAME.golden. Run with KILN_UPDATE_GOLDEN=1 to rewrite the files after an intended
// change (that run fails, naming them), and read the diff.
#include "tests/testing/golden.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "ir/relax/text/printer.h"
#include "tests/ir/relax/transform/legalize/legalize_test_util.h"

namespace kiln::ir::relax::legalize_test {
namespace {

struct GoldenCase {
  std::string name;
  std::function<IRModule()> build;
};

void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::vector<GoldenCase> Cases() {
  return {
      {"add_broadcast",
       [] {
         PrimVar n = SymbolicDim("n");
         return OpModule({TensorParam("x", {n, 1, 4}), TensorParam("y", {3, 1})},
                         [](const std::vector<Var>& p) {
                           return Call("add", {p[0], p[1]});
                         });
       }},
      {"matmul",
       [] {
         PrimVar n = SymbolicDim("n");
         return OpModule({TensorParam("x", {2, n, 16}), TensorParam("w", {16, 8})},
                         [](const std::vector<Var>& p) {
                           return Call("matmul", {p[0], p[1]});
                         });
       }},
      {"conv2d",
       [] {
         PrimVar h = SymbolicDim("h"), w = SymbolicDim("w");
         return OpModule(
             {TensorParam("x", {1, 4, h, w}), TensorParam("k", {8, 2, 3, 3})},
             [](const std::vector<Var>& p) {
               return Call(
                   "nn.conv2d", {p[0], p[1]},
                   Attrs().Set("strides", {2, 2}).Set("padding", {1, 1, 1, 1}).Set("groups", 2));
             });
       }},
      {"softmax",
       [] {
         PrimVar n = SymbolicDim("n");
         return OpModule({TensorParam("x", {n, 10})},
                         [](const std::vector<Var>& p) { return Call("nn.softmax", {p[0]}); });
       }},
      {"layer_norm",
       [] {
         PrimVar n = SymbolicDim("n");
         return OpModule(
             {TensorParam("x", {n, 8}), TensorParam("gamma", {8}), TensorParam("beta", {8})},
             [](const std::vector<Var>& p) {
               return Call("nn.layer_norm", {p[0], p[1], p[2]}, Attrs().Set("axes", {-1}));
             });
       }},
      {"reshape_symbolic",
       [] {
         PrimVar n = SymbolicDim("n");
         return OpModule({TensorParam("x", {n, 12})}, [n](const std::vector<Var>& p) {
           return Call("reshape", {p[0], ShapeExpr({n * 3, DimConst(4)})});
         });
       }},
  };
}

class Golden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(Golden, PrintedFormMatches) {
  IRModule legal = LegalizeChecked(GetParam().build());
  std::string printed = PrintModule(legal);
  auto path = std::filesystem::path(KILN_SOURCE_DIR) / "tests" / "ir" / "relax" / "transform" /
              "legalize" / "testdata" / (GetParam().name + ".golden");
  EXPECT_EQ(kiln::testing::CheckGoldenFile(path, printed), "");
}

INSTANTIATE_TEST_SUITE_P(Legalize, Golden, ::testing::ValuesIn(Cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           return info.param.name;
                         });

}  // namespace
}  // namespace kiln::ir::relax::legalize_test
