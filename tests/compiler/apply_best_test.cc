// Apply best through a real tuning database: a compiled model uses the task's best record
// (the manifest says which) and still matches the reference; a record whose trace does not
// replay is passed over with a note; records of another device are never used; a record
// slower than the untuned kernel when the compiler times the two is not used.
#include "compiler/apply_best.h"

#include <gtest/gtest.h>

#include "compiler_test_util.h"
#include "database/sqlite_database.h"
#include "ir/relax/transform/extract_tasks.h"
#include "ir/structural.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"

namespace kiln::compiler {
namespace {

// The name of the first block (other than the root) of `f` that has loops above it.
std::string FirstLoopedBlock(const ir::PrimFunc& f) {
  search::Schedule sch(f);
  for (size_t i = 0; i < sch.state().size(); ++i) {
    const ir::BlockNode* block = sch.state().entry(static_cast<int>(i)).block();
    if (block == nullptr || block->name == "root") continue;
    if (!sch.state().LoopsAbove(static_cast<int>(i)).empty()) return block->name;
  }
  return "";
}

class ApplyBestTest : public testing::CompilerTestBase {
 protected:
  ApplyBestTest() : db_((dir_ / "tuning.db").string()) {}

  // Commits a record of `trace_json` for `task` measured at `seconds` on `device`.
  int64_t AddRecord(const ir::relax::transform::ExtractedTask& task, const std::string& trace_json,
                    double seconds, const std::string& device = "cpu-test") {
    std::string hash = ir::StructuralHashHex(task.func);
    db_.CommitWorkload({hash, task.name, ir::PrintPrimFunc(task.func)});
    database::TuningRecord r;
    r.workload_hash = hash;
    r.target = "llvm";
    r.device = device;
    r.trace_json = trace_json;
    r.result.median_seconds = seconds;
    r.result.repeat_seconds = {seconds};
    r.result.correctness_checked = true;
    std::vector<database::TuningRecord> records = {r};
    db_.CommitRecords(records);
    return records[0].id;
  }

  database::SqliteDatabase db_;
};

TEST_F(ApplyBestTest, TheCompiledModelUsesTheBestRecord) {
  ir::relax::IRModule module = testing::PreparedModel("mlp", {{"batch", 8}});
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, "main");
  ASSERT_EQ(tasks.size(), 3u);
  // A schedule: the outer loop of the first task's matmul split and parallel.
  search::Schedule sch(tasks[0].func);
  std::string block = FirstLoopedBlock(tasks[0].func);
  ASSERT_FALSE(block.empty());
  std::vector<search::LoopRV> loops = sch.GetLoops(sch.GetBlock(block));
  std::vector<search::LoopRV> split = sch.Split(loops[0], {std::nullopt, 4});
  sch.Parallel(split[0]);
  std::string trace = sch.trace().ToJSON().dump();
  AddRecord(tasks[0], trace, 2e-6);
  int64_t best = AddRecord(tasks[0], trace, 1e-6);
  AddRecord(tasks[0], trace, 5e-7, "cpu-other");  // faster, but another device's

  // The default schedules off: this record (a split and a parallel loop) is slower than them.
  CompileReport report =
      Compile(module, "mlp", &db_, "cpu-test", LibraryPolicy::kNever, false, false);
  EXPECT_EQ(report.tuned, 1);
  ASSERT_EQ(report.tasks[0].record_id, best);
  EXPECT_DOUBLE_EQ(*report.tasks[0].latency_s, 1e-6);
  EXPECT_FALSE(report.tasks[1].record_id.has_value());
  runtime::model::Executor executor = Load("mlp");
  EXPECT_EQ(executor.artifact().manifest.tasks[0].record_id, best);
  EXPECT_FALSE(executor.artifact().manifest.tasks[2].record_id.has_value());
  ExpectMatchesReference(executor, module, {{8, 64}}, 5);

  // The replayed function is the scheduled one, not the workload.
  ChosenSchedule chosen =
      ApplyBest(&db_, tasks[0].func, ir::StructuralHashHex(tasks[0].func), "llvm", "cpu-test");
  EXPECT_FALSE(ir::StructuralEqual(chosen.scheduled, tasks[0].func));
}

// A record from a short tuning (a split and a parallel loop, no register tile) is timed
// against the default schedule's variants, which the search never measured: the faster default
// replaces it, and the report says so with both times.
TEST_F(ApplyBestTest, ARecordSlowerThanADefaultScheduleIsNotUsed) {
  ir::relax::IRModule module = testing::PreparedModel("mlp", {{"batch", 64}});
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, "main");
  search::Schedule sch(tasks[0].func);
  std::vector<search::LoopRV> loops = sch.GetLoops(sch.GetBlock(FirstLoopedBlock(tasks[0].func)));
  sch.Parallel(sch.Split(loops[0], {std::nullopt, 4})[0]);
  int64_t id = AddRecord(tasks[0], sch.trace().ToJSON().dump(), 1e-6);

  CompileReport report = Compile(module, "mlp", &db_);
  EXPECT_FALSE(report.tasks[0].record_id.has_value());
  EXPECT_TRUE(report.tasks[0].default_schedule);
  EXPECT_NE(report.tasks[0].note.find("record " + std::to_string(id) +
                                      " not used: a default schedule is faster here"),
            std::string::npos)
      << report.tasks[0].note;
  runtime::model::Executor executor = Load("mlp");
  ExpectMatchesReference(executor, module, {{64, 64}}, 5);
}

TEST_F(ApplyBestTest, ARecordThatDoesNotReplayIsPassedOver) {
  ir::relax::IRModule module = testing::PreparedModel("mlp", {{"batch", 8}});
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, "main");
  std::string bad = R"([[["GetSBlock", [], ["no_such_block", "main"], ["b0"]]], []])";
  int64_t id = AddRecord(tasks[1], bad, 1e-7);
  ChosenSchedule chosen =
      ApplyBest(&db_, tasks[1].func, ir::StructuralHashHex(tasks[1].func), "llvm", "cpu-test");
  EXPECT_FALSE(chosen.record.has_value());
  EXPECT_TRUE(ir::StructuralEqual(chosen.scheduled, tasks[1].func));
  EXPECT_NE(chosen.note.find("record " + std::to_string(id) + " does not replay"),
            std::string::npos)
      << chosen.note;
  EXPECT_FALSE(ApplyBest(nullptr, tasks[1].func, "", "llvm", "cpu-test").record.has_value());
}

// A layer_norm record that computes the row sum and variance for every element of the row
// (compute-at under the innermost loop: 64 times the work) is timed against the workload as
// written, found slower, and not used; the report says why and gives both times.
TEST_F(ApplyBestTest, ARecordSlowerThanTheUntunedKernelIsNotUsed) {
  ir::relax::IRModule module = testing::PreparedModel("transformer_block", {{"seq_len", 16}});
  std::vector<ir::relax::transform::ExtractedTask> tasks =
      ir::relax::transform::ExtractTasks(module, "main");
  size_t t = 0;
  while (t < tasks.size() && tasks[t].name != "layer_norm") ++t;
  ASSERT_LT(t, tasks.size());
  search::Schedule sch(tasks[t].func);
  for (const char* producer : {"T_layer_norm_var", "T_layer_norm_sum"}) {
    std::vector<search::LoopRV> loops = sch.GetLoops(sch.GetBlock("T_layer_norm"));
    sch.ComputeAt(sch.GetBlock(producer), loops.back(), true);
  }
  int64_t id = AddRecord(tasks[t], sch.trace().ToJSON().dump(), 1e-9);

  CompileReport report =
      Compile(module, "transformer_block", &db_, "cpu-test", LibraryPolicy::kNever, true);
  const CompiledTask& task = report.tasks[t];
  EXPECT_FALSE(task.record_id.has_value());
  EXPECT_EQ(report.tuned, 0);
  ASSERT_TRUE(task.tuned_s && task.untuned_s);
  EXPECT_LT(*task.untuned_s, *task.tuned_s);
  EXPECT_NE(task.note.find("record " + std::to_string(id) +
                           " not used: the untuned kernel is faster here"),
            std::string::npos)
      << task.note;
  runtime::model::Executor executor = Load("transformer_block");
  EXPECT_FALSE(executor.artifact().manifest.tasks[t].record_id.has_value());
  ExpectMatchesReference(executor, module, {{1, 16, 64}}, 7);

  // Without the comparisons (with the loops as written and the default schedules) the record
  // is used.
  report =
      Compile(module, "transformer_block", &db_, "cpu-test", LibraryPolicy::kNever, false, false);
  EXPECT_EQ(report.tasks[t].record_id, id);
  EXPECT_FALSE(report.tasks[t].untuned_s.has_value());
}

}  // namespace
}  // namespace kiln::compiler
