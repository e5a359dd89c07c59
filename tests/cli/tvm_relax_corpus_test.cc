// Every Relax module of the TVM corpus (tests/data/tvm/relax/*.relax: what apache-tvm 0.27 prints
// for modules from its ONNX front end and relax.frontend.nn, with and without show_meta, before
// and after LegalizeOps) is read as `tune tasks` reads it: it parses, its entry function is found
// (relax.frontend.nn's is `forward`), it round-trips through Kiln's printer in both dialects to a
// structurally equal module, and it gives its task table. A module printed without its metadata
// section but referring to it is refused with the error that says so.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "ir/model/model_file.h"
#include "ir/relax/structural.h"
#include "ir/relax/text/parser.h"
#include "ir/relax/text/printer.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/relax/transform/pipeline.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

std::filesystem::path CorpusDir() {
  return std::filesystem::path(KILN_SOURCE_DIR) / "tests" / "data" / "tvm" / "relax";
}

std::vector<std::string> CorpusFiles() {
  std::vector<std::string> files;
  if (!std::filesystem::exists(CorpusDir())) return files;
  for (const auto& entry : std::filesystem::directory_iterator(CorpusDir())) {
    if (entry.path().extension() == ".relax") files.push_back(entry.path().filename().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

std::string ReadText(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(TvmRelaxCorpus, HoldsModulesOfBothFrontEnds) {
  std::vector<std::string> files = CorpusFiles();
  EXPECT_GE(files.size(), 10u);
  auto has_prefix = [&](const std::string& p) {
    return std::any_of(files.begin(), files.end(),
                       [&](const std::string& f) { return f.rfind(p, 0) == 0; });
  };
  EXPECT_TRUE(has_prefix("onnx_"));
  EXPECT_TRUE(has_prefix("nn_"));
}

class TvmRelaxModule : public ::testing::TestWithParam<std::string> {};

TEST_P(TvmRelaxModule, ParsesRoundTripsAndGivesItsTasks) {
  std::filesystem::path path = CorpusDir() / GetParam();
  std::string text = ReadText(path);
  bool refers_to_metadata = text.find("metadata[") != std::string::npos;
  bool has_metadata = text.find("metadata = tvm.ir.load_json(") != std::string::npos;
  if (refers_to_metadata && !has_metadata) {
    try {
      ir::model::LoadModel(path.string());
      FAIL() << "a module without its metadata section parsed";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_NE(std::string(e.what()).find("the text has none"), std::string::npos) << e.what();
    }
    return;
  }
  ir::model::ModelInput input;
  try {
    input = ir::model::LoadModel(path.string());
  } catch (const Error& e) {
    FAIL() << e.what();
  }
  if (GetParam().rfind("nn_", 0) == 0) {
    EXPECT_EQ(input.entry, "forward");
  }
  for (ir::TirDialect dialect : {ir::TirDialect::kTvm024, ir::TirDialect::kTvm023}) {
    ir::relax::PrintOptions options;
    options.dialect = dialect;
    std::string printed = ir::relax::PrintModule(input.module, options);
    ir::relax::IRModule again;
    try {
      again = ir::relax::ParseModule(printed, "<printed>");
    } catch (const Error& e) {
      FAIL() << e.what() << "\n" << printed;
    }
    EXPECT_TRUE(ir::relax::StructuralEqual(input.module, again)) << printed;
    EXPECT_EQ(ir::relax::PrintModule(again, options), printed);
  }
  ir::relax::IRModule prepared = ir::relax::transform::PrepareModuleForTuning(input.module);
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(prepared, input.entry);
  EXPECT_GE(tasks.size(), 1u);
  std::string table = ir::relax::transform::FormatTaskTable(tasks);
  for (const auto& task : tasks) {
    EXPECT_GE(task.weight, 1) << table;
    EXPECT_NE(table.find(task.name), std::string::npos) << table;
  }
}

INSTANTIATE_TEST_SUITE_P(Corpus, TvmRelaxModule, ::testing::ValuesIn(CorpusFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           return info.param.substr(0, info.param.find('.'));
                         });

}  // namespace
}  // namespace kiln::cli
