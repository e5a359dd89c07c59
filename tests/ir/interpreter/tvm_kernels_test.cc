// Kernels as TVM writes them, which the interpreter must run: padding under T.if_then_else
// (only the chosen branch is evaluated, unlike T.Select) and index inputs (take, gather) that
// random inputs must draw inside the axis they index.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "ir/interpreter/interpreter.h"
#include "ir/interpreter/random_inputs.h"
#include "ir/text/parser.h"
#include "tests/testing/golden.h"

namespace kiln::ir {
namespace {

PrimFunc ParseSample(const std::string& name) {
  std::string path = "tests/ir/testdata/tir/tvm/" + name;
  return ParsePrimFunc(kiln::testing::ReadTextFile(kiln::testing::SourcePath(path)), name);
}

TEST(TvmKernels, IfThenElsePaddingEvaluatesOnlyTheChosenBranch) {
  PrimFunc f = ParseSample("pad_if_then_else.tir");
  std::vector<HostTensor> out = RunWithRandomInputs(f, {}, 5);
  ASSERT_EQ(out.size(), 2u);
  const HostTensor& x = out[0];
  for (int64_t i = 0; i < 8; ++i) {
    double expected = -INFINITY;
    for (int64_t k = i - 1; k <= i + 1; ++k) {
      if (k >= 0 && k < 8) expected = std::max(expected, x.GetDouble(k));
    }
    EXPECT_EQ(out[1].GetDouble(i), expected) << "pool_max[" << i << "]";
  }
}

TEST(TvmKernels, SelectStillEvaluatesBothBranches) {
  // The same padding with T.Select reads x[-1]: an error that names the load, not a crash.
  PrimFunc f = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def pad(x: T.Buffer((T.int64(4),), "float32"), y: T.Buffer((T.int64(6),), "float32")):
    for i in range(T.int64(6)):
        with T.sblock("pad"):
            v = T.axis.spatial(T.int64(6), i)
            T.reads(x[v - T.int64(1)])
            T.writes(y[v])
            y[v] = T.Select(T.int64(1) <= v and v < T.int64(5), x[v - T.int64(1)], T.float32(0))
)");
  try {
    RunWithRandomInputs(f, {}, 1);
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime) << e.what();
    EXPECT_NE(std::string(e.what()).find("x"), std::string::npos) << e.what();
  }
}

TEST(TvmKernels, IndexInputsAreDrawnInsideTheIndexedAxis) {
  PrimFunc f = ParseSample("take_index.tir");
  std::map<size_t, IndexRange> ranges = IndexInputRanges(f, {{"vocab", 5}});
  ASSERT_EQ(ranges.size(), 1u);
  EXPECT_EQ(ranges.begin()->first, 1u);  // idx, the second parameter
  EXPECT_EQ(ranges.begin()->second.low, 0);
  EXPECT_EQ(ranges.begin()->second.high, 4);
  for (uint64_t seed = 1; seed <= 5; ++seed) {
    std::vector<HostTensor> out = RunWithRandomInputs(f, {{"vocab", 5}}, seed);
    const HostTensor &x = out[0], &idx = out[1], &y = out[2];
    for (int64_t i = 0; i < 8; ++i) {
      int64_t row = idx.GetInt(i);
      ASSERT_GE(row, 0);
      ASSERT_LT(row, 5);
      for (int64_t j = 0; j < 16; ++j)
        EXPECT_EQ(y.GetDouble(i * 16 + j), x.GetDouble(row * 16 + j));
    }
  }
  // Without a value for the symbolic axis there is no range, and nothing else changes.
  EXPECT_TRUE(IndexInputRanges(f, {}).empty());
}

TEST(TvmKernels, GatherIndicesTakeTheSmallestAxisTheyIndex) {
  // gather_nd-like: idx[0, i] indexes an axis of 3 and idx[1, i] one of 7; one buffer, so its
  // values must fit both.
  PrimFunc f = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def gather(x: T.Buffer((3, 7), "float32"), idx: T.Buffer((2, 4), "int32"), y: T.Buffer((4,), "float32"), w: T.Buffer((4,), "int32")):
    for i in range(4):
        with T.sblock("g"):
            v = T.axis.spatial(4, i)
            y[v] = x[idx[0, v], idx[1, v]]
            w[v] = idx[0, v] + 100
)");
  std::map<size_t, IndexRange> ranges = IndexInputRanges(f, {});
  ASSERT_EQ(ranges.count(1), 1u);
  EXPECT_EQ(ranges[1].low, 0);
  EXPECT_EQ(ranges[1].high, 2);
  EXPECT_EQ(ranges.count(3), 0u);  // w is written with an index value, it indexes nothing
  std::vector<HostTensor> out = RunWithRandomInputs(f, {}, 3);
  for (int64_t i = 0; i < 8; ++i) {
    EXPECT_GE(out[1].GetInt(i), 0);
    EXPECT_LE(out[1].GetInt(i), 2);
  }
}

TEST(TvmKernels, OtherIntegerInputsKeepTheirDefaultRange) {
  PrimFunc f = ParsePrimFunc(R"(@T.prim_func(s_tir=True)
def add(a: T.Buffer((64,), "int32"), b: T.Buffer((64,), "int32")):
    for i in range(64):
        with T.sblock("b"):
            v = T.axis.spatial(64, i)
            b[v] = a[v] + 1
)");
  EXPECT_TRUE(IndexInputRanges(f, {}).empty());
  std::vector<ArgValue> args = MakeRandomArguments(f, {}, 9);
  const HostTensor& a = std::get<HostTensor>(args[0]);
  bool saw_negative = false;
  for (int64_t i = 0; i < 64; ++i) saw_negative |= a.GetInt(i) < 0;
  EXPECT_TRUE(saw_negative);  // {-1, 0, 1} as before
}

}  // namespace
}  // namespace kiln::ir
