// The tuning loop end to end on this machine: the CPU design space, the evolutionary search
// (with the XGBoost model, and with none) or replay-trace, the task scheduler and the local
// measurer, for a few dozen real measurements. The tuned kernel beats the untuned one, no
// structurally equal candidate is measured twice, every ok result was checked against the
// reference, and the best trace replays to a kernel that agrees with the interpreter. Stored
// records (postprocessed traces) seed a later search without a failed replay, are never
// proposed again, and the run starts from the best of them.
#include "search/tuner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <mutex>
#include <set>

#include "cost_model/xgb_cost_model.h"
#include "ir/structural.h"
#include "runtime/sandbox_client.h"
#include "search/measure/local_measurer.h"
#include "search/space/default_schedule.h"
#include "search/space/design_space.h"
#include "test_funcs.h"

namespace kiln::search {
namespace {

// Passes every request to the local measurer and keeps what went through, so that the test
// can check what the tuner asked for and what it was told.
class RecordingMeasurer : public AsyncMeasurer {
 public:
  explicit RecordingMeasurer(AsyncMeasurer& inner) : inner_(inner) {}
  void Submit(std::vector<MeasureRequest> requests) override {
    pending_at_submit.push_back(inner_.Pending());
    for (const MeasureRequest& r : requests) {
      submitted_hashes.push_back(ir::StructuralHash(r.scheduled));
      ++submitted_per_task[r.task_name];
      submitted_at.emplace_back(r.task_name, responses.size());
      task_of[r.id] = r.task_name;
    }
    inner_.Submit(std::move(requests));
  }
  std::vector<MeasureResponse> Collect(double timeout_s) override {
    std::vector<MeasureResponse> out = inner_.Collect(timeout_s);
    responses.insert(responses.end(), out.begin(), out.end());
    return out;
  }
  size_t Pending() const override { return inner_.Pending(); }

  std::vector<uint64_t> submitted_hashes;
  std::map<std::string, int> submitted_per_task;
  // Per request in submission order: its task and how many responses had come back.
  std::vector<std::pair<std::string, size_t>> submitted_at;
  std::map<uint64_t, std::string> task_of;  // request id -> task
  std::vector<size_t> pending_at_submit;    // requests not yet collected, at each Submit
  std::vector<MeasureResponse> responses;

 private:
  AsyncMeasurer& inner_;
};

class TunerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kiln-tuner-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  LocalMeasurerOptions MeasureOptions() {
    LocalMeasurerOptions o;
    o.measure.cache_dir = (dir_ / "cache").string();
    o.measure.sandbox_path = runtime::FindSandboxExecutable(KILN_SANDBOX_PATH);
    o.measure.timing = {.number = 3, .repeat = 1, .min_repeat_ms = 5, .warmup = 1};
    o.measure.num_threads = 1;
    o.build_jobs = 2;
    return o;
  }

  static TunerOptions SmallOptions(int trials) {
    TunerOptions o;
    o.max_trials_global = trials;
    o.trials_per_round = 8;
    o.evolutionary.population_size = 32;
    o.evolutionary.init_min_unmeasured = 8;
    o.evolutionary.genetic_num_iters = 2;
    o.num_cores = 1;
    o.seed = 3;
    return o;
  }

  static SpaceFactory CpuSpace() {
    return [](const TuneContext&) { return MakeDesignSpace("cpu"); };
  }

  // No candidate measured twice, every ok result checked, each answered id submitted.
  static void ExpectHonestMeasurements(const RecordingMeasurer& recording) {
    std::set<uint64_t> unique(recording.submitted_hashes.begin(), recording.submitted_hashes.end());
    EXPECT_EQ(unique.size(), recording.submitted_hashes.size())
        << "a structurally equal candidate was measured twice";
    EXPECT_EQ(recording.responses.size(), recording.submitted_hashes.size());
    for (const MeasureResponse& r : recording.responses) {
      EXPECT_TRUE(r.machinery_error.empty()) << r.machinery_error;
      if (r.result.ok()) {
        EXPECT_TRUE(r.result.correctness_checked) << r.id;
      }
    }
  }

  std::filesystem::path dir_;
};

// The first round measures the default schedule's variants (the first is the untuned kernel,
// timed once, as one of the trials); the search starts from them, so its best is never worse.
TEST_F(TunerTest, EvolutionarySearchStartsFromTheDefaultScheduleOfTheMatmul) {
  LocalMeasurer local(MeasureOptions());
  RecordingMeasurer recording(local);
  // The real model, trained once half the trials are in (random scores before).
  cost_model::XgbOptions xgb;
  xgb.min_samples = 8;
  xgb.num_threads = 1;
  std::unique_ptr<CostModel> model = cost_model::MakeXgbCostModel(xgb);
  ir::PrimFunc matmul = testing::MakeMatmul(96, 96, 96);
  TuneTask task{.name = "matmul", .workload = matmul, .weight = 1, .flop = 2.0 * 96 * 96 * 96};
  int progress_calls = 0;
  Tuner tuner({task}, SmallOptions(16), recording, CpuSpace(), model.get());
  TuneReport report = tuner.Run([&](const TuneReport&) { ++progress_calls; });

  ASSERT_EQ(report.tasks.size(), 1u);
  const TaskReport& r = report.tasks[0];
  EXPECT_TRUE(report.finished);
  EXPECT_GT(progress_calls, 1);
  EXPECT_EQ(r.trials, 16);
  EXPECT_EQ(report.total_trials, 16);
  EXPECT_TRUE(r.done);
  EXPECT_EQ(r.search.proposed, 16);
  ASSERT_GT(r.untuned_seconds, 0) << r.untuned_error;
  ASSERT_GT(r.best_seconds, 0) << "no candidate measured correctly";
  EXPECT_LE(r.best_seconds, r.untuned_seconds);
  EXPECT_GE(r.search.hinted, 2);  // the default's tiled and untiled variants at least
  EXPECT_FALSE(r.curve.empty());
  EXPECT_EQ(r.workload_hash, ir::StructuralHash(matmul));
  ExpectHonestMeasurements(recording);
  EXPECT_EQ(recording.submitted_hashes.size(), 16u);  // the untuned kernel among the 16
  std::optional<Candidate> untuned =
      DefaultCpuSchedule(matmul, {.num_cores = 1, .vector_bytes = TunerOptions{}.vector_bytes});
  ASSERT_TRUE(untuned.has_value());
  EXPECT_TRUE(std::count(recording.submitted_hashes.begin(), recording.submitted_hashes.end(),
                         ir::StructuralHash(untuned->scheduled)) == 1);

  // The best trace is the record: replayed alone it gives a kernel that agrees with the
  // interpreter.
  ASSERT_TRUE(r.best_trace.has_value());
  ir::PrimFunc replayed = ReplayTrace(matmul, *r.best_trace);
  EXPECT_EQ(testing::CompareNumerics(matmul, replayed), "");
}

TEST_F(TunerTest, RandomSearchAndNoModelShareBudgetsOverTasks) {
  LocalMeasurer local(MeasureOptions());
  RecordingMeasurer recording(local);
  std::vector<TuneTask> tasks = {
      {.name = "matmul", .workload = testing::MakeMatmul(64, 64, 64), .weight = 2},
      {.name = "two_stage", .workload = testing::MakeTwoStage(64, 64), .weight = 1},
  };
  for (const std::string strategy : {"random", "evolutionary"}) {
    SCOPED_TRACE(strategy);
    recording.submitted_hashes.clear();
    recording.submitted_per_task.clear();
    recording.responses.clear();
    TunerOptions options = SmallOptions(10);
    options.strategy = strategy;
    options.trials_per_round = 3;
    options.max_trials_per_task = 6;
    options.task_scheduler = "round-robin";
    options.measure_untuned = false;
    Tuner tuner(tasks, options, recording, CpuSpace(), nullptr);
    TuneReport report = tuner.Run();
    // The matmul's space is large: it spends its own budget. The two-stage one may run out
    // of distinct candidates first; the global budget caps the sum.
    const TaskReport& matmul = report.tasks[0];
    const TaskReport& two_stage = report.tasks[1];
    EXPECT_EQ(matmul.trials, 6);
    EXPECT_GT(two_stage.trials, 0);
    EXPECT_LE(two_stage.trials, 6);
    EXPECT_EQ(report.total_trials, matmul.trials + two_stage.trials);
    EXPECT_LE(report.total_trials, 10);
    for (const TaskReport& r : report.tasks) {
      EXPECT_TRUE(r.done) << r.name;
      EXPECT_GT(r.best_seconds, 0) << r.name;
      EXPECT_EQ(r.failure, "") << r.name;
    }
    ExpectHonestMeasurements(recording);
  }
}

// A task that cannot be measured here (TuneTask::untunable) gets no candidate and no untuned
// measurement; its report says why, and the other task takes the budget.
TEST_F(TunerTest, AnUntunableTaskIsNotMeasuredAndSaysWhy) {
  LocalMeasurer local(MeasureOptions());
  RecordingMeasurer recording(local);
  std::vector<TuneTask> tasks = {
      {.name = "matmul", .workload = testing::MakeMatmul(32, 32, 32)},
      {.name = "structure_is_an_input",
       .workload = testing::MakeTwoStage(32, 32),
       .untunable = "its structure is an input of the model"},
  };
  TunerOptions options = SmallOptions(6);
  options.trials_per_round = 3;
  Tuner tuner(tasks, options, recording, CpuSpace(), nullptr);
  TuneReport report = tuner.Run();
  EXPECT_EQ(report.tasks[1].failure, "its structure is an input of the model");
  EXPECT_EQ(report.tasks[1].trials, 0);
  EXPECT_TRUE(report.tasks[1].done);
  EXPECT_LE(report.tasks[1].best_seconds, 0);
  EXPECT_EQ(recording.submitted_per_task.count("structure_is_an_input"), 0u);
  EXPECT_GT(report.tasks[0].trials, 0);
  EXPECT_GT(report.tasks[0].best_seconds, 0);
}

TEST_F(TunerTest, EachRoundIsSearchedWithAllButTheTailOfTheOneBefore) {
  // One task, rounds of 8: the next round is submitted once at most a quarter of the one
  // before (2) is left to measure, or, with no tail, once all of it is in.
  for (double tail : {0.25, 0.0}) {
    SCOPED_TRACE(tail);
    LocalMeasurer local(MeasureOptions());
    RecordingMeasurer recording(local);
    TunerOptions options = SmallOptions(24);
    options.measure_untuned = false;
    options.round_tail_fraction = tail;
    Tuner tuner({{.name = "matmul", .workload = testing::MakeMatmul(64, 64, 64)}}, options,
                recording, CpuSpace(), nullptr);
    TuneReport report = tuner.Run();
    EXPECT_EQ(report.total_trials, 24);
    ASSERT_EQ(recording.pending_at_submit.size(), 3u);
    EXPECT_EQ(recording.pending_at_submit[0], 0u);
    for (size_t pending : recording.pending_at_submit) EXPECT_LE(pending, tail > 0 ? 2u : 0u);
    EXPECT_TRUE(report.tasks[0].done);
    ExpectHonestMeasurements(recording);
  }
  LocalMeasurer local(MeasureOptions());
  for (auto [in_flight, tail] : {std::pair{0, 0.25}, std::pair{1, 1.0}, std::pair{1, -0.5}}) {
    TunerOptions options = SmallOptions(8);
    options.max_rounds_in_flight = in_flight;
    options.round_tail_fraction = tail;
    Tuner tuner({{.name = "matmul", .workload = testing::MakeMatmul(16, 16, 16)}}, options, local,
                CpuSpace(), nullptr);
    try {
      tuner.Run();
      ADD_FAILURE() << "expected an error for " << in_flight << " rounds in flight, tail " << tail;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse) << e.what();
    }
  }
}

TEST_F(TunerTest, UnknownStrategyIsTheUsersError) {
  LocalMeasurer local(MeasureOptions());
  TunerOptions options = SmallOptions(8);
  options.strategy = "annealing";
  Tuner tuner({{.name = "matmul", .workload = testing::MakeMatmul(16, 16, 16)}}, options, local,
              CpuSpace(), nullptr);
  try {
    tuner.Run();
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_NE(std::string(e.what()).find("'annealing'"), std::string::npos) << e.what();
  }
}

TEST(EvolutionarySeeds, StoredRecordsSeedCleanlyAndAreNotProposedAgain) {
  TuneContext context;
  context.workload = testing::MakeMatmul(32, 32, 32);
  context.task_name = "matmul";
  context.num_cores = 2;
  context.vector_bytes = 64;
  EvolutionaryOptions options;
  options.population_size = 32;
  EvolutionarySearch first(context, MakeDesignSpace("llvm"), nullptr, options);
  std::vector<SearchCandidate> measured = first.Generate(8);
  ASSERT_EQ(measured.size(), 8u);
  // What the database keeps of each: the postprocessed trace, round-tripped through JSON.
  std::vector<MeasuredTrace> seeds;
  std::set<uint64_t> seeded;
  for (size_t i = 0; i < measured.size(); ++i) {
    seeds.push_back({Trace::FromJSON(measured[i].record.ToJSON()), 1e-3 * (1 + i)});
    seeded.insert(measured[i].hash);
  }
  context.seed = 2;
  EvolutionarySearch second(context, MakeDesignSpace("llvm"), nullptr, options, seeds);
  // Every seed replayed to its candidate: no replay or postprocessor rejected one.
  EXPECT_TRUE(second.Stats().rejected.empty());
  for (const SearchCandidate& c : second.Generate(16)) {
    EXPECT_FALSE(seeded.count(c.hash)) << "a seed was proposed again";
  }

  // The tuner starts a task from its best seed.
  LocalMeasurer local(LocalMeasurerOptions{});
  TunerOptions tuner_options;
  tuner_options.max_trials_global = 0;
  tuner_options.measure_untuned = false;
  Tuner tuner(
      {{.name = "matmul", .workload = context.workload, .seeds = seeds}}, tuner_options, local,
      [](const TuneContext&) { return MakeDesignSpace("llvm"); }, nullptr);
  TuneReport report = tuner.Run();
  EXPECT_DOUBLE_EQ(report.tasks[0].seeded_seconds, 1e-3);
  EXPECT_DOUBLE_EQ(report.tasks[0].best_seconds, 1e-3);
  ASSERT_TRUE(report.tasks[0].best_trace.has_value());
  EXPECT_EQ(report.tasks[0].best_trace->ToJSON(), seeds[0].trace.ToJSON());
}

// A resumed tuning whose seeds already hold the default's first variant does not measure it
// again as a hint; the untuned kernel is then timed on its own, so the figure is still there.
TEST_F(TunerTest, AResumedTuningStillTimesTheUntunedKernel) {
  LocalMeasurer local(MeasureOptions());
  RecordingMeasurer recording(local);
  ir::PrimFunc matmul = testing::MakeMatmul(64, 64, 64);
  std::optional<Candidate> untuned =
      DefaultCpuSchedule(matmul, {.num_cores = 1, .vector_bytes = TunerOptions{}.vector_bytes});
  ASSERT_TRUE(untuned.has_value());
  TuneTask task{.name = "matmul",
                .workload = matmul,
                .weight = 1,
                .flop = 2.0 * 64 * 64 * 64,
                .seeds = {{untuned->postprocessed, 1e-3}}};
  Tuner tuner({task}, SmallOptions(4), recording, CpuSpace(), nullptr);
  TuneReport report = tuner.Run();
  ASSERT_EQ(report.tasks.size(), 1u);
  EXPECT_GT(report.tasks[0].untuned_seconds, 0) << report.tasks[0].untuned_error;
  ExpectHonestMeasurements(recording);
  EXPECT_EQ(recording.submitted_hashes.size(), 5u);  // the untuned kernel, then 4
}

TEST_F(TunerTest, TasksOfOneFamilyAreHandedEachOthersBestTraces) {
  // One matmul at two shapes, as two shape buckets give it, tuned at once (no staging): each
  // task's search is handed the other's best trace carried to its shape and measures it; a
  // task of no family gets none.
  LocalMeasurer local(MeasureOptions());
  RecordingMeasurer recording(local);
  std::vector<TuneTask> tasks = {
      {.name = "matmul (m=32)", .workload = testing::MakeMatmul(32, 64, 64), .family = "matmul"},
      {.name = "matmul (m=64)", .workload = testing::MakeMatmul(64, 64, 64), .family = "matmul"},
      {.name = "two_stage", .workload = testing::MakeTwoStage(64, 64)},
  };
  TunerOptions options = SmallOptions(36);
  options.trials_per_round = 4;  // three rounds a task at least
  options.measure_untuned = false;
  options.seed_default_schedules = false;  // the family's traces are the only hints
  options.task_scheduler = "round-robin";
  options.family_follower_share = 0;
  Tuner tuner(tasks, options, recording, CpuSpace(), nullptr);
  TuneReport report = tuner.Run();
  ASSERT_EQ(report.tasks.size(), 3u);
  // Round robin over several rounds: each matmul is handed the other's best once it is measured.
  EXPECT_GT(report.tasks[1].search.hinted, 0);
  EXPECT_GT(report.tasks[0].search.hinted, 0);
  EXPECT_EQ(report.tasks[2].search.hinted, 0);
  for (const TaskReport& r : report.tasks) EXPECT_GT(r.best_seconds, 0) << r.name;
  ExpectHonestMeasurements(recording);
  // Every best trace replays on its own workload to a kernel that agrees with the interpreter.
  for (size_t i = 0; i < 2; ++i) {
    ASSERT_TRUE(report.tasks[i].best_trace.has_value());
    EXPECT_EQ(testing::CompareNumerics(tasks[i].workload,
                                       ReplayTrace(tasks[i].workload, *report.tasks[i].best_trace)),
              "");
  }
}

TEST_F(TunerTest, AFamilyFollowerStartsFromItsFinishedLeadWithAShareOfItsTrials) {
  // One matmul at three shapes: m=64 leads and gets the leads' part of the budget (36 trials
  // over 1 + 0.5 + 0.5 units: 18); m=32 and m=128 wait until every result of it is in, then
  // start from its best trace carried to their shapes and spend half of its 18 trials.
  LocalMeasurer local(MeasureOptions());
  RecordingMeasurer recording(local);
  auto matmul = [](int64_t m) {
    return TuneTask{.name = "matmul (m=" + std::to_string(m) + ")",
                    .workload = testing::MakeMatmul(m, 64, 64),
                    .flop = 2.0 * static_cast<double>(m) * 64 * 64,
                    .family = "matmul"};
  };
  std::vector<TuneTask> tasks = {matmul(128), matmul(32), matmul(64)};
  TunerOptions options = SmallOptions(36);
  options.trials_per_round = 6;
  options.measure_untuned = false;
  options.seed_default_schedules = false;  // the lead's traces are the only hints
  options.family_follower_share = 0.5;
  Tuner tuner(tasks, options, recording, CpuSpace(), nullptr);
  TuneReport report = tuner.Run();
  ASSERT_EQ(report.tasks.size(), 3u);
  EXPECT_EQ(recording.submitted_per_task["matmul (m=64)"], 18);
  EXPECT_EQ(recording.submitted_per_task["matmul (m=32)"], 9);
  EXPECT_EQ(recording.submitted_per_task["matmul (m=128)"], 9);
  EXPECT_EQ(report.total_trials, 36);
  EXPECT_EQ(report.tasks[0].starts_from, "matmul (m=64)");
  EXPECT_EQ(report.tasks[1].starts_from, "matmul (m=64)");
  EXPECT_EQ(report.tasks[2].starts_from, "");
  // Every follower request went out after every lead result came back.
  bool follower_seen = false;
  for (const auto& [task, answered] : recording.submitted_at) {
    if (task == "matmul (m=64)") {
      EXPECT_FALSE(follower_seen) << "the lead went on after a follower";
    }
    if (task != "matmul (m=32)" && task != "matmul (m=128)") continue;
    follower_seen = true;
    int lead_results = 0;
    for (size_t r = 0; r < answered; ++r) {
      lead_results += recording.task_of[recording.responses[r].id] == "matmul (m=64)";
    }
    EXPECT_EQ(lead_results, 18) << task << " went out before its lead was done";
  }
  EXPECT_TRUE(follower_seen);
  // The followers were handed the lead's best; the lead nothing.
  EXPECT_GT(report.tasks[0].search.hinted, 0);
  EXPECT_GT(report.tasks[1].search.hinted, 0);
  EXPECT_EQ(report.tasks[2].search.hinted, 0);
  for (const TaskReport& r : report.tasks) {
    EXPECT_GT(r.best_seconds, 0) << r.name;
    EXPECT_TRUE(r.done) << r.name;
  }
  ExpectHonestMeasurements(recording);
}

}  // namespace
}  // namespace kiln::search
