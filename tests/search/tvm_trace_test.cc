// MetaSchedule traces as TVM 0.27 writes them in database_tuning_record.json (the corpus in
// tests/data/tvm/database/, made by tests/data/tvm/make_tvm_corpus.py): every record's trace
// reads, writes back to the same JSON, and replays on its workload (the TVMScript printed next
// to the database) to a function that computes what the workload computes. Also: traces in the
// shape Kiln wrote before (GetBlock, true / false, no insertion index, no consumer list) still
// read, and TVM's options that Kiln's primitives do not have are refused by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "search/schedule/schedule.h"
#include "tests/search/test_funcs.h"
#include "tests/search/test_util.h"
#include "tests/testing/golden.h"

namespace kiln::search {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::CompareNumerics;
using testing::ExpectError;

struct Record {
  std::string where;  // database folder and line
  int64_t workload = 0;
  json trace;
};

fs::path DatabaseDir(const std::string& folder) {
  return kiln::testing::SourcePath("tests/data/tvm/" + folder);
}

// The records of a JSONDatabase: one JSON line each, [workload, [trace, run_secs, target, args]].
std::vector<Record> ReadRecords(const std::string& folder) {
  std::istringstream lines(
      kiln::testing::ReadTextFile(DatabaseDir(folder) / "database_tuning_record.json"));
  std::vector<Record> records;
  std::string line;
  for (int i = 0; std::getline(lines, line); ++i) {
    json j = json::parse(line);
    records.push_back(
        {folder + " record " + std::to_string(i), j.at(0).get<int64_t>(), j.at(1).at(0)});
  }
  return records;
}

ir::PrimFunc Workload(const std::string& folder, int64_t index) {
  fs::path path = DatabaseDir(folder) / ("workload_" + std::to_string(index) + ".tir");
  return ir::ParsePrimFunc(kiln::testing::ReadTextFile(path), path.string());
}

const char* const kDatabases[] = {"database/handwritten", "database"};

TEST(TvmTrace, EveryKindOfTheHandwrittenDatabaseIsRead) {
  std::set<std::string> kinds;
  for (const Record& r : ReadRecords("database/handwritten")) {
    for (const json& inst : r.trace.at(0)) kinds.insert(inst.at(0).get<std::string>());
  }
  for (const InstructionKind& kind : InstructionKinds()) {
    EXPECT_TRUE(kinds.count(std::string(kind.name))) << kind.name << " is in no record";
  }
}

TEST(TvmTrace, RecordsReadAndWriteBackUnchanged) {
  size_t count = 0;
  for (const char* folder : kDatabases) {
    for (const Record& r : ReadRecords(folder)) {
      SCOPED_TRACE(r.where);
      Trace trace = Trace::FromJSON(r.trace);
      EXPECT_EQ(trace.ToJSON(), r.trace);
      ++count;
    }
  }
  EXPECT_GE(count, 10u);
}

// Kiln's replay of every record against TVM's replay of it (record_<i>_scheduled.tir, printed
// by TVM): equal means the same loops, blocks, bindings, buffers and annotations. Where Kiln's
// primitives still build a function of another shape (decompose_reduction, rfactor), the
// record is listed as differing in tests/search/testdata/tvm_replay.expected, so that a change
// in either direction shows (KILN_UPDATE_GOLDEN=1 rewrites the list).
TEST(TvmTrace, RecordsReplayAsInTvm) {
  std::string report;
  for (const char* folder : kDatabases) {
    std::vector<Record> records = ReadRecords(folder);
    for (size_t i = 0; i < records.size(); ++i) {
      const Record& r = records[i];
      report += r.where + ": ";
      ir::PrimFunc scheduled;
      try {
        scheduled = ReplayTrace(Workload(folder, r.workload), Trace::FromJSON(r.trace));
      } catch (const Error& e) {
        report += std::string("Kiln's replay fails: ") + e.what() + "\n";
        continue;
      }
      fs::path path = DatabaseDir(folder) / ("record_" + std::to_string(i) + "_scheduled.tir");
      ir::PrimFunc tvm;
      try {
        tvm = ir::ParsePrimFunc(kiln::testing::ReadTextFile(path), path.string());
      } catch (const Error& e) {
        report += "TVM's replay does not parse in Kiln\n";
        continue;
      }
      report += ir::StructuralEqual(scheduled, tvm) ? "equal\n" : "differs\n";
    }
  }
  EXPECT_EQ(kiln::testing::CheckGoldenFile(
                kiln::testing::SourcePath("tests/search/testdata/tvm_replay.expected"), report),
            "");
}

// Numerics against the interpreter on the workloads that are cheap to interpret (the
// handwritten records' 16x16 functions and the tuned dense + bias + ReLU); the 128x128x128
// matmul's records are built and checked in tvm_trace_build_test.
TEST(TvmTrace, RecordsComputeWhatTheirWorkloadsCompute) {
  for (const char* folder : kDatabases) {
    for (const Record& r : ReadRecords(folder)) {
      if (std::string(folder) == "database" && r.workload == 0) continue;  // the matmul
      ir::PrimFunc workload = Workload(folder, r.workload);
      SCOPED_TRACE(r.where);
      ir::PrimFunc scheduled;
      ASSERT_NO_THROW(scheduled = ReplayTrace(workload, Trace::FromJSON(r.trace)));
      EXPECT_EQ(CompareNumerics(workload, scheduled), "");
    }
  }
}

// The trace fuzzer's seeds in TVM's shape (tests/search/testdata/traces/tvm_*.json: the
// handwritten records of the matmul + ReLU, decisions fitted to the fuzzer's 8x8x8 workload):
// each reads, writes back unchanged, and replays to a function that computes the same.
TEST(TvmTrace, FuzzerSeedsInTvmShapeReplay) {
  fs::path dir = kiln::testing::SourcePath("tests/search/testdata/traces");
  ir::PrimFunc workload =
      ir::ParsePrimFunc(kiln::testing::ReadTextFile(dir / "workload.tir"), "workload.tir");
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::string name = entry.path().filename().string();
    if (name.rfind("tvm_", 0) != 0) continue;
    SCOPED_TRACE(name);
    json j = json::parse(kiln::testing::ReadTextFile(entry.path()));
    Trace trace = Trace::FromJSON(j);
    EXPECT_EQ(trace.ToJSON(), j);
    ir::PrimFunc scheduled;
    ASSERT_NO_THROW(scheduled = ReplayTrace(workload, trace));
    EXPECT_EQ(CompareNumerics(workload, scheduled), "");
    ++count;
  }
  EXPECT_GE(count, 7u);
}

TEST(TvmTrace, KilnWritesTvmShapes) {
  Schedule sch(testing::MakeMatmulRelu(16, 16, 16));
  BlockRV c = sch.GetBlock("C");
  auto loops = sch.GetLoops(c);
  auto parts = sch.Split(loops[0], {std::nullopt, 4});
  BlockRV cache = sch.CacheRead(c, 0, "global");
  sch.ComputeAt(cache, parts[0]);
  BlockRV out = sch.CacheWrite(c, 0, "global");
  sch.ReverseComputeAt(out, parts[0], true);
  sch.Fuse({parts[1], loops[1]}, false);
  json expected = json::parse(R"([
    [["GetSBlock", [], ["C", "main"], ["b0"]],
     ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
     ["Split", ["l1", "None", 4], [1, 0], ["l4", "l5"]],
     ["CacheRead", ["b0", []], [0, "global"], ["b6"]],
     ["ComputeAt", ["b6", "l4"], [0, -1], []],
     ["CacheWrite", ["b0", []], [0, "global"], ["b7"]],
     ["ReverseComputeAt", ["b7", "l4"], [1, -1], []],
     ["Fuse", ["l5", "l2"], [0], ["l8"]]],
    []])");
  EXPECT_EQ(sch.trace().ToJSON(), expected);
}

TEST(TvmTrace, KilnsOlderShapeStillReads) {
  // As Kiln wrote traces before it wrote TVM's shape.
  json old = json::parse(R"([
    [["GetBlock", [], ["C", "matmul"], ["b0"]],
     ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]],
     ["Split", ["l1", null, 4], [true, false], ["l4", "l5"]],
     ["CacheRead", ["b0"], [0, "global"], ["b6"]],
     ["ComputeAt", ["b6", "l4"], [false], []],
     ["CacheWrite", ["b0"], [0, "global"], ["b7"]],
     ["ReverseComputeAt", ["b7", "l4"], [true], []]],
    []])");
  Trace trace = Trace::FromJSON(old);
  json now = trace.ToJSON();
  EXPECT_EQ(now[0][0], json::parse(R"(["GetSBlock", [], ["C", "main"], ["b0"]])"));
  EXPECT_EQ(now[0][2], json::parse(R"(["Split", ["l1", "None", 4], [1, 0], ["l4", "l5"]])"));
  EXPECT_EQ(now[0][3], json::parse(R"(["CacheRead", ["b0", []], [0, "global"], ["b6"]])"));
  EXPECT_EQ(now[0][4], json::parse(R"(["ComputeAt", ["b6", "l4"], [0, -1], []])"));
  EXPECT_EQ(now[0][6], json::parse(R"(["ReverseComputeAt", ["b7", "l4"], [1, -1], []])"));
  ir::PrimFunc f = testing::MakeMatmulRelu(16, 16, 16);
  ir::PrimFunc scheduled = ReplayTrace(f, trace);
  EXPECT_TRUE(ir::StructuralEqual(scheduled, ReplayTrace(f, Trace::FromJSON(now))));
  EXPECT_EQ(CompareNumerics(f, scheduled), "");
}

TEST(TvmTrace, EnterPostprocAndAnnotationsReplay) {
  json j = json::parse(R"([
    [["GetSBlock", [], ["C", "main"], ["b0"]],
     ["GetSBlock", [], ["root", "main"], ["b1"]],
     ["Annotate", ["b0", "\"SSRSRS\""], ["meta_schedule.tiling_structure"], []],
     ["Annotate", ["b1", 16], ["meta_schedule.parallel"], []],
     ["SampleCategorical", [], [[0, 16, 64], [0.25, 0.25, 0.5]], ["v2"]],
     ["Annotate", ["b1", "v2"], ["meta_schedule.unroll_explicit"], []],
     ["Annotate", ["b0", true], ["meta_schedule.layout_rewrite_preproc"], []],
     ["EnterPostproc", [], [], []],
     ["Unannotate", ["b1"], ["meta_schedule.parallel"], []]],
    [[4, 2]]])");
  Trace trace = Trace::FromJSON(j);
  ir::PrimFunc f = testing::MakeMatmulRelu(8, 8, 8);
  Schedule sch(f);
  trace.ApplyTo(sch);
  const ir::BlockNode* c = sch.Get(sch.GetBlock("C"));
  ASSERT_TRUE(c->annotations.count("meta_schedule.tiling_structure"));
  EXPECT_TRUE(c->annotations.count("meta_schedule.layout_rewrite_preproc"));
  const ir::BlockNode* root = sch.Get(sch.GetBlock("root"));
  EXPECT_FALSE(root->annotations.count("meta_schedule.parallel"));
  ASSERT_TRUE(root->annotations.count("meta_schedule.unroll_explicit"));
  EXPECT_EQ(ir::AsConstInt(root->annotations.at("meta_schedule.unroll_explicit")), 64);
  EXPECT_EQ(trace.AsPython().find("sch.enter_postproc()") != std::string::npos, true);
  // The boolean annotation value is written as TVM reads it back: 1.
  EXPECT_EQ(trace.ToJSON()[0][6][1][1], 1);
}

TEST(TvmTrace, OptionsKilnDoesNotHaveAreRefusedByName) {
  ir::PrimFunc f = testing::MakeMatmulRelu(8, 8, 8);
  json consumers = json::parse(R"([
    [["GetSBlock", [], ["C", "main"], ["b0"]],
     ["GetSBlock", [], ["D", "main"], ["b1"]],
     ["CacheWrite", ["b0", ["b1"]], [0, "global"], ["b2"]]], []])");
  ExpectError([&] { ReplayTrace(f, Trace::FromJSON(consumers)); }, ErrorKind::kSchedule,
              "cache_write: a list of 1 consumer blocks is not supported");
  json index = json::parse(R"([
    [["GetSBlock", [], ["C", "main"], ["b0"]],
     ["GetSBlock", [], ["D", "main"], ["b1"]],
     ["GetLoops", ["b0"], [], ["l2", "l3", "l4"]],
     ["ReverseComputeAt", ["b1", "l2"], [0, -2], []]], []])");
  ExpectError([&] { ReplayTrace(f, Trace::FromJSON(index)); }, ErrorKind::kSchedule,
              "reverse_compute_at: insertion index -2 is not supported");
  ExpectError(
      [&] {
        Trace::FromJSON(json::parse(
            R"([[["GetSBlock", [], ["C", "main"], ["b0"]], ["CacheRead", ["b0", ["l9"]], [0, "global"], ["b1"]]], []])"));
      },
      ErrorKind::kParse, "\"l9\" in the list is not a block defined earlier");
  ExpectError(
      [&] {
        Trace::FromJSON(json::parse(
            R"([[["GetSBlock", [], ["C", "main"], ["b0"]], ["GetLoops", ["b0"], [], ["l1", "l2", "l3"]], ["Fuse", ["l1", "l2"], [2], ["l4"]]], []])"));
      },
      ErrorKind::kParse, "attr 0 has the wrong type: 2");
}

}  // namespace
}  // namespace kiln::search
