// Tests of the target registry.
#include "codegen/target.h"

#include <gtest/gtest.h>

#include <algorithm>

namespace kiln::codegen {
namespace {

TEST(TargetTest, BuiltInCpuTargets) {
  EXPECT_EQ(CreateTarget("c")->Name(), "c");
  EXPECT_EQ(CreateTarget("llvm")->Name(), "c");
  std::vector<std::string> names = TargetNames();
  EXPECT_NE(std::find(names.begin(), names.end(), "c"), names.end());
}

TEST(TargetTest, UnknownTargetNamesTheKnownOnes) {
  try {
    CreateTarget("fpga");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("fpga"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("c"), std::string::npos);
  }
}

class FakeTarget : public CodegenTarget {
 public:
  std::string Name() const override { return "fake"; }
  EmittedSource Emit(const ir::PrimFunc&, const std::string& symbol) override {
    EmittedSource s;
    s.language = "fake";
    s.code = symbol;
    return s;
  }
};

TEST(TargetTest, RegisteredTargetIsCreated) {
  RegisterTarget("fake", [] { return std::make_unique<FakeTarget>(); });
  EXPECT_EQ(CreateTarget("fake")->Emit(ir::PrimFunc(), "k").code, "k");
}

}  // namespace
}  // namespace kiln::codegen
