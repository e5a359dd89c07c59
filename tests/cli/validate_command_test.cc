// `tune validate` run as a user runs it: the MLP validated on this CPU against the interpreter
// (exit 0, the --json line, the HTML page and the whole report), with a fault injected (exit 1,
// the faulty task named by replay and offload), with its carve reused, with the kernels of a
// tuning database, and refused with exit 2 naming the option for unusable input.
#include <gtest/gtest.h>

#include "support/file.h"
#include "tune_process_test.h"

namespace kiln::cli {
namespace {

class ValidateCommandTest : public testing::TuneProcessTest {
 protected:
  std::string Mlp() const {
    return std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx";
  }
  std::vector<std::string> Args(std::vector<std::string> more) const {
    std::vector<std::string> args = {Mlp(), "--dim", "batch=4", "--carve-dir",
                                     (dir_ / "carve").string()};
    args.insert(args.end(), more.begin(), more.end());
    return args;
  }
};

TEST_F(ValidateCommandTest, TheMlpAgreesOnThisCpuAndTheReportsSaySo) {
  std::string page = (dir_ / "report.html").string();
  std::string full = (dir_ / "report.json").string();
  runtime::ProcessResult run =
      RunTune("validate", Args({"-o", page, "--report-json", full, "--json"}), {}, 300);
  ASSERT_TRUE(run.ok()) << run.output;
  nlohmann::json j = LastJson(run);
  EXPECT_TRUE(j["ok"].get<bool>());
  EXPECT_EQ(j["calls"], 3);
  EXPECT_EQ(j["kernels"], 3);
  EXPECT_TRUE(j["failed"].empty());
  EXPECT_TRUE(j["offload"]["ok"].get<bool>());
  EXPECT_EQ(j["offload"]["runs"], 1);
  EXPECT_FALSE(j["carve"]["reused"].get<bool>());
  EXPECT_GT(j["carve"]["stored_bytes"].get<int64_t>(), 0);
  std::string html = ReadFile(page);
  EXPECT_NE(html.find("Kiln validation"), std::string::npos);
  EXPECT_NE(html.find("fused_linear1_relu1"), std::string::npos);
  nlohmann::json report = nlohmann::json::parse(ReadFile(full));
  ASSERT_EQ(report["replay"]["calls"].size(), 3u);
  EXPECT_EQ(report["replay"]["calls"][1]["task"], "fused_linear1_relu1");
  EXPECT_EQ(report["replay"]["calls"][1]["status"], "ok");

  // A wrong kernel: exit 1, named by replay and offload; the carve is reused.
  run =
      RunTune("validate",
              Args({"--fault", "wrong", "--fault-task", "fused_linear1_relu1", "--json"}), {}, 300);
  EXPECT_TRUE(run.exited && run.exit_code == 1) << run.output;
  j = LastJson(run);
  EXPECT_FALSE(j["ok"].get<bool>());
  EXPECT_TRUE(j["carve"]["reused"].get<bool>());
  ASSERT_EQ(j["failed"].size(), 1u);
  EXPECT_EQ(j["failed"][0]["task"], "fused_linear1_relu1");
  EXPECT_EQ(j["failed"][0]["status"], "mismatch");
  EXPECT_GT(j["failed"][0]["max_abs_error"].get<double>(), 0);
  EXPECT_EQ(j["offload"]["first_bad_task"], "fused_linear1_relu1");
  EXPECT_NE(run.output.find("fault injection: wrong results"), std::string::npos) << run.output;

  // A pattern that matches no kernel says so (and everything agrees).
  run = RunTune("validate", Args({"--fault", "nan", "--fault-task", "no_such_kernel*"}), {}, 300);
  EXPECT_TRUE(run.ok()) << run.output;
  EXPECT_NE(run.output.find("--fault-task no_such_kernel* matched no kernel"), std::string::npos)
      << run.output;
}

TEST_F(ValidateCommandTest, WithADatabaseTheKernelsAreTheTunedRecords) {
  std::string db = (dir_ / "tuning.db").string();
  runtime::ProcessResult tuned =
      RunTune("run", {Mlp(), "--dim", "batch=4", "--trials", "12", "--db", db}, {}, 600);
  ASSERT_TRUE(tuned.ok()) << tuned.output;
  std::string full = (dir_ / "report.json").string();
  runtime::ProcessResult run =
      RunTune("validate", Args({"--db", db, "--report-json", full, "--json"}), {}, 300);
  ASSERT_TRUE(run.ok()) << run.output;
  nlohmann::json report = nlohmann::json::parse(ReadFile(full));
  int from_records = 0;
  for (const nlohmann::json& call : report["replay"]["calls"]) {
    from_records += call["schedule"].get<std::string>().rfind("record ", 0) == 0;
    EXPECT_EQ(call["status"], "ok") << call.dump();
  }
  EXPECT_GT(from_records, 0) << report.dump(1);
  // A database that does not exist is refused, naming the option.
  run = RunTune("validate", Args({"--db", (dir_ / "none.db").string()}), {}, 120);
  EXPECT_TRUE(run.exited && run.exit_code == 2) << run.output;
  EXPECT_NE(run.output.find("--db"), std::string::npos) << run.output;
}

TEST_F(ValidateCommandTest, UnusableInputIsRefusedNamingTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string names;
  };
  for (const Case& c : std::vector<Case>{
           {Args({"--mode", "sideways"}), "--mode sideways"},
           {Args({"--rtol", "float32"}), "--rtol float32"},
           {Args({"--reference", "gpu"}), "--reference gpu"},
           {Args({"--target", "tpu"}), "--target tpu"},
           {Args({"--fault", "slow"}), "--fault slow"},
           {Args({"--input", "nothing=x.npy"}), "no input nothing"},
           {{dir_.string()}, "is a directory"},
       }) {
    runtime::ProcessResult run = RunTune("validate", c.args, {}, 120);
    EXPECT_TRUE(run.exited && run.exit_code == 2) << run.output;
    EXPECT_NE(run.output.find(c.names), std::string::npos) << run.output;
  }
}

}  // namespace
}  // namespace kiln::cli
