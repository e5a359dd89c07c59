// Tests of the lowering driver: pass order, the per-pass callback and the final form.
#include "codegen/lower.h"

#include <gtest/gtest.h>

#include "support/logging.h"
#include "tests/codegen/ir_dump.h"
#include "tests/codegen/test_kernels.h"

namespace kiln::codegen {
namespace {

using namespace ir;

TEST(LowerTest, CallbackSeesEveryPassInOrder) {
  std::vector<std::string> passes;
  LowerOptions options;
  options.after_pass = [&](std::string_view pass, const PrimFunc& f) {
    passes.emplace_back(pass);
    EXPECT_TRUE(f.defined());
  };
  Lower(testing::Matmul(2, 2, 2), options);
  EXPECT_EQ(passes, (std::vector<std::string>{"PlaceAllocations", "LowerBlocks", "CompactBuffers",
                                              "FlattenBuffers", "Simplify", "PartitionLoops",
                                              "UnrollLoops", "VectorizeLoops", "Simplify",
                                              "HoistIndexLoads", "PlanStorage"}));
}

TEST(LowerTest, ScheduledLoopsAreLowered) {
  // C[i, j] = A[i, j] + 1 with j split into 4 x 8, the inner part vectorized and the outer
  // part unrolled, and a local accumulator.
  DataType f32 = DataType::Float(32);
  Buffer a = DeclBuffer("A", f32, {4, 32});
  Buffer c = DeclBuffer("C", f32, {4, 32});
  Var i("i"), jo("jo"), ji("ji"), vi("vi"), vj("vj");
  Stmt block =
      testing::MakeBlock("C", {testing::Spatial(vi, 4), testing::Spatial(vj, 32)}, {i, jo * 8 + ji},
                         BufferStore(c, BufferLoad(a, {vi, vj}) + testing::F32(1), {vi, vj}));
  Stmt loops = For(i, 0, 4, ForKind::kParallel,
                   For(jo, 0, 2, ForKind::kUnrolled, For(ji, 0, 8, ForKind::kVectorized, block)));
  PrimFunc f = Lower(testing::MakeFunc("f", {a, c}, testing::Root(loops)));
  std::string text = testing::DumpStmt(f->body);
  EXPECT_EQ(text.substr(0, text.find('\n')), "for i in parallel(0, 4):");
  EXPECT_NE(text.find("ramp("), std::string::npos) << text;
  EXPECT_EQ(text.find("for jo"), std::string::npos) << text;
  EXPECT_EQ(text.find("for ji"), std::string::npos) << text;
}

TEST(LowerTest, DebugLoggingDoesNotChangeTheResult) {
  PrimFunc quiet = Lower(testing::Matmul(3, 3, 3));
  SetLogLevel("debug");
  PrimFunc logged = Lower(testing::Matmul(3, 3, 3));
  SetLogLevel("info");
  EXPECT_EQ(testing::DumpStmt(quiet->body), testing::DumpStmt(logged->body));
}

}  // namespace
}  // namespace kiln::codegen
