// `tune run --target vulkan` run as a user runs it, on lavapipe where the machine has no GPU:
// the bundled MLP's three tasks tuned for a round of 4 trials each with the GPU design space
// (picked from the target) and measured by the Vulkan measurer (picked from the device kind). Every
// task ends with a correct best candidate whose trace binds threads, and an untuned time (the
// default GPU schedule) to compare with. A machine without a Vulkan device skips, saying so.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "runtime/measurer.h"
#include "tests/cli/tune_process_test.h"

namespace kiln::cli {
namespace {

class RunVulkanTest : public testing::TuneProcessTest {};

TEST_F(RunVulkanTest, TunesTheTasksOfAModelOnTheVulkanDevice) {
  if (const std::string why = VulkanUnavailable(); !why.empty()) {
    GTEST_SKIP() << "skipped: no Vulkan device: " << why;
  }
  std::string model = std::string(KILN_SOURCE_DIR) + "/examples/models/mlp/model.onnx";
  runtime::ProcessResult run =
      RunTune("run",
              {model, "--target", "vulkan", "--trials", "12", "--trials-per-round", "4",
               "--population", "16", "--db", (dir_ / "tuning.db").string(), "--json"},
              {}, 600);
  ASSERT_TRUE(run.exited && run.exit_code == 0) << run.output;
  nlohmann::json out = LastJson(run);
  ASSERT_TRUE(out["tasks"].is_array()) << run.output;
  ASSERT_FALSE(out["tasks"].empty());
  for (const nlohmann::json& task : out["tasks"]) {
    SCOPED_TRACE(task["name"].get<std::string>());
    EXPECT_GT(task["best_latency_s"].get<double>(), 0);
    EXPECT_GT(task["untuned_latency_s"].get<double>(), 0);
    EXPECT_NE(task["best_trace"].dump().find("threadIdx"), std::string::npos);
  }
}

}  // namespace
}  // namespace kiln::cli
