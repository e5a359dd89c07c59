// Pinned structural hashes of zoo functions.
//
// Tuning records in every database are keyed by these hashes. If a change makes this test
// fail, that change orphans every stored record for the affected workloads: it must be a
// deliberate decision (a new hash version, a database migration), never a test update made in
// passing. The hash depends only on the IR (see ir/structural.h), not on the machine, the
// compiler or the process, so these literals hold everywhere.
#include <gtest/gtest.h>

#include <map>

#include "ir/compute/create_prim_func.h"
#include "ir/compute/reduce.h"
#include "ir/structural.h"
#include "tests/ir/zoo/zoo.h"

namespace kiln::ir::zoo {
namespace {

const std::map<std::string, std::string>& PinnedHashes() {
  static const std::map<std::string, std::string> pinned = {
      {"add_broadcast", "414313b106ade0ba"},
      {"relu", "4c07b6ebe6084b94"},
      {"cast_f32_f16", "eb42e025b3653b2f"},
      {"bfloat16_add", "250a5d664b7297a7"},
      {"sum_keepdims", "30ff914b93674ca4"},
      {"reduce_symbolic", "415835c5b8448d01"},
      {"matmul", "0027f3b757b70f32"},
      {"matmul_symbolic_m", "7dce90409ffe76f5"},
      {"int8_matmul", "234f7ee987164bfc"},
      {"dense_bias_relu", "ea4096b9e4a7710b"},
      {"conv2d_stride2_pad1", "d4baef8dae0d9615"},
      {"softmax", "91406506f246f150"},
      {"softmax_symbolic", "3c444984000bf205"},
      {"layer_norm", "604154a08711f9ae"},
      {"reshape", "79620be59d7f29cb"},
      {"pad", "60d384d3c35947fe"},
  };
  return pinned;
}

TEST(StructuralHashPinnedTest, ZooHashesArePinned) {
  ASSERT_GE(PinnedHashes().size(), 10u);
  for (const auto& [name, hash] : PinnedHashes()) {
    EXPECT_EQ(StructuralHashHex(ZooLookup(name).build()), hash) << name;
  }
}

// The zoo's matmul written again with every name changed except the stage's (block names are
// structure: traces find blocks by them).
PrimFunc RenamedMatmul() {
  using namespace kiln::ir::compute;  // NOLINT(google-build-using-namespace)
  Tensor lhs = Placeholder("lhs", {32, 40}, DataType::Float(32));
  Tensor rhs = Placeholder("rhs", {40, 48}, DataType::Float(32));
  IterVar r = ReduceAxis(40, "reduction_index");
  Tensor out = Compute(
      {32, 48}, [&](Var row, Var col) { return Sum(lhs(row, r.var) * rhs(r.var, col), {r}); }, "C",
      {"row", "col"});
  return CreatePrimFunc({lhs, rhs, out}, "a_differently_named_matmul");
}

TEST(StructuralHashPinnedTest, NamesDoNotChangeTheHash) {
  PrimFunc zoo_matmul = ZooLookup("matmul").build();
  PrimFunc renamed = RenamedMatmul();
  EXPECT_TRUE(StructuralEqual(zoo_matmul, renamed));
  EXPECT_EQ(StructuralHashHex(renamed), StructuralHashHex(zoo_matmul));
  EXPECT_EQ(StructuralHashHex(renamed), PinnedHashes().at("matmul"));
}

}  // namespace
}  // namespace kiln::ir::zoo
