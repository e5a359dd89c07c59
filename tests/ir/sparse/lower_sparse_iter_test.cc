// LowerSparseIter: SparseTIR's scripts lowered from stage I (sparse iterations) to stage II
// (loops and blocks over positions), compared with golden texts; and its errors, which name
// the sparse iteration, the axis and the buffer.
#include "ir/sparse/transform/lower_sparse_iter.h"

#include <gtest/gtest.h>

#include "tests/ir/sparse/sparse_test_util.h"

namespace kiln::ir::sparse {
namespace {

using testing::ExpectGolden;
using testing::LoadScript;

class LowerSparseIterGolden : public ::testing::TestWithParam<std::string> {};

TEST_P(LowerSparseIterGolden, MatchesGolden) {
  PrimFunc f = LowerSparseIter(LoadScript(GetParam()));
  ExpectGolden(f, GetParam(), "stage2");
  // Stage II keeps the declarations and has no sparse iteration left.
  EXPECT_FALSE(f->sp_axes.empty());
  EXPECT_EQ(PrintPrimFunc(f).find("T.sp_iter"), std::string::npos);
  EXPECT_TRUE(IsConstInt(f->attrs.at("sparse_tir_level"), 1));
}

INSTANTIATE_TEST_SUITE_P(Scripts, LowerSparseIterGolden,
                         ::testing::Values("csrmm", "csrmm_dense_iter", "csr_reduce",
                                           "segment_reduce", "sddmm", "bsrmm", "ellmm",
                                           "csr_element_wise", "square_sum", "fused_sddmm",
                                           "fused_reduction_4d_2d", "fused_reduction_4d_3d",
                                           "hyper_gnn", "rgcn_hetero_forward", "csr2bsr",
                                           "rgcn_homo_forward", "sparse_softmax"));

// The error LowerSparseIter throws on `text`.
Error LowerError(const std::string& text) {
  PrimFunc f = ParsePrimFunc(text);
  try {
    LowerSparseIter(f);
  } catch (const Error& e) {
    return e;
  }
  ADD_FAILURE() << "lowered:\n" << text;
  return Error(ErrorKind::kInternal, "");
}

const char* kHeader =
    "@T.prim_func\n"
    "def f(a: T.handle, b: T.handle, indptr: T.handle, indices: T.handle, m: T.int32,\n"
    "      n: T.int32, nnz: T.int32):\n"
    "    I = T.dense_fixed(m)\n"
    "    J = T.sparse_variable(I, (n, nnz), (indptr, indices))\n"
    "    J_detach = T.dense_fixed(n)\n"
    "    A = T.match_sparse_buffer(a, (I, J), \"float32\")\n"
    "    B = T.match_sparse_buffer(b, (I, J_detach), \"float32\")\n";

TEST(LowerSparseIter, ChildBeforeParent) {
  Error e = LowerError(std::string(kHeader) +
                       "    with T.sp_iter([J, I], \"SS\", \"swapped\") as [j, i]:\n"
                       "        A[i, j] = T.float32(1)\n");
  EXPECT_EQ(e.kind(), ErrorKind::kInvalidIR);
  EXPECT_NE(std::string(e.what()).find("sparse iteration 'swapped' iterates axis 'J' "
                                       "(sparse_variable) before or without its parent axis 'I'"),
            std::string::npos)
      << e.what();
}

TEST(LowerSparseIter, CoordinateSearchNeedsTheParentBeforeIt) {
  // D's sparse axis J comes right after J_detach, not after its parent I: no row to search.
  Error e = LowerError(R"(
@T.prim_func
def f(d: T.handle, b: T.handle, indptr: T.handle, indices: T.handle, m: T.int32, n: T.int32,
      nnz: T.int32):
    I = T.dense_fixed(m)
    J = T.sparse_variable(I, (n, nnz), (indptr, indices))
    J_detach = T.dense_fixed(n)
    D = T.match_sparse_buffer(d, (J_detach, J), "float32")
    B = T.match_sparse_buffer(b, (I, J_detach), "float32")
    with T.sp_iter([I, J_detach], "SS", "no_row") as [i, j]:
        B[i, j] = D[j, j]
)");
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  EXPECT_NE(std::string(e.what()).find("sparse buffer 'D' indexes its axis 'J' (sparse_variable) "
                                       "by a coordinate, but its parent axis 'I' is not the "
                                       "dimension before it"),
            std::string::npos)
      << e.what();
}

TEST(LowerSparseIter, FuseNeedsAChain) {
  Error e =
      LowerError(std::string(kHeader) +
                 "    with T.sp_iter([T.fuse(I, J_detach)], \"SS\", \"not_a_chain\") as [i, j]:\n"
                 "        B[i, j] = T.float32(0)\n");
  EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
  EXPECT_NE(std::string(e.what()).find("sparse iteration 'not_a_chain': T.fuse needs a chain"),
            std::string::npos)
      << e.what();
  EXPECT_NE(std::string(e.what()).find("axis 'J_detach' (dense_fixed) does not continue it"),
            std::string::npos)
      << e.what();
}

TEST(LowerSparseIter, InitUsingAReduceIterator) {
  Error e = LowerError(std::string(kHeader) +
                       "    with T.sp_iter([I, J], \"SR\", \"bad_init\") as [i, j]:\n"
                       "        with T.init():\n"
                       "            B[i, j] = T.float32(0)\n"
                       "        B[i, j] = B[i, j] + A[i, j]\n");
  EXPECT_NE(std::string(e.what()).find("'bad_init': its init uses the reduce iterator 'j'"),
            std::string::npos)
      << e.what();
}

TEST(LowerSparseIter, TensorIrIsLeftAlone) {
  PrimFunc f = ParsePrimFunc(R"(
@T.prim_func
def add(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i] + T.float32(1)
)");
  PrimFunc g = LowerSparseIter(f);
  EXPECT_TRUE(g->body.same_as(f->body));
}

}  // namespace
}  // namespace kiln::ir::sparse
