// Struct info of image.resize2d: the output takes the given (symbolic) size; attribute and
// rank errors name the op.
#include <gtest/gtest.h>

#include "test_util.h"

namespace kiln::ir::relax {
namespace {

using testing::Info;
using testing::Tensor;

TEST(RelaxImageTest, Resize2dTakesTheSize) {
  PrimVar n = SymbolicDim("n"), h = SymbolicDim("h");
  Var x = Tensor("x", {n, 3, h, 8});
  EXPECT_EQ(Info(Call("image.resize2d", {x, ShapeExpr({h * 2, 16})})),
            "R.Tensor((n, 3, h * 2, 16), \"float32\")");
  Attrs nearest;
  nearest.Set("method", "nearest_neighbor")
      .Set("coordinate_transformation_mode", "asymmetric")
      .Set("rounding_method", "floor")
      .Set("scale_h", 2.0)
      .Set("scale_w", 2.0);
  EXPECT_EQ(Info(Call("image.resize2d", {x, ShapeExpr({h * 2, 16})}, nearest)),
            "R.Tensor((n, 3, h * 2, 16), \"float32\")");
  EXPECT_EQ(OpRegistry::Global().Find("image.resize2d")->pattern, OpPattern::kInjective);
}

TEST(RelaxImageTest, Resize2dRejectsBadInputs) {
  Var x = Tensor("x", {1, 3, 4, 4});
  auto error = [](auto&& build) -> std::string {
    try {
      build();
    } catch (const Error& e) {
      return e.what();
    }
    return "<no error>";
  };
  EXPECT_EQ(error([&] {
              Call("image.resize2d", {Tensor("v", {4, 4}), ShapeExpr({8, 8})});
            }),
            "image.resize2d: the data must be 4-D (NCHW), got R.Tensor((4, 4), \"float32\")");
  EXPECT_EQ(error([&] {
              Call("image.resize2d", {x, ShapeExpr({8})});
            }),
            "image.resize2d: the size must have 2 values (height, width), got R.Shape([8])");
  EXPECT_NE(error([&] {
              Call("image.resize2d", {x, ShapeExpr({8, 8})}, Attrs().Set("method", "area"));
            }).find("method \"area\" is not one of nearest_neighbor, linear, cubic"),
            std::string::npos);
}

}  // namespace
}  // namespace kiln::ir::relax
