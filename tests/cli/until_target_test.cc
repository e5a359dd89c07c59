// `tune run --until-faster-than`, run as a user runs it on the bundled MLP: a latency target the
// first stage beats stops the tuning there; one no model beats runs every stage and says it
// was not reached; "ort" times ONNX Runtime in the project's virtual environment on the inputs
// it saves for `tune bench`; a target that is neither, or a model it cannot take, exits with 2
// and says what it expected. The target's parsing and the stages' trials are checked directly.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cli/commands/tuning_target.h"
#include "tests/cli/tune_process_test.h"

namespace kiln::cli {
namespace {

using nlohmann::json;

TEST(TuningTarget, ParsesOrtAndLatenciesWithTheirUnits) {
  EXPECT_TRUE(ParseTuningTarget("ort")->ort);
  EXPECT_DOUBLE_EQ(ParseTuningTarget("2.5ms")->latency_s, 2.5e-3);
  EXPECT_DOUBLE_EQ(ParseTuningTarget("800us")->latency_s, 800e-6);
  EXPECT_DOUBLE_EQ(ParseTuningTarget("0.01s")->latency_s, 0.01);
  for (const char* bad : {"", "fast", "2.5", "ms", "-1ms", "0ms", "2.5 ms", "1e-3", "3min",
                          "1.2.3ms", "onnxruntime"}) {
    EXPECT_FALSE(ParseTuningTarget(bad).has_value()) << bad;
  }
}

TEST(TuningTarget, StagesAreAQuarterAQuarterAndTheRest) {
  EXPECT_EQ(TargetStages(32), (std::vector<int64_t>{8, 8, 16}));
  EXPECT_EQ(TargetStages(10), (std::vector<int64_t>{2, 2, 6}));
  EXPECT_EQ(TargetStages(3), (std::vector<int64_t>{3}));
  EXPECT_EQ(TargetStages(1), (std::vector<int64_t>{1}));
}

class UntilTargetTest : public testing::TuneProcessTest {
 protected:
  runtime::ProcessResult Run(const std::string& target, int64_t trials) {
    return RunTune("run",
                   {kMlp, "--trials", std::to_string(trials), "--threads", "1", "--db",
                    (dir_ / "tuning.db").string(), "--min-repeat-ms", "5", "--until-faster-than",
                    target, "--json"},
                   {}, 600);
  }
  const std::string kMlp = std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx";
};

TEST_F(UntilTargetTest, ATargetTheFirstStageBeatsStopsThere) {
  const runtime::ProcessResult run = Run("10s", 12);
  ASSERT_TRUE(run.ok()) << run.output;
  const json until = LastJson(run).at("until");
  EXPECT_TRUE(until.at("reached").get<bool>()) << until;
  ASSERT_EQ(until.at("stages").size(), 1u) << until;
  EXPECT_EQ(until["stages"][0]["trials"], 3);
  EXPECT_GT(until["stages"][0]["latency_s"].get<double>(), 0);
  EXPECT_LT(until["stages"][0]["latency_s"].get<double>(), 10);
  EXPECT_DOUBLE_EQ(until.at("target_latency_s").get<double>(), 10);
  EXPECT_FALSE(until.at("minutes_to_target").is_null());
}

TEST_F(UntilTargetTest, ATargetNoModelBeatsRunsEveryStageAndSaysSo) {
  const runtime::ProcessResult run = Run("1us", 8);
  ASSERT_TRUE(run.ok()) << run.output;
  const json until = LastJson(run).at("until");
  EXPECT_FALSE(until.at("reached").get<bool>()) << until;
  ASSERT_EQ(until.at("stages").size(), 3u) << until;
  int64_t trials = 0;
  for (const json& stage : until["stages"]) {
    EXPECT_FALSE(stage["faster"].get<bool>());
    trials += stage["trials"].get<int64_t>();
  }
  EXPECT_EQ(trials, 8);
  EXPECT_TRUE(until.at("minutes_to_target").is_null());
}

TEST_F(UntilTargetTest, OrtIsTimedHereOnTheInputsKilnRuns) {
  if (!std::filesystem::exists(KILN_VENV_PYTHON)) {
    GTEST_SKIP() << "skipped: no project virtual environment at " << KILN_VENV_PYTHON
                 << " (deploy/install-deps.sh makes it)";
  }
  const runtime::ProcessResult run = Run("ort", 3);  // one stage
  ASSERT_TRUE(run.ok()) << run.output;
  const json until = LastJson(run).at("until");
  EXPECT_EQ(until.at("target"), "ort");
  EXPECT_GT(until.at("target_latency_s").get<double>(), 0) << until;
  EXPECT_EQ(until.at("stages").size(), 1u) << until;
  EXPECT_EQ(until.at("threads"), 1);
}

TEST_F(UntilTargetTest, AnUnusableTargetOrModelExitsWithTwo) {
  const runtime::ProcessResult bad = Run("soon", 4);
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
  EXPECT_NE(bad.output.find("--until-faster-than soon: expected ort or a latency"),
            std::string::npos)
      << bad.output;
  const runtime::ProcessResult tir =
      RunTune("run", {Write("k.tir", ""), "--trials", "4", "--until-faster-than", "1ms"}, {}, 60);
  EXPECT_EQ(tir.exit_code, 2) << tir.output;
  EXPECT_NE(tir.output.find("--until-faster-than: takes an ONNX model"), std::string::npos)
      << tir.output;
}

}  // namespace
}  // namespace kiln::cli
