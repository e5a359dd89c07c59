// GNN message passing imported as CSR SpMM (ir/frontend/onnx/convert_gnn_spmm.h): Gather ->
// Mul -> ScatterElements and Gather -> ScatterND with reduction add over constant edges become
// one call_tir of the stage-III CSR SpMM kernel, whose result (run by the reference executor)
// is the scatter's, duplicate edges and rows with no edge included, also when the zeros and the
// destinations are too big to evaluate at import; every other scatter is refused with what was
// found and the accepted pattern.
#include <gtest/gtest.h>

#include <cmath>

#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::ModelBuilder;
using testing::SetInt;
using testing::SetString;

constexpr int64_t kNodes = 5, kSources = 6, kFeat = 3;
// Edges (src -> dst): two duplicates (1 -> 0 twice; 3 -> 3 once as 3 and once as -2), node 4
// has no in-edge, node 5 is only a source.
const std::vector<int64_t> kSrc = {1, 1, 2, 5, 0, 3, 3};
const std::vector<int64_t> kDst = {0, 0, 1, 1, 2, 3, -2};  // -2: node 3, as ONNX allows
const std::vector<float> kWeight = {0.5f, 0.25f, 2.0f, -1.0f, 1.0f, 3.0f, 0.125f};

struct Options {
  std::string op = "ScatterElements";
  bool weighted = true;
  std::string reduction = "add";
  bool zero_data = true;
  bool constant_src = true;
};

// x [6, 3] (or, without constant sources, also src [7]) -> the aggregation -> y [5, 3].
ModelBuilder GnnModel(const Options& o) {
  ModelBuilder b(18);
  b.Input("x", {kSources, kFeat});
  const int64_t edges = static_cast<int64_t>(kSrc.size());
  if (o.constant_src) {
    b.InitInts("src", kSrc, {edges});
  } else {
    b.Input("src", {edges}, ::onnx::TensorProto::INT64);
  }
  SetInt(b.Node("Gather", {"x", "src"}, {"rows"}, "gather"), "axis", 0);
  std::string updates = "rows";
  if (o.weighted) {
    b.InitFloats("w", kWeight, {edges, 1});
    b.Node("Mul", {"rows", "w"}, {"messages"}, "weigh");
    updates = "messages";
  }
  std::vector<float> data(kNodes * kFeat, o.zero_data ? 0.0f : 1.0f);
  b.InitFloats("zeros", data, {kNodes, kFeat});
  ::onnx::NodeProto* scatter = nullptr;
  if (o.op == "ScatterND") {
    b.InitInts("dst", kDst, {edges, 1});
    scatter = &b.Node("ScatterND", {"zeros", "dst", updates}, {"y"}, "aggregate");
  } else {
    std::vector<int64_t> index;
    for (int64_t d : kDst) index.insert(index.end(), kFeat, d);
    b.InitInts("dst", index, {edges, kFeat});
    scatter = &b.Node("ScatterElements", {"zeros", "dst", updates}, {"y"}, "aggregate");
    SetInt(*scatter, "axis", 0);
  }
  if (!o.reduction.empty()) SetString(*scatter, "reduction", o.reduction);
  b.Output("y");
  return b;
}

// The scatter computed here: y[dst] += w * x[src].
std::vector<double> Expected(const HostTensor& x, bool weighted) {
  std::vector<double> y(kNodes * kFeat, 0.0);
  for (size_t e = 0; e < kSrc.size(); ++e) {
    int64_t d = kDst[e] < 0 ? kDst[e] + kNodes : kDst[e];
    for (int64_t f = 0; f < kFeat; ++f) {
      y[d * kFeat + f] += (weighted ? kWeight[e] : 1.0) * x.GetDouble(kSrc[e] * kFeat + f);
    }
  }
  return y;
}

const PrimFuncNode* SpmmKernel(const relax::IRModule& m) {
  for (const std::string& name : m.names()) {
    if (const ir::PrimFunc* f = m.LookupPrimFunc(name)) return f->get();
  }
  return nullptr;
}

class GnnSpmmImport : public ::testing::TestWithParam<std::tuple<std::string, bool>> {};

TEST_P(GnnSpmmImport, BecomesOneCsrSpmmCallWithTheScattersResult) {
  auto [op, weighted] = GetParam();
  relax::IRModule m = GnnModel({.op = op, .weighted = weighted}).Import();
  const PrimFuncNode* kernel = SpmmKernel(m);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(kernel->attrs.count("kiln.sparse_op"), 1u);
  EXPECT_EQ(AsConstInt(kernel->attrs.at("kiln.sparse_rows")), kNodes);
  EXPECT_EQ(AsConstInt(kernel->attrs.at("kiln.sparse_cols")), kSources);
  EXPECT_EQ(AsConstInt(kernel->attrs.at("kiln.sparse_feat")), kFeat);
  // 5 distinct (dst, src) pairs and one explicit zero for node 4, which has no in-edge.
  EXPECT_EQ(AsConstInt(kernel->attrs.at("kiln.sparse_nnz")), 6);
  std::vector<std::string> ops = testing::CalledOps(m);
  EXPECT_NE(std::find(ops.begin(), ops.end(), "call_tir"), ops.end());

  HostTensor x = HostTensor::Random(DataType::Float(32), {kSources, kFeat}, 3);
  relax::IRModule legal = relax::transform::LegalizeOps(m);
  HostTensor y = relax::exec::Run(legal, "main", {relax::exec::Value::Tensor(x)}).tensor();
  ASSERT_EQ(y.shape(), (std::vector<int64_t>{kNodes, kFeat}));
  std::vector<double> expected = Expected(x, weighted);
  for (int64_t i = 0; i < y.numel(); ++i) {
    EXPECT_NEAR(y.GetDouble(i), expected[i], 1e-5) << "element " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Patterns, GnnSpmmImport,
                         ::testing::Combine(::testing::Values("ScatterElements", "ScatterND"),
                                            ::testing::Bool()));

// As exporters write it at a size the importer does not evaluate (over 4096 elements): the zeros
// a ConstantOfShape (a `full`), the destinations an Expand of dst[:, None] (a broadcast_to).
TEST(GnnSpmmImportAtSize, ConstantOfShapeZerosAndExpandedDestinations) {
  const int64_t nodes = 100, feat = 64, edges = 80;
  std::vector<int64_t> src, dst;
  for (int64_t e = 0; e < edges; ++e) {
    src.push_back((e * 7) % nodes);
    dst.push_back((e * 13 + 5) % nodes);
  }
  ModelBuilder b(17);
  b.Input("x", {nodes, feat});
  b.InitInts("src", src, {edges});
  SetInt(b.Node("Gather", {"x", "src"}, {"rows"}, "gather"), "axis", 0);
  b.InitInts("out_shape", {nodes, feat}, {2});
  b.Node("ConstantOfShape", {"out_shape"}, {"zeros"}, "zeros");
  b.InitInts("dst", dst, {edges, 1});
  b.InitInts("index_shape", {edges, feat}, {2});
  b.Node("Expand", {"dst", "index_shape"}, {"index"}, "expand");
  ::onnx::NodeProto& scatter = b.Node("ScatterElements", {"zeros", "index", "rows"}, {"y"}, "agg");
  SetInt(scatter, "axis", 0);
  SetString(scatter, "reduction", "add");
  b.Output("y");
  relax::IRModule m = b.Import();
  ASSERT_NE(SpmmKernel(m), nullptr);
  HostTensor x = HostTensor::Random(DataType::Float(32), {nodes, feat}, 5);
  HostTensor y =
      relax::exec::Run(relax::transform::LegalizeOps(m), "main", {relax::exec::Value::Tensor(x)})
          .tensor();
  std::vector<double> expected(nodes * feat, 0.0);
  for (int64_t e = 0; e < edges; ++e) {
    for (int64_t f = 0; f < feat; ++f)
      expected[dst[e] * feat + f] += x.GetDouble(src[e] * feat + f);
  }
  for (int64_t i = 0; i < y.numel(); ++i) ASSERT_NEAR(y.GetDouble(i), expected[i], 1e-5) << i;
}

// The refusal of `o`'s scatter: unsupported, naming the node, what was found and the pattern.
void ExpectRefused(const Options& o, const std::string& found) {
  OnnxImportResult r = GnnModel(o).TryImport();
  ASSERT_FALSE(r.ok());
  ASSERT_EQ(r.unsupported.size(), 1u) << r.ToError().what();
  const OnnxIssue& issue = r.unsupported[0];
  EXPECT_EQ(issue.node_name, "aggregate");
  EXPECT_EQ(issue.op_type, o.op);
  EXPECT_NE(issue.reason.find(found), std::string::npos) << issue.reason;
  EXPECT_NE(issue.reason.find("only reduction=add over a constant edge list after Gather is "
                              "supported, as GNN SpMM"),
            std::string::npos)
      << issue.reason;
}

TEST(GnnSpmmRefusal, AnotherReductionIsRefused) {
  ExpectRefused({.reduction = "mul"}, "reduction is 'mul'");
  ExpectRefused({.op = "ScatterND", .reduction = ""}, "reduction is 'none'");
}

TEST(GnnSpmmRefusal, DataThatIsNotZeroIsRefused) {
  ExpectRefused({.zero_data = false}, "data (input 0) is not all zeros");
}

TEST(GnnSpmmRefusal, SourcesNotKnownAtImportAreRefused) {
  ExpectRefused({.constant_src = false},
                "the Gather's indices (the edge sources) are not constant");
}

TEST(GnnSpmmRefusal, UpdatesThatAreNoGatherAreRefused) {
  ModelBuilder b(18);
  b.Input("u", {2, kFeat});
  b.InitFloats("zeros", std::vector<float>(kNodes * kFeat, 0.0f), {kNodes, kFeat});
  b.InitInts("dst", {0, 1}, {2, 1});
  SetString(b.Node("ScatterND", {"zeros", "dst", "u"}, {"y"}, "aggregate"), "reduction", "add");
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.unsupported.size(), 1u);
  EXPECT_NE(r.unsupported[0].reason.find("updates (input 2) are not the rows of a Gather"),
            std::string::npos)
      << r.unsupported[0].reason;
}

TEST(GnnSpmmRefusal, AnEdgeOutOfRangeIsAnError) {
  ModelBuilder b(18);
  b.Input("x", {kSources, kFeat});
  b.InitInts("src", {0, 1}, {2});
  SetInt(b.Node("Gather", {"x", "src"}, {"rows"}, "gather"), "axis", 0);
  b.InitFloats("zeros", std::vector<float>(kNodes * kFeat, 0.0f), {kNodes, kFeat});
  b.InitInts("dst", {0, kNodes}, {2, 1});
  SetString(b.Node("ScatterND", {"zeros", "dst", "rows"}, {"y"}, "aggregate"), "reduction", "add");
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("index 5 of edge 1 is out of range for 5 rows"),
            std::string::npos)
      << r.errors[0].reason;
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
