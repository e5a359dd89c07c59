// Malformed ONNX files (testdata/malformed, made by make_testdata.py, plus a few built here):
// each gives a kiln::Error naming the file and what is wrong, never a crash.
#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace kiln::ir::frontend::onnx {
namespace {

using testing::ModelBuilder;
using testing::SetFloat;
using testing::TestData;

struct Malformed {
  const char* file;
  ErrorKind kind;
  std::vector<const char*> phrases;  // each must appear in the message

  // How the test runner shows a case: the file name, not its bytes.
  friend void PrintTo(const Malformed& m, std::ostream* os) { *os << m.file; }
};

class OnnxMalformed : public ::testing::TestWithParam<Malformed> {};

TEST_P(OnnxMalformed, GivesAClearError) {
  const Malformed& c = GetParam();
  std::string path = TestData(std::string("malformed/") + c.file);
  try {
    ImportOnnx(path);
    FAIL() << c.file << " imported";
  } catch (const Error& e) {
    std::string msg = e.what();
    EXPECT_EQ(e.kind(), c.kind) << msg;
    EXPECT_NE(msg.find(path), std::string::npos) << "the message does not name the file: " << msg;
    for (const char* phrase : c.phrases) {
      EXPECT_NE(msg.find(phrase), std::string::npos) << "'" << phrase << "' not in: " << msg;
    }
  }
  OnnxImportResult r = TryImportOnnx(path);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.unsupported.size() + r.errors.size(), 1u);
}

INSTANTIATE_TEST_SUITE_P(
    Files, OnnxMalformed,
    ::testing::Values(
        Malformed{"truncated.onnx", ErrorKind::kParse, {"truncated or corrupt"}},
        Malformed{"random_bytes.onnx", ErrorKind::kParse, {"not a valid ONNX model"}},
        Malformed{"text_file.onnx", ErrorKind::kParse, {"not a valid ONNX model"}},
        Malformed{"undefined_input.onnx",
                  ErrorKind::kParse,
                  {"node 0 'add_undefined' (Add): input 1 'nowhere' is not a graph input"}},
        Malformed{"missing_input.onnx",
                  ErrorKind::kParse,
                  {"node 0 'add_one_input' (Add)", "input 1 is required but missing"}},
        Malformed{"bad_initializer_size.onnx",
                  ErrorKind::kParse,
                  {"initializer 'w'", "raw_data has 10 bytes but 6 FLOAT elements need 24"}},
        Malformed{"unknown_dtype.onnx",
                  ErrorKind::kParse,
                  {"initializer 'w'", "data_type 99 is not an ONNX dtype"}},
        Malformed{"opset_out_of_range.onnx",
                  ErrorKind::kUnsupported,
                  {"opset 99 of ai.onnx is newer than the newest Kiln knows"}},
        Malformed{"cycle.onnx",
                  ErrorKind::kParse,
                  {"the graph has a cycle", "node 0 'first' (Relu)", "node 1 'second' (Relu)"}},
        Malformed{"duplicate_output.onnx",
                  ErrorKind::kParse,
                  {"value 'y' is produced by node 0 'r1' (Relu) and again by node 1 'r2'"}},
        Malformed{"external_data.onnx",
                  ErrorKind::kUnsupported,
                  {"initializer 'w'", "external file ('weights.bin')"}}),
    [](const ::testing::TestParamInfo<Malformed>& info) {
      std::string name = info.param.file;
      return name.substr(0, name.find('.'));
    });

TEST(OnnxMalformedBuilt, MissingFileIsAnIOError) {
  try {
    ImportOnnx(TestData("malformed/no_such_file.onnx"));
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_NE(std::string(e.what()).find("no_such_file.onnx"), std::string::npos);
  }
}

TEST(OnnxMalformedBuilt, OpsetZeroAndMissingDefaultOpset) {
  ModelBuilder zero(0);
  zero.Input("x", {2});
  zero.Node("Relu", {"x"}, {"y"});
  zero.Output("y");
  OnnxImportResult r = zero.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("version 0 of ai.onnx is out of range"), std::string::npos)
      << r.errors[0].reason;

  ModelBuilder none;
  none.model.clear_opset_import();
  none.Input("x", {2});
  none.Node("Relu", {"x"}, {"y"});
  none.Output("y");
  r = none.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("no version for the default domain"), std::string::npos);
}

TEST(OnnxMalformedBuilt, AttributeOfTheWrongTypeAndBadTensorAttribute) {
  ModelBuilder b;
  b.Input("x", {2, 3});
  SetFloat(b.Node("Flatten", {"x"}, {"f"}, "flat"), "axis", 1.0f);
  auto& c = b.Node("Constant", {}, {"c"}, "const");
  auto* a = c.add_attribute();
  a->set_name("value");
  a->set_type(::onnx::AttributeProto::TENSOR);
  a->mutable_t()->set_data_type(::onnx::TensorProto::FLOAT);
  a->mutable_t()->add_dims(1000000000000);  // no data for a trillion floats
  b.Output("f").Output("c");
  OnnxImportResult r = b.TryImport();
  ASSERT_EQ(r.errors.size(), 2u);
  EXPECT_EQ(r.errors[0].ToString(),
            "node 0 'flat' (Flatten): attribute 'axis' must be of type int, got float");
  EXPECT_NE(r.errors[1].ToString().find("the dims need 1000000000000 values but the tensor "
                                        "holds 0"),
            std::string::npos)
      << r.errors[1].ToString();
}

TEST(OnnxMalformedBuilt, NegativeDimAndNoOutputs) {
  ModelBuilder neg;
  neg.Input("x", {2, -3});
  neg.Node("Relu", {"x"}, {"y"});
  neg.Output("y");
  OnnxImportResult r = neg.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("graph input 'x': dim 1 is negative"), std::string::npos);

  ModelBuilder empty;
  empty.Input("x", {2});
  r = empty.TryImport();
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].reason.find("the graph has no outputs"), std::string::npos);
}

}  // namespace
}  // namespace kiln::ir::frontend::onnx
