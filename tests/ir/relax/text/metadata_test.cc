// TVM's metadata section: the statement TVM 0.27 and older print is found, its Python string
// decoded and its JSON graph read to the constants; the statement is blanked with every line
// kept; malformed statements and graphs are errors at their place; WriteMetadata's text reads
// back to the same tensors in both graph shapes.
#include "ir/relax/text/metadata.h"

#include <gtest/gtest.h>

#include "support/error.h"
#include "tests/ir/relax/text/test_util.h"

namespace kiln::ir::relax::text {
namespace {

std::optional<MetadataSection> Extract(std::string* text) {
  SourceText source(*text, "m.relax");
  return ExtractMetadata(source, text);
}

void ExpectValues(const HostTensor& t, DataType dtype, std::vector<int64_t> shape,
                  std::vector<double> values) {
  ASSERT_EQ(t.dtype(), dtype);
  ASSERT_EQ(t.shape(), shape);
  for (size_t i = 0; i < values.size(); ++i) EXPECT_EQ(t.GetDouble(i), values[i]) << i;
}

int CountLines(const std::string& s) {
  return static_cast<int>(std::count(s.begin(), s.end(), '\n'));
}

TEST(RelaxMetadata, ReadsWhatTvm027Printed) {
  std::string text = testing::ReadText(testing::CorpusDir() / "tvm027_meta.relax");
  std::string original = text;
  std::optional<MetadataSection> section = Extract(&text);
  ASSERT_TRUE(section.has_value());
  EXPECT_EQ(section->tvm_version, "0.27.0.post1");
  EXPECT_EQ(section->line, 1);
  ASSERT_EQ(section->constants.count(kGenericConstKind), 1u);
  const std::vector<HostTensor>& c = section->constants.at(kGenericConstKind);
  ASSERT_EQ(c.size(), 5u);
  ExpectValues(c[1], DataType::Float(32), {3}, {0.5, -1.0, 2.0});
  ExpectValues(c[2], DataType::Float(32), {3}, {1.0, 2.0, 0.5});
  ExpectValues(c[4], DataType::Int(32), {2}, {2, 0});
  EXPECT_EQ(c[0].shape(), (std::vector<int64_t>{4, 3}));
  // Blanked, with the lines kept: the module's tokens keep their places.
  EXPECT_EQ(CountLines(text), CountLines(original));
  EXPECT_EQ(text.find("load_json"), std::string::npos);
  EXPECT_NE(text.find("@I.ir_module"), std::string::npos);
}

TEST(RelaxMetadata, ReadsTheLegacyGraphOfOlderTvm) {
  std::string text = testing::ReadText(testing::CorpusDir() / "tvm023_meta.relax");
  std::optional<MetadataSection> section = Extract(&text);
  ASSERT_TRUE(section.has_value());
  EXPECT_EQ(section->tvm_version, "0.17.0");
  const std::vector<HostTensor>& c = section->constants.at(kLegacyConstKind);
  ASSERT_EQ(c.size(), 1u);
  ExpectValues(c[0], DataType::Float(32), {1, 3}, {1.5, -2.0, 3.25});
}

TEST(RelaxMetadata, PythonStringForms) {
  // A one-line plain string, a raw triple-quoted one, and escapes Python resolves.
  const char* graph = R"({"root_index": 2, "nodes": [{"type": "ffi.String", "data": "k"},
      {"type": "ffi.Array", "data": []}, {"type": "ffi.Map", "data": [0, 1]}]})";
  std::string plain = "metadata = tvm.ir.load_json('" + std::string(graph) + "')\n";
  for (char& ch : plain) {
    if (ch == '\n' && &ch != &plain.back()) ch = ' ';
  }
  std::string raw =
      "metadata=tvm.ir.load_json(\n    r\"\"\"" + std::string(graph) + "\"\"\" ,\n)  # c\n";
  std::string escaped =
      "metadata = tvm.ir.load_json(\"{\\\"root_index\\\": 0, \\\"nodes\\\": [{\\\"type\\\": "
      "\\\"ffi.Map\\\", \\\"data\\\": []}], \\x22metadata\\x22: {}}\")\n";
  for (std::string text : {plain, raw, escaped}) {
    std::optional<MetadataSection> section = Extract(&text);
    ASSERT_TRUE(section.has_value()) << text;
    EXPECT_EQ(text.find_first_not_of(" \n"), std::string::npos) << text;
  }
}

TEST(RelaxMetadata, NoStatementLeavesTheTextAlone) {
  std::string text =
      "@I.ir_module\nclass Module:\n    pass\nmetadata = {\"relax.expr.Constant\": []}\n";
  std::string before = text;
  EXPECT_FALSE(Extract(&text).has_value());
  EXPECT_EQ(text, before);
}

void ExpectError(std::string text, ErrorKind kind, const std::string& phrase) {
  try {
    Extract(&text);
    FAIL() << "expected an error with " << phrase;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_NE(std::string(e.what()).find(phrase), std::string::npos) << e.what();
  }
}

TEST(RelaxMetadata, MalformedSectionsAreErrorsAtTheirPlace) {
  ExpectError("metadata = tvm.ir.load_json(\"\"\"{\n", ErrorKind::kParse,
              "m.relax:1:29: metadata section: unterminated string");
  ExpectError("metadata = tvm.ir.load_json(42)\n", ErrorKind::kParse,
              "expected the JSON text as a string");
  ExpectError("metadata = tvm.ir.load_json(\"{}\"\n", ErrorKind::kParse,
              "expected ')' closing tvm.ir.load_json(");
  ExpectError("metadata = tvm.ir.load_json(\"{}\") x\n", ErrorKind::kParse, "expected end of line");
  ExpectError("\n\nmetadata = tvm.ir.load_json(\"{nope\")\n", ErrorKind::kParse,
              "m.relax:3:29: metadata: not JSON");
  ExpectError(
      "metadata = tvm.ir.load_json(\"{\\\"root_index\\\": 0, \\\"nodes\\\": [{\\\"type\\\": "
      "\\\"ffi.Array\\\", \\\"data\\\": []}]}\")\n",
      ErrorKind::kParse, "the graph's root is metadata: node 0 (ffi.Array)");
  // A constant whose tensor field points at another node names the node and the field.
  ExpectError(
      "metadata = tvm.ir.load_json('{\"root_index\": 3, \"nodes\": [{\"type\": \"ffi.String\", "
      "\"data\": \"ir.GenericConst\"}, {\"type\": \"ir.GenericConst\", \"data\": {\"value\": 0}}, "
      "{\"type\": \"ffi.Array\", \"data\": [1]}, {\"type\": \"ffi.Map\", \"data\": [0, 2]}]}')\n",
      ErrorKind::kParse,
      "metadata: node 1 (ir.GenericConst), field \"value\": expected a reference to a tensor");
  std::string twice =
      "metadata = tvm.ir.load_json('{\"root_index\": 0, \"nodes\": [{\"type\": "
      "\"ffi.Map\", \"data\": []}]}')\n";
  ExpectError(twice + twice, ErrorKind::kParse, "m.relax:2:1: a second metadata section");
}

TEST(RelaxMetadata, WrittenSectionsReadBackInBothShapes) {
  HostTensor a = HostTensor::Random(DataType::Float(32), {3, 5}, 1);
  HostTensor b = HostTensor::Random(DataType::Int(64), {4}, 2, -100, 100);
  HostTensor c(DataType::Bool(), {});
  c.SetInt(0, 1);
  for (bool legacy : {false, true}) {
    std::string text = WriteMetadata({&a, &b, &c}, legacy);
    EXPECT_EQ(text.rfind("metadata = tvm.ir.load_json(\"\"\"{", 0), 0u) << text;
    std::optional<MetadataSection> section = Extract(&text);
    ASSERT_TRUE(section.has_value());
    const std::vector<HostTensor>& got =
        section->constants.at(legacy ? kLegacyConstKind : kGenericConstKind);
    ASSERT_EQ(got.size(), 3u);
    const HostTensor* want[] = {&a, &b, &c};
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(got[i].dtype(), want[i]->dtype());
      ASSERT_EQ(got[i].shape(), want[i]->shape());
      for (int64_t k = 0; k < want[i]->numel(); ++k) {
        EXPECT_EQ(got[i].GetDouble(k), want[i]->GetDouble(k));
      }
    }
  }
}

}  // namespace
}  // namespace kiln::ir::relax::text
