// TensorIR functions read from TVM's JSON object graph equal Kiln's parse of the TVMScript TVM
// printed for the same function (tests/data/tvm_db/, written by apache-tvm 0.27 with
// make_tvm_db.py; and the workloads of tests/data/tvm/database/); every function of the TVM
// corpus writes to a graph and reads back equal; truncated, garbled and cyclic graphs fail
// with an error that names the node, never a crash.
#include "ir/tvm_json/prim_func_graph.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/tvm_json/base64.h"
#include "tests/testing/golden.h"

namespace kiln::ir::tvm_json {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ReadTextFile;
using testing::SourcePath;

PrimFunc ParseFile(const fs::path& path) {
  return ParsePrimFunc(ReadTextFile(path), path.string());
}

void ExpectEqual(const PrimFunc& actual, const PrimFunc& expected, const std::string& what) {
  EXPECT_TRUE(StructuralEqual(actual, expected)) << what << "\nread:\n"
                                                 << CanonicalForm(actual) << "\nexpected:\n"
                                                 << CanonicalForm(expected);
}

// The graph text of a JSONDatabase workload line's second field: base64 of an 8-byte
// little-endian length and the JSON (TVM 0.24+).
std::string WorkloadGraph(const std::string& field) {
  std::vector<uint8_t> bytes = Base64Decode(field, "workload");
  return std::string(bytes.begin() + 8, bytes.end());
}

std::vector<std::string> Lines(const fs::path& path) {
  std::istringstream in(ReadTextFile(path));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// TVM 0.27's graphs, and TVM 0.25's (TensorIR under "tirx." type keys, buffers as objects).
TEST(PrimFuncGraph, TvmSavedFunctionsEqualKilnsParseOfTvmsText) {
  int count = 0;
  for (const char* folder :
       {"tests/data/tvm_db/graphs", "tests/data/tvm_db/graphs/tvm-0.25.0.post1"}) {
    fs::path dir = SourcePath(folder);
    for (const char* name : {"features", "symbolic", "argmax"}) {
      std::string where = std::string(folder) + "/" + name;
      SCOPED_TRACE(where);
      std::string text = ReadTextFile(dir / (std::string(name) + ".json"));
      PrimFunc read = ReadPrimFuncJson(text, where);
      ExpectEqual(read, ParseFile(dir / (std::string(name) + ".tir")), where);
      // Written back in 0.27's shape, it reads the same.
      ExpectEqual(ReadPrimFuncJson(WritePrimFuncModuleJson(read), where), read, where);
      ++count;
    }
  }
  EXPECT_EQ(count, 6);
}

TEST(PrimFuncGraph, DatabaseWorkloadsEqualKilnsParseOfTvmsText) {
  int count = 0;
  for (const char* folder :
       {"tests/data/tvm_db", "tests/data/tvm/database", "tests/data/tvm/database/handwritten",
        "tests/data/tvm_db/graphs/tvm-0.25.0.post1/database"}) {
    fs::path dir = SourcePath(folder);
    std::vector<std::string> lines = Lines(dir / "database_workload.json");
    for (size_t w = 0; w < lines.size(); ++w) {
      std::string where = std::string(folder) + " workload " + std::to_string(w);
      SCOPED_TRACE(where);
      json line = json::parse(lines[w]);
      PrimFunc read = ReadPrimFuncJson(WorkloadGraph(line.at(1).get<std::string>()), where);
      EXPECT_EQ(read->name, "main");
      ExpectEqual(read, ParseFile(dir / ("workload_" + std::to_string(w) + ".tir")), where);
      ++count;
    }
  }
  EXPECT_GE(count, 8);
}

// Every function of the corpus (TVM's legalized ops, symbolic shapes included, and the scheduled
// functions of its tuning records) and the graphs above, written and read back.
TEST(PrimFuncGraph, WrittenGraphsReadBackEqual) {
  std::vector<fs::path> files;
  for (const char* folder : {"tests/data/tvm/tir", "tests/data/tvm/database",
                             "tests/data/tvm_db/graphs", "tests/data/tvm_db"}) {
    for (const auto& entry : fs::directory_iterator(SourcePath(folder))) {
      if (entry.path().extension() == ".tir") files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 50u);
  for (const fs::path& path : files) {
    SCOPED_TRACE(path.string());
    PrimFunc func = ParseFile(path);
    std::string text = WritePrimFuncModuleJson(func);
    PrimFunc back = ReadPrimFuncJson(text, path.string());
    ExpectEqual(back, func, path.string());
    // Writing what was read gives the same text: nothing is lost or renamed on the way.
    EXPECT_EQ(WritePrimFuncModuleJson(back), text);
  }
}

TEST(PrimFuncGraph, WrittenModuleHasTvmsShape) {
  PrimFunc func = ParseFile(SourcePath("tests/data/tvm_db/workload_0.tir"));
  json graph = json::parse(WritePrimFuncModuleJson(func));
  EXPECT_EQ(graph.at("metadata").at("tvm_version"), "0.27.0.post1");
  const json& nodes = graph.at("nodes");
  EXPECT_EQ(nodes.at(0).at("type"), "None");
  const json& root = nodes.at(graph.at("root_index").get<size_t>());
  EXPECT_EQ(root.at("type"), "ir.IRModule");
  const json& functions = nodes.at(root.at("data").at("functions").get<size_t>());
  const json& prim_func = nodes.at(functions.at("data").at(1).get<size_t>());
  EXPECT_EQ(prim_func.at("type"), "tirx.PrimFunc");
  const json& attrs = nodes.at(prim_func.at("data").at("attrs").get<size_t>());
  const json& dict = nodes.at(attrs.at("data").at("__dict__").get<size_t>()).at("data");
  std::set<std::string> keys;
  for (size_t i = 0; i < dict.size(); i += 2) {
    keys.insert(nodes.at(dict.at(i).get<size_t>()).at("data").get<std::string>());
  }
  EXPECT_EQ(keys, (std::set<std::string>{"global_symbol", "s_tir", "tirx.noalias"}));
}

std::string FeaturesGraph() {
  return ReadTextFile(SourcePath("tests/data/tvm_db/graphs/features.json"));
}

// An error, of any kind, for every prefix of a real graph: never a crash.
TEST(PrimFuncGraph, TruncatedGraphsFailCleanly) {
  std::string text = FeaturesGraph();
  size_t failures = 0;
  for (size_t n = 0; n < text.size(); n += 97) {
    try {
      ReadPrimFuncJson(text.substr(0, n), "truncated");
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos) << e.what();
      ++failures;
    }
  }
  EXPECT_EQ(failures, (text.size() + 96) / 97);
}

// Every reference of every node replaced, one at a time, by another index: the reader either
// reads some function or throws kiln::Error; it neither crashes nor loops.
TEST(PrimFuncGraph, GarbledReferencesFailCleanly) {
  json graph = json::parse(FeaturesGraph());
  json& nodes = graph.at("nodes");
  int errors = 0, reads = 0;
  for (size_t i = 0; i < nodes.size(); ++i) {
    json& data = nodes[i]["data"];
    if (!data.is_object()) continue;
    for (auto& [field, value] : data.items()) {
      if (!value.is_number_integer()) continue;
      json saved = value;
      // Alternately the null node and the node itself (a reference to its own definition).
      for (int64_t replacement :
           {(errors + reads) % 2 == 0 ? int64_t{0} : static_cast<int64_t>(i)}) {
        value = replacement;
        try {
          ReadPrimFuncJson(graph.dump(), "garbled");
          ++reads;
        } catch (const Error&) {
          ++errors;
        }
      }
      value = saved;
    }
  }
  EXPECT_GT(errors, 50);
  EXPECT_GT(reads, 0);
}

TEST(PrimFuncGraph, ACycleIsAnError) {
  json graph = json::parse(FeaturesGraph());
  json& nodes = graph.at("nodes");
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (nodes[i]["type"] == "tirx.For") {
      nodes[i]["data"]["body"] = i;
      break;
    }
  }
  try {
    ReadPrimFuncJson(graph.dump(), "cyclic");
    FAIL() << "a loop that is its own body was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("contains itself"), std::string::npos) << e.what();
  }
}

TEST(PrimFuncGraph, UnknownNodesAreNamed) {
  json graph = json::parse(FeaturesGraph());
  for (json& node : graph.at("nodes")) {
    if (node["type"] == "tirx.IfThenElse") node["type"] = "tirx.While";
  }
  try {
    ReadPrimFuncJson(graph.dump(), "features.json");
    FAIL() << "an unknown statement was read";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("features.json: node"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("(tirx.While)"), std::string::npos) << e.what();
  }
}

TEST(PrimFuncGraph, LegacyGraphsAreRefusedByName) {
  std::string legacy =
      R"({"root": 1, "nodes": [{"type_key": ""}, {"type_key": "IRModule", "attrs": {}}],)"
      R"( "b64ndarrays": [], "attrs": {"tvm_version": "0.15.0"}})";
  try {
    ReadPrimFuncJson(legacy, "old.json");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kUnsupported);
    EXPECT_NE(std::string(e.what()).find("0.24"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kiln::ir::tvm_json
