// Reading TVM's JSON object graph in both shapes: graphs TVM 0.27 wrote, a legacy graph as TVM up
// to 0.23 wrote it, and malformed graphs whose errors name the node and field.
#include "ir/tvm_json/graph.h"

#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::ir::tvm_json {
namespace {

// tvm.ir.save_json(relax.const(np.array([[1.5, -2.0, 3.25]], "float32"))) in TVM 0.27.
constexpr char kFfiConstant[] =
    R"({"root_index":12,"nodes":[{"type":"None"},{"type":"ir.PrimType","data":{"span":0,"dtype":"int64"}},{"type":"int","data":1},{"type":"ir.IntImm","data":{"span":0,"ty":1,"value":2}},{"type":"int","data":3},{"type":"ir.IntImm","data":{"span":0,"ty":1,"value":4}},{"type":"ffi.Array","data":[3,5]},{"type":"relax.ShapeType","data":{"span":0,"values":6,"ndim":2}},{"type":"relax.expr.ShapeExpr","data":{"span":0,"ty":7,"values":6}},{"type":"ir.PrimType","data":{"span":0,"dtype":"float32"}},{"type":"relax.TensorType","data":{"span":0,"shape":8,"dtype":9,"vdevice":0,"ndim":2}},{"type":"ffi.Tensor","data":"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAAAAAAAMA\/AAAAwAAAUEA="},{"type":"ir.GenericConst","data":{"span":0,"ty":10,"value":11}}],"metadata":{"tvm_version":"0.27.0.post1"}})";

// tvm.ir.save_json(tvm.runtime.convert({"a": 1, "b": [True, 1.5, "x"]})) and an Op, TVM 0.27.
constexpr char kFfiContainers[] =
    R"({"root_index":8,"nodes":[{"type":"ffi.String","data":"a"},{"type":"int","data":1},{"type":"ffi.String","data":"b"},{"type":"bool","data":true},{"type":"float","data":1.5},{"type":"ffi.String","data":"x"},{"type":"ffi.Array","data":[3,4,5,9]},{"type":"ffi.Map","data":[0,1,2,6]},{"type":"ffi.Map","data":[0,7]},{"type":"ir.Op","data":"relax.add"}],"metadata":{"tvm_version":"0.27.0.post1"}})";

// A Relax metadata section as TVM up to 0.23 printed it (shape of TVM 0.17's save_json).
constexpr char kLegacyMetadata[] = R"({
  "root": 1,
  "nodes": [
    {"type_key": ""},
    {"type_key": "Map", "keys": ["relax.expr.Constant"], "data": [2]},
    {"type_key": "Array", "data": [3]},
    {"type_key": "relax.expr.Constant", "attrs": {"_checked_type_": "9", "data": "0",
     "span": "0", "struct_info_": "4"}},
    {"type_key": "relax.TensorStructInfo", "attrs": {"dtype": "float32", "ndim": "2",
     "shape": "5", "span": "0", "vdevice": "0"}},
    {"type_key": "relax.expr.ShapeExpr", "attrs": {"_checked_type_": "0", "span": "0",
     "struct_info_": "0", "values": "6"}},
    {"type_key": "Array", "data": [7, 8]},
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "1"}},
    {"type_key": "IntImm", "attrs": {"dtype": "int64", "span": "0", "value": "3"}},
    {"type_key": "relax.DynTensorType", "attrs": {"dtype": "float32", "ndim": "2", "span": "0"}},
    {"type_key": "runtime.String", "repr_str": "hello"},
    {"type_key": "runtime.BoxInt", "attrs": {"value": "-5"}},
    {"type_key": "Op", "global_key": "relax.add"}
  ],
  "b64ndarrays": [
    "P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAIgAQABAAAAAAAAAAMAAAAAAAAADAAAAAAAAAAAAMA/AAAAwAAAUEA="
  ],
  "attrs": {"tvm_version": "0.17.0"}
})";

void ExpectValues(const HostTensor& t) {
  ASSERT_EQ(t.dtype(), DataType::Float(32));
  ASSERT_EQ(t.shape(), (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(t.GetDouble(0), 1.5);
  EXPECT_EQ(t.GetDouble(1), -2.0);
  EXPECT_EQ(t.GetDouble(2), 3.25);
}

TEST(TvmJsonGraph, ReadsTvm027Constant) {
  Graph g = Graph::Parse(kFfiConstant);
  EXPECT_EQ(g.format(), GraphFormat::kFfi);
  EXPECT_EQ(g.tvm_version(), "0.27.0.post1");
  int64_t c = g.root();
  EXPECT_EQ(g.node(c).type_key, "ir.GenericConst");
  EXPECT_TRUE(g.IsNull(g.Ref(c, "span")));
  ExpectValues(g.TensorValue(g.TensorRef(c, "value")));
  int64_t ty = g.Ref(c, "ty");
  EXPECT_EQ(g.node(ty).type_key, "relax.TensorType");
  EXPECT_EQ(g.Int(ty, "ndim"), 2);
  EXPECT_EQ(g.Str(g.Ref(ty, "dtype"), "dtype"), "float32");
  std::vector<int64_t> dims;
  for (int64_t d : g.Elements(g.Ref(g.Ref(ty, "shape"), "values"))) dims.push_back(g.IntValue(d));
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(g.BoxedInt(3, "value"), 1);
}

TEST(TvmJsonGraph, ReadsContainersAndScalars) {
  Graph g = Graph::Parse(kFfiContainers);
  int64_t outer = g.root();
  int64_t inner = g.Lookup(outer, "a");
  ASSERT_GE(inner, 0);
  EXPECT_EQ(g.IntValue(g.Lookup(inner, "a")), 1);
  EXPECT_EQ(g.Lookup(inner, "missing"), -1);
  const std::vector<int64_t>& list = g.Elements(g.Lookup(inner, "b"));
  ASSERT_EQ(list.size(), 4u);
  EXPECT_TRUE(g.BoolValue(list[0]));
  EXPECT_EQ(g.FloatValue(list[1]), 1.5);
  EXPECT_EQ(g.StringValue(list[2]), "x");
  EXPECT_EQ(g.node(list[3]).type_key, "ir.Op");
  EXPECT_EQ(g.StringValue(list[3]), "relax.add");
}

TEST(TvmJsonGraph, ReadsLegacyShape) {
  Graph g = Graph::Parse(kLegacyMetadata, "metadata");
  EXPECT_EQ(g.format(), GraphFormat::kLegacy);
  EXPECT_EQ(g.tvm_version(), "0.17.0");
  int64_t consts = g.Lookup(g.root(), "relax.expr.Constant");
  ASSERT_GE(consts, 0);
  ASSERT_EQ(g.Elements(consts).size(), 1u);
  int64_t c = g.Elements(consts)[0];
  EXPECT_EQ(g.node(c).type_key, "relax.expr.Constant");
  ExpectValues(g.TensorValue(g.TensorRef(c, "data")));
  int64_t sinfo = g.Ref(c, "struct_info_");
  EXPECT_EQ(g.Str(sinfo, "dtype"), "float32");
  EXPECT_EQ(g.Int(sinfo, "ndim"), 2);
  EXPECT_TRUE(g.IsNull(g.Ref(sinfo, "vdevice")));
  std::vector<int64_t> dims;
  for (int64_t d : g.Elements(g.Ref(g.Ref(sinfo, "shape"), "values"))) {
    dims.push_back(g.IntValue(d));
  }
  EXPECT_EQ(dims, (std::vector<int64_t>{1, 3}));
  EXPECT_EQ(g.StringValue(10), "hello");
  EXPECT_EQ(g.IntValue(11), -5);
  EXPECT_EQ(g.StringValue(12), "relax.add");
}

void ExpectParseError(std::string_view json, const std::string& phrase) {
  try {
    Graph::Parse(json, "model.relax:3 metadata");
    FAIL() << "expected an error with " << phrase;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("model.relax:3 metadata"), std::string::npos);
  }
}

TEST(TvmJsonGraph, MalformedGraphsNameTheNode) {
  ExpectParseError("{\"root_index\": 0, \"nodes\": [", "not JSON");
  ExpectParseError("[1, 2]", "expected a JSON object");
  ExpectParseError(R"({"root_index": 0})", "expected a \"nodes\" list");
  ExpectParseError(R"({"nodes": []})", "expected \"root_index\"");
  ExpectParseError(R"({"root_index": 3, "nodes": [{"type": "None"}]})",
                   "root 3 is not a node index");
  ExpectParseError(R"({"root_index": 0, "nodes": [{"type": "ffi.Array", "data": [0, 7]}]})",
                   "node 0 (ffi.Array): element 7 is not a node index");
  ExpectParseError(R"({"root_index": 0, "nodes": [{"type": "ffi.Map", "data": [0]}]})",
                   "node 0: map data has an odd number of entries");
  ExpectParseError(R"({"root_index": 0, "nodes": [{"data": 1}]})", "node 0: missing \"type\"");
  ExpectParseError(R"({"root_index": 0, "nodes": [{"type": "int", "data": "x"}]})",
                   "node 0: \"data\" must be an integer");
  ExpectParseError(R"({"root": 0, "nodes": [{"type_key": "Map", "keys": ["a"], "data": []}]})",
                   "\"keys\" must be a list as long as \"data\"");
  ExpectParseError(R"({"root": 0, "nodes": [], "b64ndarrays": [3]})",
                   "\"b64ndarrays\" must be a list of base64 strings");
  // Deep nesting is refused before anything recurses over it.
  std::string deep = R"({"root_index": 0, "nodes": [{"type": "x", "data": {"f": )" +
                     std::string(100000, '[') + std::string(100000, ']') + "}}]}";
  ExpectParseError(deep, "JSON nested deeper than 64 levels");
  // Brackets inside strings do not count.
  Graph::Parse(R"({"root_index": 0, "nodes": [{"type": "ffi.String", "data": ")" +
               std::string(1000, '[') + "\\\"" + R"("}]})");
}

TEST(TvmJsonGraph, FieldAccessorsNameNodeAndField) {
  Graph g = Graph::Parse(
      R"({"root_index": 1, "nodes": [{"type": "None"},
          {"type": "ir.IntImm", "data": {"span": 0, "ty": 9, "value": 0, "name": 3}}]})",
      "meta");
  auto expect = [](auto f, const std::string& phrase) {
    try {
      f();
      FAIL() << "expected an error with " << phrase;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
    }
  };
  expect([&] { g.Ref(1, "ty"); },
         "meta: node 1 (ir.IntImm), field \"ty\": 9 is not a node index (the graph has 2 nodes)");
  expect([&] { g.Ref(1, "dtype"); }, "node 1 (ir.IntImm): missing field \"dtype\"");
  expect([&] { g.Str(1, "name"); }, "field \"name\": expected a string, got 3");
  expect([&] { g.BoxedInt(1, "value"); },
         "field \"value\": expected a reference to an int node, got meta: node 0 (None)");
  expect([&] { g.TensorRef(1, "span"); }, "expected a reference to a tensor");
  expect([&] { g.Elements(1); }, "node 1 (ir.IntImm): expected an array");
  expect([&] { g.node(5); }, "node 5 does not exist");
  Graph legacy = Graph::Parse(R"({"root": 0, "nodes": [{"type_key": "X", "attrs": {"d": "2"}}]})");
  expect([&] { legacy.TensorRef(0, "d"); }, "2 is not an index of b64ndarrays (it has 0 entries)");
}

}  // namespace
}  // namespace kiln::ir::tvm_json
