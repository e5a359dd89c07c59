// Import rules for dims Kiln cannot know or prove at import time, checked on small models and,
// where it matters, run through LegalizeOps and the reference executor: graph input dims
// written as -1, 0 or missing; dims an op needs equal that cannot be proven equal (a match_cast
// that names the ONNX node, failing at run time with both shapes); Slice bounds clamped as
// dim expressions (sentinels, negative and symbolic bounds); Range up to a symbolic limit;
// GatherND.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "ir/relax/exec/reference_executor.h"
#include "ir/relax/printer.h"
#include "ir/relax/transform/legalize/legalize.h"
#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::ModelBuilder;
using testing::ReturnInfo;
using testing::SetInt;

HostTensor Floats(std::vector<int64_t> shape) {
  HostTensor t(DataType::Float(32), std::move(shape));
  for (int64_t i = 0; i < t.numel(); ++i) t.SetDouble(i, static_cast<double>(i));
  return t;
}

HostTensor Int64s(const std::vector<int64_t>& values, std::vector<int64_t> shape) {
  HostTensor t(DataType::Int(64), std::move(shape));
  for (size_t i = 0; i < values.size(); ++i) t.SetInt(static_cast<int64_t>(i), values[i]);
  return t;
}

std::vector<double> Values(const HostTensor& t) {
  std::vector<double> v;
  for (int64_t i = 0; i < t.numel(); ++i) v.push_back(t.GetDouble(i));
  return v;
}

// main legalized and run on `inputs`: the one result tensor.
HostTensor RunMain(const relax::IRModule& m, const std::vector<HostTensor>& inputs) {
  relax::IRModule legal = relax::transform::LegalizeOps(m);
  std::vector<relax::exec::Value> args;
  for (const HostTensor& t : inputs) args.push_back(relax::exec::Value::Tensor(t));
  return relax::exec::Run(legal, "main", args).tensor();
}

std::string ParamInfo(const relax::IRModule& m, size_t i) {
  return (*m.LookupFunction("main"))->params.at(i).struct_info().ToString();
}

// ---- Graph input dims ------------------------------------------------------------------------

TEST(OnnxSymbolicDims, UnknownInputDimsBecomeNamedShapeVariables) {
  // -1 and "?" (PaddlePaddle) and a dim with neither value nor name; 0 is an empty axis.
  ModelBuilder b;
  b.Input("x", {-1, 1, "?", int64_t{0}});
  // ModelBuilder reads "?" as a missing dim; PaddlePaddle writes it as a dim_param.
  b.model.mutable_graph()
      ->mutable_input(0)
      ->mutable_type()
      ->mutable_tensor_type()
      ->mutable_shape()
      ->mutable_dim(1)
      ->set_dim_param("?");
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ParamInfo(m, 0), "R.Tensor((x_dim0, x_dim1, x_dim2, 0), \"float32\")");
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((x_dim0, x_dim1, x_dim2, 0), \"float32\")");

  // Each is bound by the name it gets, -1 included.
  ImportOptions options;
  options.dim_values["x_dim0"] = 2;
  options.dim_values["x_dim2"] = 5;
  EXPECT_EQ(ReturnInfo(b.Import(options)), "R.Tensor((2, x_dim1, 5, 0), \"float32\")");
  options.dim_values["x_dim1"] = -4;
  OnnxImportResult bad = b.TryImport(options);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.ToError().what(), std::string());
  EXPECT_NE(std::string(bad.ToError().what()).find("dim 'x_dim1' is bound to -4"),
            std::string::npos)
      << bad.ToError().what();
}

TEST(OnnxSymbolicDims, OtherNegativeInputDimsStayErrors) {
  ModelBuilder b;
  b.Input("x", {2, -3});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("graph input 'x': dim 1 is negative (-3)"), std::string::npos);
}

TEST(OnnxSymbolicDims, ADimParamIsBoundByItsNameAsWrittenOrAsTheIrNamesIt) {
  // PaddlePaddle's exporter writes "p2o.DynamicDimension.0"; the IR names it
  // p2o_DynamicDimension_0, which is what `tune tasks` shows and a user passes to --dim.
  ModelBuilder b;
  b.Input("x", {"p2o.DynamicDimension.0", 4});
  b.Node("Relu", {"x"}, {"y"});
  b.Output("y");
  EXPECT_EQ(ReturnInfo(b.Import()), "R.Tensor((p2o_DynamicDimension_0, 4), \"float32\")");
  for (const char* name : {"p2o.DynamicDimension.0", "p2o_DynamicDimension_0"}) {
    ImportOptions options;
    options.dim_values[name] = 3;
    EXPECT_EQ(ReturnInfo(b.Import(options)), "R.Tensor((3, 4), \"float32\")") << name;
  }
}

// ---- Dims that must agree --------------------------------------------------------------------

TEST(OnnxSymbolicDims, UnprovableBroadcastBecomesANamedMatchCast) {
  ModelBuilder b;
  b.Input("a", {"h", 4}).Input("b", {"w", 4});
  b.Node("Add", {"a", "b"}, {"y"}, "fpn_add");
  b.Output("y");
  relax::IRModule m = b.Import();
  // The shapes are known past the Add: input 1 is checked against input 0 (a tie: the earlier).
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((h, 4), \"float32\")");
  std::string text = relax::DebugPrint(m);
  EXPECT_NE(text.find("R.match_cast(b, R.Tensor((h, 4), dtype=\"float32\"))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("ONNX node 0 'fpn_add' (Add): input 1 must match input 0"), std::string::npos)
      << text;

  EXPECT_EQ(Values(RunMain(m, {Floats({2, 4}), Floats({2, 4})})),
            (std::vector<double>{0, 2, 4, 6, 8, 10, 12, 14}));
  try {
    RunMain(m, {Floats({3, 4}), Floats({2, 4})});
    FAIL() << "shapes that break the check ran";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kRuntime);
    std::string what = e.what();
    EXPECT_NE(what.find("ONNX node 0 'fpn_add' (Add): input 1 must match input 0: expected "
                        "R.Tensor((h, 4), \"float32\"), got float32[2, 4]"),
              std::string::npos)
        << what;
  }
}

TEST(OnnxSymbolicDims, TheSimplerDimIsTheRepresentative) {
  // A constant before a variable, whatever the input order; dims that are provably 1 broadcast.
  ModelBuilder b;
  b.Input("a", {"n", 1, "k"}).Input("b", {3, "m", "k"});
  b.Node("Mul", {"a", "b"}, {"y"}, "scale");
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((3, m, k), \"float32\")");
  std::string text = relax::DebugPrint(m);
  EXPECT_NE(text.find("R.match_cast(a, R.Tensor((3, 1, k), dtype=\"float32\"))"), std::string::npos)
      << text;
  EXPECT_NE(text.find("(Mul): input 0 must match input 1"), std::string::npos) << text;
}

TEST(OnnxSymbolicDims, ProvablyDifferentDimsStayImportErrors) {
  ModelBuilder b;
  b.Input("a", {"n", 768}).Input("b", {"n", 512});
  b.Node("Add", {"a", "b"}, {"y"});
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("768 vs 512"), std::string::npos) << r.errors[0].reason;
}

TEST(OnnxSymbolicDims, MatMulConcatAndWhereCheckTheirDims) {
  ModelBuilder b;
  b.Input("x", {"n", "k"})
      .Input("w", {"j", 8})
      .Input("c", {"r", 8})
      .Input("m", {"n", 8}, ::onnx::TensorProto::BOOL);
  b.Node("MatMul", {"x", "w"}, {"xw"}, "mm");
  auto& cat = b.Node("Concat", {"xw", "c"}, {"xc"}, "cat");
  SetInt(cat, "axis", 0);
  b.Node("Where", {"m", "xw", "xw"}, {"sel"}, "where");
  b.Output("xc").Output("sel");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m),
            "R.Tuple(R.Tensor((n + r, 8), \"float32\"), R.Tensor((n, 8), \"float32\"))");
  std::string text = relax::DebugPrint(m);
  EXPECT_NE(text.find("ONNX node 0 'mm' (MatMul): input 1 must match input 0"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("(Concat)"), std::string::npos) << text;  // the other dims are equal
  EXPECT_EQ(text.find("(Where)"), std::string::npos) << text;
}

// ---- Slice -----------------------------------------------------------------------------------

// ONNX's Slice of range(dim) along one axis, written out independently of the importer.
std::vector<double> ExpectedSlice(int64_t dim, int64_t start, int64_t end, int64_t step) {
  auto clamp = [&](int64_t v, bool positive) {
    if (v < 0) v += dim;
    return positive ? std::clamp<int64_t>(v, 0, dim) : std::clamp<int64_t>(v, -1, dim - 1);
  };
  int64_t b = clamp(start, step > 0), e = clamp(end, step > 0);
  std::vector<double> out;
  for (int64_t i = b; step > 0 ? i < e : i > e; i += step) out.push_back(static_cast<double>(i));
  return out;
}

TEST(OnnxSymbolicDims, SliceClampsSymbolicDimsAsOnnxDoes) {
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  struct Case {
    int64_t start, end, step;
  };
  // Sentinel ends, negative bounds, bounds past the dim, negative steps.
  std::vector<Case> cases = {{0, 1000000000, 1}, {2, kInt64Max, 1},    {-3, kInt64Max, 1},
                             {0, -1, 1},         {1, 100, 2},          {100, 200, 1},
                             {-100, 3, 1},       {-1, -kInt64Max, -1}, {5, 1, -2},
                             {-2, -100, -1},     {2147483647, 0, -1},  {0, 2147483647, 3}};
  for (const Case& c : cases) {
    ModelBuilder b;
    b.Input("x", {"n"});
    b.InitInts("starts", {c.start}, {1}).InitInts("ends", {c.end}, {1});
    b.InitInts("axes", {0}, {1}).InitInts("steps", {c.step}, {1});
    b.Node("Slice", {"x", "starts", "ends", "axes", "steps"}, {"y"});
    b.Output("y");
    relax::IRModule m = b.Import();
    for (int64_t n : {4, 10}) {
      EXPECT_EQ(Values(RunMain(m, {Floats({n})})), ExpectedSlice(n, c.start, c.end, c.step))
          << "x[" << c.start << ":" << c.end << ":" << c.step << "] at n = " << n << ": "
          << ReturnInfo(m);
    }
  }
}

TEST(OnnxSymbolicDims, SliceSentinelEndIsTheDim) {
  ModelBuilder b;
  b.Input("x", {"n", 8});
  b.InitInts("starts", {1, 0}, {2}).InitInts("ends", {1000000000, 2147483647}, {2});
  b.Node("Slice", {"x", "starts", "ends"}, {"y"});
  b.Output("y");
  // No 1e9 dim: the end is n, the begin min(1, n).
  EXPECT_EQ(ReturnInfo(b.Import()), "R.Tensor((n - T.min(1, n), 8), \"float32\")");
}

TEST(OnnxSymbolicDims, SliceEndsMayBeSymbolicDims) {
  // A position table sliced to the sequence length (ends from Shape), as BERT exports do.
  ModelBuilder b(13);
  b.Input("ids", {"batch", "seq"}, ::onnx::TensorProto::INT64);
  b.InitFloats("table", {0, 1, 2, 3, 4, 5, 6, 7}, {1, 8});
  b.InitInts("one", {1}, {1}).InitInts("zero", {0}, {1});
  b.Node("Shape", {"ids"}, {"shape"});
  auto& g = b.Node("Gather", {"shape", "one"}, {"seq_len"});
  SetInt(g, "axis", 0);
  b.Node("Slice", {"table", "zero", "seq_len", "one"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((1, T.min(seq, 8)), \"float32\")");
  HostTensor ids(DataType::Int(64), {2, 5});
  EXPECT_EQ(Values(RunMain(m, {ids})), (std::vector<double>{0, 1, 2, 3, 4}));
  HostTensor long_ids(DataType::Int(64), {1, 12});
  EXPECT_EQ(Values(RunMain(m, {long_ids})), (std::vector<double>{0, 1, 2, 3, 4, 5, 6, 7}));
}

// ---- Range -----------------------------------------------------------------------------------

TEST(OnnxSymbolicDims, RangeUpToACastShapeIsSymbolic) {
  // YOLOv8's anchor grid: Range(0.0, Cast<float>(Shape(x)[3]), 1.0).
  ModelBuilder b(17);
  b.Input("x", {1, "w"});
  b.InitInts("one", {1}, {});
  b.InitFloats("start", {0}, {}).InitFloats("delta", {1}, {});
  b.Node("Shape", {"x"}, {"shape"});
  auto& g = b.Node("Gather", {"shape", "one"}, {"w_int"});
  SetInt(g, "axis", 0);
  auto& cast = b.Node("Cast", {"w_int"}, {"w_float"});
  SetInt(cast, "to", ::onnx::TensorProto::FLOAT);
  b.Node("Range", {"start", "w_float", "delta"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((w,), \"float32\")");
  EXPECT_EQ(Values(RunMain(m, {Floats({1, 3})})), (std::vector<double>{0, 1, 2}));
  EXPECT_EQ(Values(RunMain(m, {Floats({1, 5})})), (std::vector<double>{0, 1, 2, 3, 4}));
}

TEST(OnnxSymbolicDims, IntegerRangeHasCeilOfTheSpanElements) {
  ModelBuilder b(17);
  b.Input("x", {"n"});
  b.InitInts("zero", {0}, {}).InitInts("start", {1}, {}).InitInts("delta", {2}, {});
  b.Node("Shape", {"x"}, {"shape"});
  auto& g = b.Node("Gather", {"shape", "zero"}, {"n_value"});
  SetInt(g, "axis", 0);
  b.Node("Range", {"start", "n_value", "delta"}, {"y"});
  b.Output("y");
  relax::IRModule m = b.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((n // 2,), \"int64\")") << relax::DebugPrint(m);
  EXPECT_EQ(Values(RunMain(m, {Floats({6})})), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(Values(RunMain(m, {Floats({7})})), (std::vector<double>{1, 3, 5}));
  EXPECT_EQ(Values(RunMain(m, {Floats({0})})), (std::vector<double>{}));
}

// ---- GatherND --------------------------------------------------------------------------------

TEST(OnnxSymbolicDims, GatherNDPicksSlicesByIndexRows) {
  // ONNX's own examples: whole elements, rows, and rows of each batch (batch_dims = 1).
  ModelBuilder elems(13);
  elems.Input("data", {2, 2}).Input("indices", {2, 2}, ::onnx::TensorProto::INT64);
  elems.Node("GatherND", {"data", "indices"}, {"y"});
  elems.Output("y");
  relax::IRModule m = elems.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((2,), \"float32\")");
  EXPECT_EQ(Values(RunMain(m, {Floats({2, 2}), Int64s({0, 0, 1, 1}, {2, 2})})),
            (std::vector<double>{0, 3}));
  // A negative index counts from the end.
  EXPECT_EQ(Values(RunMain(m, {Floats({2, 2}), Int64s({-1, 0, 0, -1}, {2, 2})})),
            (std::vector<double>{2, 1}));

  ModelBuilder rows(13);
  rows.Input("data", {2, 2, 2}).Input("indices", {2, 1, 2}, ::onnx::TensorProto::INT64);
  rows.Node("GatherND", {"data", "indices"}, {"y"});
  rows.Output("y");
  m = rows.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((2, 1, 2), \"float32\")");
  EXPECT_EQ(Values(RunMain(m, {Floats({2, 2, 2}), Int64s({0, 1, 1, 0}, {2, 1, 2})})),
            (std::vector<double>{2, 3, 4, 5}));

  ModelBuilder batched(13);
  batched.Input("data", {"b", 2, 2}).Input("indices", {"b", 1}, ::onnx::TensorProto::INT64);
  auto& node = batched.Node("GatherND", {"data", "indices"}, {"y"});
  SetInt(node, "batch_dims", 1);
  batched.Output("y");
  m = batched.Import();
  EXPECT_EQ(ReturnInfo(m), "R.Tensor((b, 2), \"float32\")");
  EXPECT_EQ(Values(RunMain(m, {Floats({2, 2, 2}), Int64s({1, 0}, {2, 1})})),
            (std::vector<double>{2, 3, 4, 5}));
}

TEST(OnnxSymbolicDims, GatherNDRejectsIndexRowsLongerThanTheData) {
  ModelBuilder b(13);
  b.Input("data", {2, 2}).Input("indices", {1, 3}, ::onnx::TensorProto::INT64);
  b.Node("GatherND", {"data", "indices"}, {"y"});
  b.Output("y");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("indices of length 3 cannot index a 2-D tensor"),
            std::string::npos)
      << r.errors[0].reason;
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
