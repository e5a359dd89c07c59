// Library functions in compiled models: the registry, the matmul functions' geometry
// (folded dense layers, broadcast batches, transposed operands) and results against a plain
// loop, a graph step that calls one (its product planned like any intermediate), and the
// loader refusing an artifact that names a function this build does not have.
#include <gtest/gtest.h>

#include "executor_test_model.h"
#include "runtime/file_util.h"
#include "runtime/model/executor.h"
#include "runtime/model/library_function.h"
#include "runtime/model/library_matmul.h"

namespace kiln::runtime::model {
namespace {

using testing::TempDir;

// C = A x B by definition, with the library's shape rules (right-aligned batch, 1 broadcasts).
ir::HostTensor NaiveMatmul(const ir::HostTensor& a, const ir::HostTensor& b, bool ta, bool tb,
                           const std::vector<int64_t>& c_shape) {
  ir::HostTensor c(ir::DataType::Float(32), c_shape);
  size_t rc = c_shape.size(), ra = a.shape().size();
  int64_t m = c_shape[rc - 2], n = c_shape[rc - 1];
  int64_t k = ta ? a.shape()[ra - 2] : a.shape()[ra - 1];
  int64_t batches = c.numel() / (m * n);
  auto offset = [&](const std::vector<int64_t>& s, int64_t batch) {
    int64_t off = 0, stride = s[s.size() - 1] * s[s.size() - 2];
    for (size_t i = 0; i + 2 < s.size(); ++i) {
      size_t d = s.size() - 3 - i, cd = rc - 3 - i;
      int64_t rest = batch;
      for (size_t e = rc - 3; e > cd; --e) rest /= c_shape[e];
      int64_t idx = rest % c_shape[cd];
      off += (s[d] == 1 ? 0 : idx) * stride;
      stride *= s[d];
    }
    return off;
  };
  const auto* pa = static_cast<const float*>(a.data());
  const auto* pb = static_cast<const float*>(b.data());
  auto* pc = static_cast<float*>(c.data());
  for (int64_t bt = 0; bt < batches; ++bt) {
    int64_t oa = offset(a.shape(), bt), ob = offset(b.shape(), bt);
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0;
        for (int64_t p = 0; p < k; ++p) {
          sum += static_cast<double>(pa[oa + (ta ? p * m + i : i * k + p)]) *
                 pb[ob + (tb ? j * k + p : p * n + j)];
        }
        pc[bt * m * n + i * n + j] = static_cast<float>(sum);
      }
    }
  }
  return c;
}

TEST(LibraryFunctionTest, TheMatmulsAreRegistered) {
  std::vector<std::string> names = LibraryFunctionNames();
  EXPECT_NE(std::find(names.begin(), names.end(), kDnnlSgemm), names.end());
  EXPECT_NE(std::find(names.begin(), names.end(), kCblasSgemm), names.end());
  EXPECT_EQ(FindLibraryFunction("no_such_function"), nullptr);
  const LibraryFunction* f = FindLibraryFunction(kDnnlSgemm);
  ASSERT_NE(f, nullptr);
  EXPECT_NO_THROW(f->check({{"trans_a", 0}, {"trans_b", 1}},
                           std::vector<ir::DataType>(3, ir::DataType::Float(32)), "here"));
  try {
    f->check({{"trans_c", 1}}, std::vector<ir::DataType>(3, ir::DataType::Float(32)), "here");
    FAIL() << "an unknown attribute was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("unknown attribute 'trans_c'"), std::string::npos);
  }
  EXPECT_THROW(
      f->check({}, {ir::DataType::Float(32), ir::DataType::Float(16), ir::DataType::Float(32)},
               "here"),
      Error);
}

TEST(LibraryFunctionTest, GeometryFoldsDenseLayersAndBroadcastsBatches) {
  // [1, 128, 768] x [768, 3072]: one GEMM of 128 rows.
  MatmulGeometry dense = MatmulGeometryOf({}, {{1, 128, 768}, {768, 3072}, {1, 128, 3072}}, "d");
  EXPECT_EQ(dense.m, 128);
  EXPECT_EQ(dense.n, 3072);
  EXPECT_EQ(dense.k, 768);
  EXPECT_EQ(dense.a_offsets.size(), 1u);
  // Batches of A against one B fold too.
  EXPECT_EQ(MatmulGeometryOf({}, {{4, 3, 5}, {5, 2}, {4, 3, 2}}, "d").m, 12);
  // Attention: 12 heads, one GEMM each.
  MatmulGeometry heads =
      MatmulGeometryOf({}, {{1, 12, 128, 64}, {1, 12, 64, 128}, {1, 12, 128, 128}}, "h");
  ASSERT_EQ(heads.a_offsets.size(), 12u);
  EXPECT_EQ(heads.a_offsets[1], 128 * 64);
  EXPECT_EQ(heads.b_offsets[11], 11 * 64 * 128);
  // A broadcast over the second batch dim.
  MatmulGeometry b = MatmulGeometryOf({}, {{2, 1, 3, 4}, {3, 4, 5}, {2, 3, 3, 5}}, "b");
  ASSERT_EQ(b.a_offsets.size(), 6u);
  EXPECT_EQ(b.a_offsets, std::vector<int64_t>({0, 0, 0, 12, 12, 12}));
  EXPECT_EQ(b.b_offsets, std::vector<int64_t>({0, 20, 40, 0, 20, 40}));
  try {
    MatmulGeometryOf({}, {{2, 3}, {4, 5}, {2, 5}}, "task x");
    FAIL() << "K 3 against 4 was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    EXPECT_NE(std::string(e.what()).find("task x: shapes A [2, 3], B [4, 5], C [2, 5]"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(MatmulGeometryOf({}, {{3, 2, 3}, {2, 3, 4}, {3, 2, 4}}, "b"), Error);
}

TEST(LibraryFunctionTest, BothMatmulsComputeTheProduct) {
  struct Case {
    std::vector<int64_t> a, b, c;
    bool ta, tb;
  };
  std::vector<Case> cases = {
      {{7, 5}, {6, 5}, {7, 6}, false, true},                 // dense, weights [N, K]
      {{2, 1, 4, 3}, {3, 4, 5}, {2, 3, 3, 5}, true, false},  // broadcast batch, A transposed
      {{2, 3, 4}, {2, 4, 5}, {2, 3, 5}, false, false},       // batched
      {{3, 0}, {0, 2}, {3, 2}, false, false},                // K = 0: zeros
  };
  for (const char* name : {kDnnlSgemm, kCblasSgemm}) {
    const LibraryFunction* f = FindLibraryFunction(name);
    ASSERT_NE(f, nullptr);
    for (size_t i = 0; i < cases.size(); ++i) {
      const Case& c = cases[i];
      ir::HostTensor a = ir::HostTensor::Random(ir::DataType::Float(32), c.a, 1 + i);
      ir::HostTensor b = ir::HostTensor::Random(ir::DataType::Float(32), c.b, 9 + i);
      ir::HostTensor out(ir::DataType::Float(32), c.c);
      LibraryAttrs attrs = {{"trans_a", c.ta}, {"trans_b", c.tb}};
      for (int threads : {1, 2}) {
        f->run(attrs,
               {{a.data(), a.dtype(), c.a},
                {b.data(), b.dtype(), c.b},
                {out.data(), out.dtype(), c.c}},
               threads);
        ir::TensorComparison cmp =
            ir::CompareTensors(NaiveMatmul(a, b, c.ta, c.tb, c.c), out, 1e-5, 1e-5);
        EXPECT_TRUE(cmp.ok) << name << " case " << i << " threads " << threads << ": "
                            << cmp.message;
      }
    }
  }
}

class LibraryGraphTest : public ::testing::Test {
 protected:
  LibraryGraphTest() { testing::WriteChainArtifact(dir_ / "chain.kiln", dir_ / "cache"); }

  // x[n, 3] x w[4, 3]^T -> product (an intermediate), then the chain's k_affine on it.
  static Graph DenseGraph(const std::string& function) {
    using codegen::SlotKind;
    DimExpr n = DimExpr::Var("n");
    DimExpr all;
    all.op = DimExpr::Op::kMul;
    all.operands = {n, DimExpr::Const(4)};
    Graph g;
    // w's K is a dim of its own, so that a wrong one reaches the library's shape check.
    g.dims = {"k", "n"};
    g.values = {testing::Value("x", ValueKind::kInput, {n, DimExpr::Const(3)}),
                testing::Value("w", ValueKind::kInput, {DimExpr::Const(4), DimExpr::Var("k")}),
                testing::Value("p", ValueKind::kKernelOutput, {n, DimExpr::Const(4)}),
                testing::Value("y", ValueKind::kKernelOutput, {n, DimExpr::Const(4)})};
    g.values[0].input_index = 0;
    g.values[1].input_index = 1;
    g.inputs = {0, 1};
    g.outputs = {3};
    GraphKernel library{
        function,
        "dense",
        {testing::Slot(SlotKind::kBufferData, 0), testing::Slot(SlotKind::kBufferData, 1),
         testing::Slot(SlotKind::kBufferData, 2)},
        function,
        {{"trans_b", 1}}};
    // k_affine over every element: its count is dim 0 of the view-free [n, 4] times 4, so
    // the test passes the element count through a scalar.
    GraphKernel affine{"k_affine",
                       "dense",
                       {testing::Slot(SlotKind::kBufferData, 0),
                        testing::Slot(SlotKind::kBufferData, 1),
                        {SlotKind::kScalarInt, "count", ir::DataType::Int(64), 2, -1}},
                       {},
                       {}};
    g.kernels = {library, affine};
    StepArg count;
    count.scalar = all;
    g.steps = {{0, {testing::Arg(0), testing::Arg(1), testing::Arg(2)}, {2}},
               {1, {testing::Arg(2), testing::Arg(3), count}, {3}}};
    return g;
  }

  TempDir dir_;
};

TEST_F(LibraryGraphTest, AStepCallsTheLibraryAndItsProductIsPlanned) {
  for (const char* function : {kDnnlSgemm, kCblasSgemm}) {
    Artifact a = LoadArtifact(dir_ / "chain.kiln");
    a.graph = GraphFromJson(GraphToJson(DenseGraph(function)), 0);
    Executor executor(std::move(a), {.threads = 2, .cache_dir = dir_ / "cache"});
    ir::HostTensor x = ir::HostTensor::Random(ir::DataType::Float(32), {5, 3}, 3);
    ir::HostTensor w = ir::HostTensor::Random(ir::DataType::Float(32), {4, 3}, 4);
    std::vector<double> steps;
    std::vector<ir::HostTensor> out = executor.Run({x, w}, &steps);
    ASSERT_EQ(out.size(), 1u);
    ir::HostTensor expected = NaiveMatmul(x, w, false, true, {5, 4});
    for (int64_t i = 0; i < expected.numel(); ++i) {
      expected.SetDouble(i, expected.GetDouble(i) * 2 + 1);  // k_affine
    }
    ir::TensorComparison c = ir::CompareTensors(expected, out[0], 1e-5, 1e-5);
    EXPECT_TRUE(c.ok) << function << ": " << c.message;
    EXPECT_EQ(steps.size(), 2u);
    EXPECT_EQ(executor.Plan({{5, 3}, {4, 3}}).arena_bytes, 128u);  // the product, aligned
    // Shapes that do not make a matmul are refused when planned, naming the call.
    try {
      executor.Run({x, ir::HostTensor::Random(ir::DataType::Float(32), {4, 2}, 1)});
      FAIL() << "K 3 against 2 ran";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
      EXPECT_NE(std::string(e.what()).find(std::string(function) + " (task dense, step 0)"),
                std::string::npos)
          << e.what();
    }
  }
}

TEST_F(LibraryGraphTest, AnArtifactNamingAnUnknownFunctionIsRefused) {
  std::string dir = dir_ / "chain.kiln";
  nlohmann::json graph = nlohmann::json::parse(ReadWholeFile(dir + "/graph.json"));
  nlohmann::json kernel = GraphToJson(DenseGraph(kDnnlSgemm))["kernels"][0];
  kernel["library"]["name"] = "no_such_blas";
  graph["kernels"].push_back(kernel);
  std::string text = graph.dump();
  nlohmann::json manifest = nlohmann::json::parse(ReadWholeFile(dir + "/manifest.json"));
  manifest["files"]["graph.json"] = {{"bytes", text.size()}, {"fnv1a64", Checksum(text)}};
  WriteFileAtomically(dir + "/graph.json", text);
  WriteFileAtomically(dir + "/manifest.json", manifest.dump());
  try {
    LoadArtifact(dir);
    FAIL() << "an unknown library function was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("the graph calls the library function 'no_such_blas' "
                                         "(task dense), which this build of Kiln does not provide"),
              std::string::npos)
        << e.what();
  }
}

TEST_F(LibraryGraphTest, AFormatOneManifestStillLoads) {
  // Format 1 had no library calls and no impl or times per task.
  std::string dir = dir_ / "chain.kiln";
  nlohmann::json manifest = nlohmann::json::parse(ReadWholeFile(dir + "/manifest.json"));
  manifest["format_version"] = 1;
  for (nlohmann::json& t : manifest["tasks"]) {
    t.erase("impl");
    t.erase("kernel_s");
    t.erase("library_s");
  }
  WriteFileAtomically(dir + "/manifest.json", manifest.dump());
  Artifact a = LoadArtifact(dir);
  EXPECT_EQ(a.manifest.format_version, 1);
  ASSERT_EQ(a.manifest.tasks.size(), 2u);
  EXPECT_EQ(a.manifest.tasks[0].impl, "kernel");
  EXPECT_FALSE(a.manifest.tasks[0].library_s.has_value());
  // A task of kind library is format 2's.
  manifest["tasks"][0]["kind"] = "library";
  WriteFileAtomically(dir + "/manifest.json", manifest.dump());
  try {
    LoadArtifact(dir);
    FAIL() << "a library task in a format 1 manifest was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("tasks[0].kind: kernel or view expected"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace kiln::runtime::model
