// Writing TVM's JSON graph: what GraphWriter prints in either shape reads back through Graph to
// the same nodes, fields and tensors.
#include "ir/tvm_json/writer.h"

#include <gtest/gtest.h>

#include "ir/tvm_json/graph.h"

namespace kiln::ir::tvm_json {
namespace {

// The metadata map of a Relax module with one constant, as TVM 0.27 structures it.
int64_t BuildMetadata(GraphWriter& w, const HostTensor& value) {
  int64_t null = w.AddNull();
  int64_t i64 = w.AddObject(
      "ir.PrimType", {WriterField::Ref("span", null), WriterField::String("dtype", "int64")});
  std::vector<int64_t> dims;
  for (int64_t d : value.shape()) {
    dims.push_back(w.AddObject("ir.IntImm",
                               {WriterField::Ref("span", null), WriterField::Ref("ty", i64),
                                WriterField::BoxedInt("value", d)},
                               "IntImm"));
  }
  int64_t values = w.AddArray(dims);
  int64_t shape = w.AddObject("relax.expr.ShapeExpr",
                              {WriterField::Ref("span", null), WriterField::Ref("values", values)});
  int64_t ty = w.AddObject(
      "relax.TensorType",
      {WriterField::Ref("span", null), WriterField::Ref("shape", shape),
       WriterField::String("dtype", value.dtype().ToString()), WriterField::Ref("vdevice", null),
       WriterField::Int("ndim", static_cast<int64_t>(value.shape().size()))});
  int64_t tensor = w.AddTensor(value);
  int64_t c = w.AddObject("ir.GenericConst",
                          {WriterField::Ref("span", null), WriterField::Ref("ty", ty),
                           WriterField::Tensor("value", tensor)},
                          "relax.expr.Constant");
  int64_t list = w.AddArray({c});
  int64_t key = w.AddString("ir.GenericConst");
  return w.AddMap({{key, list}});
}

TEST(TvmJsonWriter, BothShapesReadBack) {
  HostTensor value = HostTensor::Random(DataType::Float(32), {2, 3}, 11);
  for (GraphFormat format : {GraphFormat::kFfi, GraphFormat::kLegacy}) {
    GraphWriter w;
    int64_t root = BuildMetadata(w, value);
    std::string text = w.Write(root, format, "0.27.0", format == GraphFormat::kFfi ? 2 : -1);
    Graph g = Graph::Parse(text);
    EXPECT_EQ(g.format(), format);
    EXPECT_EQ(g.tvm_version(), "0.27.0");
    ASSERT_EQ(g.Entries(g.root()).size(), 1u);
    int64_t list = g.Entries(g.root())[0].second;
    EXPECT_EQ(g.StringValue(g.Entries(g.root())[0].first), "ir.GenericConst");
    int64_t c = g.Elements(list).at(0);
    EXPECT_EQ(g.node(c).type_key,
              format == GraphFormat::kFfi ? "ir.GenericConst" : "relax.expr.Constant");
    HostTensor back = g.TensorValue(g.TensorRef(c, "value"));
    ASSERT_EQ(back.shape(), value.shape());
    for (int64_t i = 0; i < value.numel(); ++i) EXPECT_EQ(back.GetDouble(i), value.GetDouble(i));
    int64_t ty = g.Ref(c, "ty");
    EXPECT_EQ(g.Str(ty, "dtype"), "float32");
    EXPECT_EQ(g.Int(ty, "ndim"), 2);
    EXPECT_TRUE(g.IsNull(g.Ref(ty, "vdevice")));
    std::vector<int64_t> dims;
    for (int64_t d : g.Elements(g.Ref(g.Ref(ty, "shape"), "values"))) dims.push_back(g.IntValue(d));
    EXPECT_EQ(dims, value.shape());
  }
}

TEST(TvmJsonWriter, ScalarsAndMapsWithNodeKeys) {
  GraphWriter w;
  int64_t i = w.AddInt(-3), b = w.AddBool(true), f = w.AddFloat(0.25), s = w.AddString("q\"\\");
  int64_t arr = w.AddArray({i, b, f, s});
  int64_t root = w.AddMap({{i, arr}, {s, b}});
  for (GraphFormat format : {GraphFormat::kFfi, GraphFormat::kLegacy}) {
    Graph g = Graph::Parse(w.Write(root, format, "x"));
    const auto& entries = g.Entries(g.root());
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_EQ(g.IntValue(entries[0].first), -3);
    const auto& e = g.Elements(entries[0].second);
    EXPECT_EQ(g.IntValue(e[0]), -3);
    EXPECT_TRUE(g.BoolValue(e[1]));
    EXPECT_EQ(g.FloatValue(e[2]), 0.25);
    EXPECT_EQ(g.StringValue(e[3]), "q\"\\");
    EXPECT_EQ(g.StringValue(entries[1].first), "q\"\\");
  }
}

}  // namespace
}  // namespace kiln::ir::tvm_json
