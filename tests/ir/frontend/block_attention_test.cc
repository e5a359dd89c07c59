// Masked attention imported as block-sparse attention (ir/frontend/onnx/convert_block_attention.h):
// MatMul(Q, K^T), a scale, an additive or Where mask that is block-structured, Softmax and
// MatMul with V become the three attention kernels (3-D and 4-D Q, K, V; K^T a Transpose or an
// input; the scale on the scores, on the masked scores or on Q), for the largest block size
// that fits; a mask that is not block-structured, or a block row with no block, stays dense.
// --sparse-attention: auto converts a 25% mask and keeps a 50% one dense, always converts
// both, never neither.
// Every variant's result, run by the reference executor (the kernels through the interpreter),
// is the dense masked attention computed here.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>

#include "ir/frontend/onnx/sparse_attention_mode.h"
#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "ir/sparse/attention_kernel_text.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::Dim;
using testing::ModelBuilder;
using testing::SetInt;
using testing::SetInts;

constexpr int64_t kHeads = 2, kLen = 32, kDim = 8;
constexpr float kScale = 0.35f, kDivisor = 2.5f;

struct Options {
  int rank = 3;                  // Q, K, V [H, L, D] or [1, H, L, D]
  std::string mask = "add";      // "add", "where" (true attended), "where_not" (true masked)
  std::string scale = "scores";  // Mul of the scores, "divide" them, "masked" (after), "q"
  bool kt_input = false;         // K^T given as the input [.., H, D, L]
  int64_t block = 8;             // the mask's block structure: 8 (4 x 4 blocks) or 16
  bool broken = false;           // one token pair of an attended block masked
  bool empty_row = false;        // block row 2 (of blocks of 8) attends to nothing
  bool diagonal = false;         // only the 4 diagonal blocks of 8: 25% of the blocks
  float masked = -1e9f;
};

// The attended token pairs (L x L) of `o`'s mask.
std::vector<char> Attended(const Options& o) {
  std::vector<char> a(kLen * kLen, 0);
  const int64_t n = kLen / o.block;
  for (int64_t bi = 0; bi < n; ++bi) {
    for (int64_t bj = 0; bj < n; ++bj) {
      // 8: rows {0}, {0, 1}, {0, 2}, {0, 1, 3} (mixed at 16); 16: rows {0}, {0, 1}.
      bool on = bj == 0 || bj == bi || (n == 4 && bi == 3 && bj == 1);
      if (o.diagonal) on = bj == bi;
      if (o.empty_row && bi * o.block == 16) on = false;
      for (int64_t r = 0; r < o.block; ++r) {
        for (int64_t c = 0; c < o.block; ++c) {
          a[(bi * o.block + r) * kLen + bj * o.block + c] = on;
        }
      }
    }
  }
  if (o.broken) a[3 * kLen + 5] = 0;
  return a;
}

std::vector<Dim> Dims(const Options& o, int64_t a, int64_t b) {
  if (o.rank == 4) return {1, kHeads, a, b};
  return {kHeads, a, b};
}

std::vector<int64_t> MaskDims(const Options& o) {
  if (o.rank == 4) return {1, 1, kLen, kLen};
  return {kLen, kLen};
}

ModelBuilder AttentionModel(const Options& o) {
  ModelBuilder b(17);
  b.Input("q", Dims(o, kLen, kDim));
  b.Input(o.kt_input ? "kt" : "k", o.kt_input ? Dims(o, kDim, kLen) : Dims(o, kLen, kDim));
  b.Input("v", Dims(o, kLen, kDim));
  if (!o.kt_input) {
    std::vector<int64_t> perm =
        o.rank == 4 ? std::vector<int64_t>{0, 1, 3, 2} : std::vector<int64_t>{0, 2, 1};
    SetInts(b.Node("Transpose", {"k"}, {"kt"}, "k_t"), "perm", perm);
  }
  b.InitFloats("c", {o.scale == "divide" ? kDivisor : kScale}, {});
  std::string q = "q";
  if (o.scale == "q") {
    b.Node("Mul", {"q", "c"}, {"qs"}, "scale_q");
    q = "qs";
  }
  b.Node("MatMul", {q, "kt"}, {"scores"}, "scores");
  std::string s = "scores";
  if (o.scale == "scores" || o.scale == "divide") {
    b.Node(o.scale == "divide" ? "Div" : "Mul", {"scores", "c"}, {"scaled"}, "scale");
    s = "scaled";
  }
  const std::vector<char> attended = Attended(o);
  if (o.mask == "add") {
    std::vector<float> m;
    for (char a : attended) m.push_back(a ? 0.0f : o.masked);
    b.InitFloats("mask", m, MaskDims(o));
    b.Node("Add", {s, "mask"}, {"masked"}, "mask");
  } else {
    auto* t = b.model.mutable_graph()->add_initializer();
    t->set_name("cond");
    t->set_data_type(::onnx::TensorProto::BOOL);
    for (int64_t d : MaskDims(o)) t->add_dims(d);
    for (char a : attended) t->add_int32_data(o.mask == "where" ? a : !a);
    b.InitFloats("fill", {o.masked}, {});
    if (o.mask == "where") {
      b.Node("Where", {"cond", s, "fill"}, {"masked"}, "mask");
    } else {
      b.Node("Where", {"cond", "fill", s}, {"masked"}, "mask");
    }
  }
  std::string x = "masked";
  if (o.scale == "masked") {
    b.Node("Mul", {"masked", "c"}, {"masked_scaled"}, "scale");
    x = "masked_scaled";
  }
  SetInt(b.Node("Softmax", {x}, {"p"}, "softmax"), "axis", -1);
  b.Node("MatMul", {"p", "v"}, {"y"}, "context");
  b.Output("y");
  return b;
}

// The dense masked attention, in double, as ONNX defines the graph.
std::vector<double> Expected(const Options& o, const HostTensor& q, const HostTensor& k,
                             const HostTensor& v) {
  const std::vector<char> attended = Attended(o);
  const double c = o.scale == "divide" ? 1.0 / kDivisor : kScale;
  std::vector<double> out(kHeads * kLen * kDim, 0.0);
  for (int64_t h = 0; h < kHeads; ++h) {
    for (int64_t i = 0; i < kLen; ++i) {
      std::vector<double> s(kLen);
      double max = -INFINITY;
      for (int64_t j = 0; j < kLen; ++j) {
        double dot = 0;
        for (int64_t d = 0; d < kDim; ++d) {
          // K^T as an input is [H, D, L].
          double kv = o.kt_input ? k.GetDouble((h * kDim + d) * kLen + j)
                                 : k.GetDouble((h * kLen + j) * kDim + d);
          dot += q.GetDouble((h * kLen + i) * kDim + d) * kv;
        }
        const bool on = attended[i * kLen + j];
        if (o.scale == "masked") {
          s[j] = (dot + (on ? 0.0 : o.masked)) * c;
        } else {
          // The float32 sum with a mask value near -1e4 keeps only a few bits of the score.
          const float scaled = static_cast<float>(dot * c);
          s[j] = on ? dot * c : (o.mask == "add" ? double{scaled + o.masked} : o.masked);
        }
        max = std::max(max, s[j]);
      }
      double sum = 0;
      for (double& e : s) sum += (e = std::exp(e - max));
      for (int64_t j = 0; j < kLen; ++j) {
        for (int64_t d = 0; d < kDim; ++d) {
          out[(h * kLen + i) * kDim + d] += s[j] / sum * v.GetDouble((h * kLen + j) * kDim + d);
        }
      }
    }
  }
  return out;
}

// The attention kernels the import made (name -> function).
std::map<std::string, const PrimFuncNode*> AttentionKernels(const relax::IRModule& m) {
  std::map<std::string, const PrimFuncNode*> out;
  for (const std::string& name : m.names()) {
    const ir::PrimFunc* f = m.LookupPrimFunc(name);
    if (f == nullptr) continue;
    auto op = (*f)->attrs.find("kiln.sparse_op");
    if (op == (*f)->attrs.end()) continue;
    out[op->second.as<StringImmNode>()->value] = f->get();
  }
  return out;
}

// Imports `o`'s model, runs it on seeded Q, K, V and checks the dense attention's result.
relax::IRModule ImportAndCheck(const Options& o) {
  relax::IRModule m = AttentionModel(o).Import();
  std::vector<int64_t> qv = {kHeads, kLen, kDim}, kt = {kHeads, kDim, kLen};
  if (o.rank == 4) {
    qv.insert(qv.begin(), 1);
    kt.insert(kt.begin(), 1);
  }
  HostTensor q = HostTensor::Random(DataType::Float(32), qv, 1);
  HostTensor k = HostTensor::Random(DataType::Float(32), o.kt_input ? kt : qv, 2);
  HostTensor v = HostTensor::Random(DataType::Float(32), qv, 3);
  HostTensor y = relax::exec::Run(relax::transform::LegalizeOps(m), "main",
                                  {relax::exec::Value::Tensor(q), relax::exec::Value::Tensor(k),
                                   relax::exec::Value::Tensor(v)})
                     .tensor();
  EXPECT_EQ(y.shape(), qv);
  std::vector<double> expected = Expected(o, q, k, v);
  for (int64_t i = 0; i < y.numel() && i < static_cast<int64_t>(expected.size()); ++i) {
    EXPECT_NEAR(y.GetDouble(i), expected[i], 2e-5) << "element " << i;
  }
  return m;
}

void ExpectSparse(const relax::IRModule& m, int64_t block, double scale) {
  std::map<std::string, const PrimFuncNode*> kernels = AttentionKernels(m);
  ASSERT_EQ(kernels.size(), 3u);
  for (const auto& [op, f] : kernels) {
    SCOPED_TRACE(op);
    EXPECT_EQ(AsConstInt(f->attrs.at("kiln.attention_block")), block);
    EXPECT_EQ(AsConstInt(f->attrs.at("kiln.attention_heads")), kHeads);
    EXPECT_EQ(AsConstInt(f->attrs.at("kiln.sparse_rows")), kLen);
    EXPECT_EQ(AsConstInt(f->attrs.at("kiln.sparse_feat")), kDim);
    EXPECT_EQ(f->attrs.at("kiln.attention_scale").as<StringImmNode>()->value,
              ir::sparse::AttentionScaleLiteral(static_cast<float>(scale)));
  }
  EXPECT_EQ(kernels.count("attention_sddmm") + kernels.count("attention_softmax") +
                kernels.count("attention_spmm"),
            3u);
}

struct Variant {
  const char* name;
  Options options;
};

class BlockAttentionImport : public ::testing::TestWithParam<Variant> {};

TEST_P(BlockAttentionImport, BecomesTheAttentionKernelsWithTheDenseResult) {
  // These masks are 50% (blocks of 8) and 75% (16) attended, above auto's threshold.
  ScopedSparseAttentionMode always(SparseAttentionMode::kAlways);
  const Options& o = GetParam().options;
  relax::IRModule m = ImportAndCheck(o);
  ExpectSparse(m, o.block, o.scale == "divide" ? 1.0 / kDivisor : kScale);
}

INSTANTIATE_TEST_SUITE_P(
    Patterns, BlockAttentionImport,
    ::testing::Values(Variant{"Add3D", {}}, Variant{"Add4D", {.rank = 4}},
                      Variant{"Where3D", {.mask = "where"}},
                      Variant{"WhereNot4D", {.rank = 4, .mask = "where_not"}},
                      Variant{"DivideNegInfMask", {.scale = "divide", .masked = -INFINITY}},
                      Variant{"ScaleAfterMask", {.scale = "masked", .masked = -1e4f}},
                      Variant{"ScaleOnQ", {.scale = "q", .masked = -3.4028235e38f}},
                      Variant{"KTransposedInput", {.rank = 4, .kt_input = true}},
                      Variant{"Block16", {.block = 16}}),
    [](const ::testing::TestParamInfo<Variant>& info) { return info.param.name; });

TEST(BlockAttentionDense, AMaskThatIsNotBlockStructuredStaysDenseAndCorrect) {
  ScopedSparseAttentionMode always(SparseAttentionMode::kAlways);
  for (const Options& o : {Options{.broken = true}, Options{.mask = "where", .broken = true}}) {
    relax::IRModule m = ImportAndCheck(o);
    EXPECT_TRUE(AttentionKernels(m).empty());
  }
}

TEST(BlockAttentionDense, ABlockRowWithNoBlockStaysDenseAndCorrect) {
  ScopedSparseAttentionMode always(SparseAttentionMode::kAlways);
  // -1e4: the masked row's softmax is spread over every key, as ONNX computes it.
  relax::IRModule m = ImportAndCheck({.empty_row = true, .masked = -1e4f});
  EXPECT_TRUE(AttentionKernels(m).empty());
}

TEST(BlockAttentionDense, AMaskThatIsNoMaskStaysDense) {
  ScopedSparseAttentionMode always(SparseAttentionMode::kAlways);
  // A relative bias (values other than 0 and a large negative) is no mask.
  Options o;
  o.masked = -3.0f;
  relax::IRModule m = ImportAndCheck(o);
  EXPECT_TRUE(AttentionKernels(m).empty());
}

TEST(BlockAttentionMode, NeverKeepsEvenASparseMaskDense) {
  ScopedSparseAttentionMode never(SparseAttentionMode::kNever);
  EXPECT_EQ(CurrentSparseAttentionMode(), SparseAttentionMode::kNever);
  relax::IRModule m = ImportAndCheck({.diagonal = true});
  EXPECT_TRUE(AttentionKernels(m).empty());
}

TEST(BlockAttentionMode, AutoConvertsOnlyAMaskSparseEnoughToWin) {
  ASSERT_EQ(CurrentSparseAttentionMode(), SparseAttentionMode::kAuto);  // no scope: auto
  ASSERT_GE(kSparseAttentionMaxDensity, 0.25);
  ASSERT_LT(kSparseAttentionMaxDensity, 0.5);
  // 25% of the blocks: converted.
  ExpectSparse(ImportAndCheck({.diagonal = true}), 8, kScale);
  // 50%: above the threshold, dense (and still correct).
  EXPECT_TRUE(AttentionKernels(ImportAndCheck({})).empty());
  // The scope restores the mode it replaced.
  {
    ScopedSparseAttentionMode always(SparseAttentionMode::kAlways);
    ExpectSparse(ImportAndCheck({}), 8, kScale);
  }
  EXPECT_EQ(CurrentSparseAttentionMode(), SparseAttentionMode::kAuto);
}

TEST(BlockAttentionMode, ParsesTheCommandLineSpellings) {
  for (const char* name : {"auto", "always", "never"}) {
    std::optional<SparseAttentionMode> mode = ParseSparseAttentionMode(name);
    ASSERT_TRUE(mode.has_value()) << name;
    EXPECT_EQ(SparseAttentionModeName(*mode), name);
  }
  EXPECT_FALSE(ParseSparseAttentionMode("on").has_value());
  EXPECT_FALSE(ParseSparseAttentionMode("").has_value());
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
