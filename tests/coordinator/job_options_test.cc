// Job options as a submit carries them: each known option parses and applies over the
// defaults, absent ones keep them, and a bad value or an unknown name is a parse error that
// names it.
#include "coordinator/job_options.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "support/error.h"

namespace kiln::coordinator {
namespace {

TEST(JobOptions, EachOptionAppliesAndAbsentOnesKeepTheDefaults) {
  nlohmann::json j = {{"strategy", "random"},   {"seed", 7},
                      {"population", 64},       {"trials_per_round", 16},
                      {"trials_per_task", 100}, {"task_scheduler", "round-robin"},
                      {"cost_model", "random"}, {"measure_untuned", false},
                      {"min_repeat_ms", 25.5},  {"num_threads", 1},
                      {"family_share", 0.5}};
  JobOptions o = ParseJobOptions(j);
  EXPECT_EQ(JobOptionsToJson(o), j);
  search::TunerOptions tuner;
  schemas::MeasureSettings settings;
  std::string cost_model = "xgb";
  ApplyJobOptions(o, tuner, settings, cost_model);
  EXPECT_EQ(tuner.strategy, "random");
  EXPECT_EQ(tuner.seed, 7u);
  EXPECT_EQ(tuner.evolutionary.population_size, 64);
  EXPECT_EQ(tuner.trials_per_round, 16);
  EXPECT_EQ(tuner.max_trials_per_task, 100);
  EXPECT_EQ(tuner.task_scheduler, "round-robin");
  EXPECT_EQ(cost_model, "random");
  EXPECT_FALSE(tuner.measure_untuned);
  EXPECT_EQ(settings.timing.min_repeat_ms, 25.5);
  EXPECT_EQ(settings.num_threads, 1u);
  EXPECT_EQ(tuner.family_follower_share, 0.5);

  search::TunerOptions defaults;
  schemas::MeasureSettings default_settings;
  std::string kept = "xgb";
  ApplyJobOptions(ParseJobOptions(nlohmann::json::object()), defaults, default_settings, kept);
  EXPECT_EQ(defaults.strategy, search::TunerOptions{}.strategy);
  EXPECT_EQ(defaults.evolutionary.population_size, 512);
  EXPECT_EQ(kept, "xgb");
}

TEST(JobOptions, BadValuesAreRefusedByName) {
  std::vector<std::pair<nlohmann::json, std::string>> cases = {
      {{{"strategy", "annealing"}}, "strategy must be evolutionary or random"},
      {{{"seed", -3}}, "seed must be a non-negative integer"},
      {{{"population", 0}}, "population must be in 1.."},
      {{{"population", "big"}}, "population must be an integer"},
      {{{"trials_per_round", 1e9}}, "trials_per_round must be an integer"},
      {{{"trials_per_task", 18446744073709551615ull}}, "trials_per_task must be in"},
      {{{"task_scheduler", 3}}, "task_scheduler must be gradient or round-robin"},
      {{{"cost_model", "gbm"}}, "cost_model must be"},
      {{{"measure_untuned", 1}}, "measure_untuned must be true or false"},
      {{{"min_repeat_ms", -1}}, "min_repeat_ms must be"},
      {{{"num_threads", 100000}}, "num_threads must be in 0..4096"},
      {{{"family_share", 1.5}}, "family_share must be a number in 0..1"},
      {{{"winograd", "yes"}}, "winograd must be auto or off or on"},
      {{{"sparse_attention", "off"}}, "sparse_attention must be"},
      {{{"colour", "red"}}, "unknown option 'colour'"},
      {nlohmann::json::array(), "a JSON object expected"},
  };
  for (const auto& [json, phrase] : cases) {
    try {
      ParseJobOptions(json);
      ADD_FAILURE() << "accepted " << json.dump();
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), ::testing::HasSubstr(phrase)) << json.dump();
    }
  }
}

// The Winograd rewrite changes a model's tasks: the job keeps the choice and specialises the
// model with it; absent, the rewrite is off.
TEST(JobOptions, WinogradChoosesThePipelineOfTheModelTasks) {
  nlohmann::json j = {{"winograd", "auto"}};
  JobOptions o = ParseJobOptions(j);
  EXPECT_EQ(JobOptionsToJson(o), j);
  EXPECT_EQ(ModelTaskOptionsOf(o).pipeline.winograd.mode,
            ir::relax::transform::WinogradMode::kAuto);
  EXPECT_EQ(ModelTaskOptionsOf(ParseJobOptions(nlohmann::json::object())).pipeline.winograd.mode,
            ir::relax::transform::WinogradMode::kOff);
}

// Block-sparse attention changes a model's tasks too: the job keeps the choice and imports the
// model with it; absent, auto.
TEST(JobOptions, SparseAttentionChoosesHowTheModelIsImported) {
  using ir::frontend::onnx::SparseAttentionMode;
  nlohmann::json j = {{"sparse_attention", "never"}};
  JobOptions o = ParseJobOptions(j);
  EXPECT_EQ(JobOptionsToJson(o), j);
  EXPECT_EQ(ModelTaskOptionsOf(o).sparse_attention, SparseAttentionMode::kNever);
  EXPECT_EQ(ModelTaskOptionsOf(ParseJobOptions({{"sparse_attention", "always"}})).sparse_attention,
            SparseAttentionMode::kAlways);
  EXPECT_EQ(ModelTaskOptionsOf(ParseJobOptions(nlohmann::json::object())).sparse_attention,
            SparseAttentionMode::kAuto);
}

}  // namespace
}  // namespace kiln::coordinator
