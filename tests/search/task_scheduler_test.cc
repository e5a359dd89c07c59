// Task scheduling policies: round robin in turn, gradient-based after a round-robin start,
// budgets per task and overall, the factory's names, and the family plan (leads, waits,
// budgets of one operator at several shapes).
#include "search/task_scheduler/task_scheduler.h"

#include <gtest/gtest.h>

#include <limits>

#include "search/task_scheduler/family_plan.h"
#include "search/task_scheduler/gradient_based.h"
#include "support/error.h"

namespace kiln::search {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

TEST(TaskSchedulerTest, RoundRobinTakesLiveTasksInTurn) {
  std::vector<TaskProgress> tasks(3);
  tasks[1].exhausted = true;
  auto scheduler = CreateTaskScheduler("round-robin");
  EXPECT_EQ(scheduler->Name(), "round-robin");
  std::vector<size_t> order;
  for (int i = 0; i < 4; ++i) order.push_back(*scheduler->Next(tasks));
  EXPECT_EQ(order, (std::vector<size_t>{0, 2, 0, 2}));
  tasks[0].trials = tasks[0].max_trials = 64;
  EXPECT_EQ(*scheduler->Next(tasks), 2u);
  tasks[2].exhausted = true;
  EXPECT_FALSE(scheduler->Next(tasks).has_value());
}

TEST(TaskSchedulerTest, GradientStartsRoundRobinThenFollowsTheLargestWeightedFall) {
  std::vector<TaskProgress> tasks(3);
  auto scheduler = CreateTaskScheduler("gradient");
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
  // Task 0's first round is being measured: the others get theirs first.
  tasks[0].rounds_in_flight = 1;
  EXPECT_EQ(*scheduler->Next(tasks), 1u);
  tasks[0].rounds_in_flight = 0;
  tasks[0].best_history = {1.0};
  EXPECT_EQ(*scheduler->Next(tasks), 1u);
  tasks[1].best_history = {1.0};
  EXPECT_EQ(*scheduler->Next(tasks), 2u);
  tasks[2].best_history = {1.0};
  // Equal histories and weights: forward gradients tie; a heavier task wins.
  tasks[2].weight = 3;
  EXPECT_EQ(*scheduler->Next(tasks), 2u);
  // A task still falling fast beats a settled one of the same weight.
  tasks[2].weight = 1;
  tasks[0].best_history = {8.0, 6.0, 4.0, 2.0};  // backward gradient 2 per round
  tasks[1].best_history = {2.0, 2.0, 2.0, 2.0};  // settled
  tasks[2].best_history = {2.0, 2.0, 2.0, 2.0};
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
  // A task without a correct measurement yet goes first.
  tasks[1].best_history = {kInf, kInf};
  EXPECT_EQ(*scheduler->Next(tasks), 1u);
  tasks[1].exhausted = true;
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
}

// A task whose best is still slower than its untuned kernel gets catch-up rounds before the
// gradients decide, up to catch_up_rounds beyond its first; then the gradients take over.
TEST(TaskSchedulerTest, GradientGivesATaskSlowerThanUntunedCatchUpRounds) {
  std::vector<TaskProgress> tasks(2);
  tasks[0].best_history = {8.0, 4.0, 2.0};  // a heavy task: the gradients' pick
  tasks[0].weight = 10;
  tasks[1].best_history = {3.0};  // a cheap task, slower than its untuned 2.5
  tasks[1].untuned_seconds = 2.5;
  auto scheduler = CreateTaskScheduler("gradient");
  EXPECT_EQ(*scheduler->Next(tasks), 1u);
  tasks[1].rounds_in_flight = 1;  // its round being measured: no second one at once
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
  tasks[1].rounds_in_flight = 0;
  tasks[1].best_history = {3.0, 2.9};
  EXPECT_EQ(*scheduler->Next(tasks), 1u);
  tasks[1].best_history = {3.0, 2.9, 2.8};  // two catch-up rounds spent
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
  tasks[1].best_history = {3.0, 2.0};  // faster than untuned: no catch-up
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
  tasks[1].best_history = {3.0};  // untuned not measured: no catch-up
  tasks[1].untuned_seconds = 0;
  EXPECT_EQ(*scheduler->Next(tasks), 0u);
  TaskSchedulerOptions none;
  none.catch_up_rounds = 0;
  tasks[1].untuned_seconds = 2.5;
  EXPECT_EQ(*CreateTaskScheduler("gradient", none)->Next(tasks), 0u);
}

TEST(TaskSchedulerTest, GradientFormulaFollowsAlphaAndWindow) {
  GradientBasedScheduler scheduler({.alpha = 0.2, .window = 3, .seed = 1});
  TaskProgress task;
  task.weight = 2;
  task.best_history = {10, 8, 6, 4};
  // backward = (10 - 4) / 3 = 2; forward = 4 / 4 = 1; 2 * (0.2 * 2 + 0.8 * 1) = 2.4.
  EXPECT_DOUBLE_EQ(scheduler.Gradient(task), 2.4);
  task.best_history = {6, 4};  // too short for the window: forward only
  EXPECT_DOUBLE_EQ(scheduler.Gradient(task), 2 * 0.8 * 2);
  task.best_history = {};
  EXPECT_EQ(scheduler.Gradient(task), kInf);
}

TEST(TaskSchedulerTest, GradientTiesAreBrokenAmongTheTiedOnly) {
  std::vector<TaskProgress> tasks(4);
  for (auto& t : tasks) t.best_history = {1.0, 1.0};
  tasks[3].best_history = {0.5, 0.5};  // smaller forward gradient: never picked
  auto scheduler = CreateTaskScheduler("gradient", {.seed = 7});
  std::vector<int> picks(4);
  for (int i = 0; i < 300; ++i) ++picks[*scheduler->Next(tasks)];
  EXPECT_EQ(picks[3], 0);
  for (int i = 0; i < 3; ++i) EXPECT_GT(picks[i], 50) << i;
}

TEST(TaskSchedulerTest, RoundTrialsHonourEveryBudget) {
  TaskProgress task;
  EXPECT_EQ(RoundTrials(task, 64, 1000), 64);
  EXPECT_EQ(RoundTrials(task, 64, 10), 10);
  EXPECT_EQ(RoundTrials(task, 64, 0), 0);
  task.max_trials = 100;
  task.trials = 90;
  EXPECT_EQ(RoundTrials(task, 64, 1000), 10);
  EXPECT_TRUE(TaskAlive(task));
  task.trials = 100;
  EXPECT_EQ(RoundTrials(task, 64, 1000), 0);
  EXPECT_FALSE(TaskAlive(task));
}

TEST(TaskSchedulerTest, UnknownPolicyIsNamed) {
  try {
    CreateTaskScheduler("fastest");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("'fastest'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("round-robin or gradient"), std::string::npos);
  }
}

TEST(FamilyPlanTest, TheMedianShapeLeadsAndEachOtherWaitsForItsNeighbourTowardsIt) {
  // A matmul at seq 16..256, listed out of order, beside a task of no family and a family of
  // one shape (nothing to stage).
  std::vector<std::string> family = {"mm", "mm", "", "mm", "mm", "mm", "softmax"};
  std::vector<double> flop = {128, 16, 5, 256, 64, 32, 7};  // by seq_len
  FamilyPlan plan = PlanFamilies(family, flop, 0.25);
  EXPECT_TRUE(plan.staged);
  // Lead: seq 64 (task 4). 32 and 128 start from it, 16 from 32, 256 from 128.
  EXPECT_FALSE(plan.parent[4].has_value());
  EXPECT_EQ(plan.parent[5], std::optional<size_t>(4));
  EXPECT_EQ(plan.parent[0], std::optional<size_t>(4));
  EXPECT_EQ(plan.parent[1], std::optional<size_t>(5));
  EXPECT_EQ(plan.parent[3], std::optional<size_t>(0));
  EXPECT_FALSE(plan.parent[2].has_value());
  EXPECT_FALSE(plan.parent[6].has_value());
  EXPECT_EQ(plan.share, (std::vector<double>{0.25, 0.25, 1, 0.25, 1, 0.25, 1}));
  // Nearest on a log scale: from 128, 256 and 64 are equally near (first in work order wins),
  // then 32, then 16.
  EXPECT_EQ(plan.nearest[0], (std::vector<size_t>{4, 3, 5, 1}));
  EXPECT_EQ(plan.nearest[1], (std::vector<size_t>{5, 4, 0, 3}));
  EXPECT_TRUE(plan.nearest[2].empty());
  EXPECT_TRUE(plan.nearest[6].empty());

  EXPECT_EQ(plan.lead, (std::vector<size_t>{4, 4, 2, 4, 4, 4, 6}));

  // Budgets: 3 leads + 4 followers at a quarter = 4 units; of 400 trials the leads share 300.
  EXPECT_EQ(LeadTrials(plan, 400), 300);
  // A follower gets its share of what its lead got, at least 1.
  EXPECT_EQ(FollowerTrials(plan, 1, 80), 20);
  EXPECT_EQ(FollowerTrials(plan, 1, 2), 1);
}

TEST(FamilyPlanTest, TwoShapesLeadWithTheLargerAndShareZeroStagesNothing) {
  FamilyPlan two = PlanFamilies({"mm", "mm"}, {100, 200}, 0.5);
  EXPECT_EQ(two.parent[0], std::optional<size_t>(1));
  EXPECT_FALSE(two.parent[1].has_value());
  EXPECT_EQ(two.share, (std::vector<double>{0.5, 1}));
  EXPECT_EQ(LeadTrials(two, 90), 60);

  FamilyPlan flat = PlanFamilies({"mm", "mm", "mm"}, {1, 2, 4}, 0);
  EXPECT_FALSE(flat.staged);
  for (const auto& parent : flat.parent) EXPECT_FALSE(parent.has_value());
  EXPECT_EQ(flat.share, (std::vector<double>{1, 1, 1}));
  EXPECT_EQ(flat.nearest[0], (std::vector<size_t>{1, 2}));  // still shared, nearest first
  EXPECT_EQ(LeadTrials(flat, 90), 90);
}

TEST(FamilyPlanTest, AShareOutsideZeroToOneIsNamed) {
  for (double share : {-0.5, 1.5}) {
    try {
      PlanFamilies({"mm"}, {1}, share);
      FAIL() << "expected an error for " << share;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_NE(std::string(e.what()).find("follower share"), std::string::npos) << e.what();
    }
  }
}

}  // namespace
}  // namespace kiln::search
