// TVM's JSON tuning database into and out of a real SQLite file: the database TVM 0.27 tuned
// (tests/data/tvm_db/, made by make_tvm_db.py) imports with its run times, workloads equal to
// Kiln's parse of TVM's printed text; a second import adds nothing; export and re-import give the
// same workloads, traces and run times; every line that is not taken is reported with its file,
// line and reason; a failed import changes nothing stored.
#include "database/tvm_json_database.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <set>

#include "database/sqlite_database.h"
#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/tvm_json/base64.h"
#include "support/error.h"
#include "tests/runtime/runtime_test_util.h"
#include "tests/testing/golden.h"

namespace kiln::database {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using runtime::testing::ScratchDir;
using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr const char* kDevice = "cpu-test";

fs::path TvmDb() { return kiln::testing::SourcePath("tests/data/tvm_db"); }

json Manifest() { return json::parse(kiln::testing::ReadTextFile(TvmDb() / "manifest.json")); }

std::vector<std::string> Lines(const fs::path& path) {
  std::istringstream in(kiln::testing::ReadTextFile(path));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

void WriteLines(const fs::path& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const std::string& line : lines) out << line << "\n";
}

std::vector<TuningRecord> AllRecords(Database& db) { return db.History({.limit = 1000000}); }

// (workload hash, target, device, trace, run times) of every record: what a round trip keeps.
std::multiset<std::string> Contents(Database& db) {
  std::multiset<std::string> out;
  for (const TuningRecord& r : AllRecords(db)) {
    out.insert(r.workload_hash + " " + r.target + " " + r.device + " " + r.trace_json + " " +
               json(r.result.repeat_seconds).dump() + " " +
               std::string(runtime::MeasureErrorKindName(r.result.error_kind)));
  }
  return out;
}

void ExpectKnownReasons(const TvmImportReport& report) {
  for (const TvmSkippedLine& s : report.skipped) {
    EXPECT_THAT(
        s.reason,
        ::testing::AnyOf(StartsWith("unreadable workload: "),
                         StartsWith("unsupported instruction: "), StartsWith("replay failure: "),
                         StartsWith("malformed record: "), StartsWith("no target: ")))
        << s.file << ":" << s.line;
  }
}

TEST(TvmJsonDatabase, TvmsTunedDatabaseImportsWithItsRunTimes) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  TvmImportReport report = ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  json manifest = Manifest();
  EXPECT_EQ(report.workloads_read, static_cast<int64_t>(manifest["workloads"].size()));
  EXPECT_EQ(report.workloads_added, report.workloads_read);
  EXPECT_EQ(report.records_read, static_cast<int64_t>(manifest["records"].size()));
  EXPECT_EQ(
      report.records_added + report.records_present + static_cast<int64_t>(report.skipped.size()),
      report.records_read);
  // Every record of TVM's run is one Kiln replays.
  EXPECT_TRUE(report.skipped.empty()) << report.skipped[0].file << ":" << report.skipped[0].line
                                      << ": " << report.skipped[0].reason;
  EXPECT_EQ(db.CountRecords(), report.records_added);

  // Workloads: Kiln's hash of its parse of TVM's printed text, TVM's hash in the name.
  std::vector<std::string> hashes;
  for (const json& w : manifest["workloads"]) {
    fs::path script = TvmDb() / w["script"].get<std::string>();
    ir::PrimFunc func = ir::ParsePrimFunc(kiln::testing::ReadTextFile(script), script.string());
    std::optional<Workload> stored = db.GetWorkload(ir::StructuralHashHex(func));
    ASSERT_TRUE(stored.has_value()) << script;
    EXPECT_THAT(stored->name, HasSubstr(" tvm:" + w["hash"].get<std::string>()));
    hashes.push_back(stored->hash);
  }

  // Run times: TVM's run_secs of each line, in the order of the file.
  std::vector<std::string> lines = Lines(TvmDb() / kTvmRecordFile);
  std::multiset<std::string> expected, actual;
  for (const json& r : manifest["records"]) {
    json line = json::parse(lines.at(r["line"].get<size_t>()));
    expected.insert(hashes.at(r["workload"].get<size_t>()) + " " + line[1][0].dump() + " " +
                    r["run_secs"].dump());
  }
  for (const TuningRecord& r : AllRecords(db)) {
    EXPECT_EQ(r.target, "llvm");
    EXPECT_EQ(r.device, kDevice);
    EXPECT_EQ(r.worker, kTvmImportWorker);
    EXPECT_TRUE(r.result.ok());
    actual.insert(r.workload_hash + " " + r.trace_json + " " +
                  json(r.result.repeat_seconds).dump());
  }
  EXPECT_EQ(actual, expected);

  // `tune db best`'s query lists them, fastest first.
  std::vector<TuningRecord> best = db.TopK(hashes[0], "llvm", kDevice, 3);
  ASSERT_FALSE(best.empty());
  for (size_t i = 1; i < best.size(); ++i) {
    EXPECT_LE(best[i - 1].result.median_seconds, best[i].result.median_seconds);
  }
}

// TVM 0.25 wrote its workloads in its own graph shape; they read all the same.
TEST(TvmJsonDatabase, Tvm025DatabaseImports) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  fs::path source = TvmDb() / "graphs/tvm-0.25.0.post1/database";
  TvmImportReport report = ImportTvmJsonDatabase(source, db, {.device = kDevice});
  EXPECT_EQ(report.workloads_read, 1);
  EXPECT_EQ(report.records_added, 2);
  EXPECT_TRUE(report.skipped.empty());
  ir::PrimFunc func =
      ir::ParsePrimFunc(kiln::testing::ReadTextFile(source / "workload_0.tir"), "workload_0.tir");
  EXPECT_EQ(db.TopK(ir::StructuralHashHex(func), "llvm", kDevice, 5).size(), 2u);
}

TEST(TvmJsonDatabase, ASecondImportAddsNothing) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  TvmImportReport first = ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  TvmImportReport second = ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  EXPECT_EQ(second.workloads_added, 0);
  EXPECT_EQ(second.records_added, 0);
  EXPECT_EQ(second.records_present, first.records_added);
  EXPECT_EQ(db.CountRecords(), first.records_added);
  // Another device is another key: its records are new.
  TvmImportReport other = ImportTvmJsonDatabase(TvmDb(), db, {.device = "cpu-other"});
  EXPECT_EQ(other.records_added, first.records_added);
}

TEST(TvmJsonDatabase, ExportThenImportRoundTrips) {
  ScratchDir dir;
  for (const char* source : {"tests/data/tvm_db", "tests/data/tvm/database/handwritten",
                             "tests/data/tvm_db/graphs/tvm-0.25.0.post1/database"}) {
    SCOPED_TRACE(source);
    SqliteDatabase db(dir.Sub(std::string(fs::path(source).filename()) + "-a.db"));
    TvmImportReport in = ImportTvmJsonDatabase(kiln::testing::SourcePath(source), db,
                                               {.target = "llvm", .device = kDevice});
    ExpectKnownReasons(in);
    ASSERT_GT(in.records_added, 0);
    fs::path out = dir.path() / (std::string(fs::path(source).filename()) + "-export");
    TvmExportReport exported = ExportTvmJsonDatabase(db, out, {});
    EXPECT_TRUE(exported.skipped.empty());
    EXPECT_EQ(exported.records, in.records_added);
    EXPECT_EQ(exported.workloads, static_cast<int64_t>(db.ListWorkloads().size()));

    SqliteDatabase again(dir.Sub(std::string(fs::path(source).filename()) + "-b.db"));
    TvmImportReport back = ImportTvmJsonDatabase(out, again, {.device = kDevice});
    EXPECT_TRUE(back.skipped.empty());
    EXPECT_EQ(back.records_added, in.records_added);
    EXPECT_EQ(Contents(again), Contents(db));
    for (const WorkloadSummary& w : db.ListWorkloads()) {
      std::optional<Workload> a = db.GetWorkload(w.hash), b = again.GetWorkload(w.hash);
      ASSERT_TRUE(b.has_value()) << w.hash;
      EXPECT_EQ(b->name, a->name);
      EXPECT_EQ(b->tvmscript, a->tvmscript);
    }
  }
}

// TVM's hash goes back out with each workload that came from TVM; lines are TVM's shape.
TEST(TvmJsonDatabase, ExportWritesTvmsHashesAndShape) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  ExportTvmJsonDatabase(db, dir.path() / "out", {.target = "llvm"});
  std::set<std::string> expected, actual;
  json manifest = Manifest();
  for (const json& w : manifest["workloads"]) expected.insert(w["hash"].get<std::string>());
  for (const std::string& line : Lines(dir.path() / "out" / kTvmWorkloadFile)) {
    json j = json::parse(line);
    actual.insert(j[0].get<std::string>());
    json graph = json::parse(DecodeTvmWorkloadField(j[1].get<std::string>(), "exported"));
    EXPECT_EQ(graph["nodes"][graph["root_index"].get<size_t>()]["type"], "ir.IRModule");
  }
  EXPECT_EQ(actual, expected);
  for (const std::string& line : Lines(dir.path() / "out" / kTvmRecordFile)) {
    json j = json::parse(line);
    ASSERT_EQ(j[1].size(), 4u);
    EXPECT_EQ(j[1][2]["kind"], "llvm");
    EXPECT_EQ(j[1][3][0][0], "TENSOR");
  }
  // A filter that matches nothing writes two empty files.
  TvmExportReport none = ExportTvmJsonDatabase(db, dir.path() / "none", {.device = "gpu"});
  EXPECT_EQ(none.records, 0);
  EXPECT_EQ(kiln::testing::ReadTextFile(dir.path() / "none" / kTvmRecordFile), "");
}

TEST(TvmJsonDatabase, KilnsOwnRecordsAreCountedAndCanBeLeftOut) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  TvmImportReport in = ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  TuningRecord own = AllRecords(db).front();
  own.id = 0;
  own.worker = "worker-1";
  own.result.repeat_seconds = {1e-3};
  own.result.median_seconds = 1e-3;
  std::vector<TuningRecord> batch = {own};
  ASSERT_EQ(db.CommitRecords(batch), 1);

  TvmExportReport all = ExportTvmJsonDatabase(db, dir.path() / "all", {});
  EXPECT_EQ(all.records, in.records_added + 1);
  EXPECT_EQ(all.kiln_records, 1);
  TvmExportReport imported =
      ExportTvmJsonDatabase(db, dir.path() / "imported", {.only_imported = true});
  EXPECT_EQ(imported.records, in.records_added);
  EXPECT_EQ(imported.kiln_records, 0);
  EXPECT_EQ(Lines(dir.path() / "imported" / kTvmRecordFile).size(),
            static_cast<size_t>(in.records_added));
}

TEST(TvmJsonDatabase, KilnsRecordsAreWrittenThroughTheirEnterPostproc) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  TuningRecord own = AllRecords(db).front();
  json imported_trace = json::parse(own.trace_json);
  // A record of Kiln's: a design-space part, the mark, then postprocessing TVM may refuse.
  json insts = json::array(
      {json::array({"GetSBlock", json::array(), json::array({"C", "main"}), json::array({"b0"})}),
       json::array({"GetLoops", json::array({"b0"}), json::array(), json::array({"l1", "l2"})}),
       json::array({"SamplePerfectTile", json::array({"l1"}), json::array({2, 64}),
                    json::array({"v3", "v4"})}),
       json::array({"EnterPostproc", json::array(), json::array(), json::array()}),
       json::array({"Vectorize", json::array({"l2"}), json::array(), json::array()})});
  json decisions = json::array({json::array({2, json::array({4, 8})})});
  own.id = 0;
  own.worker = "worker-1";
  own.trace_json = json::array({insts, decisions}).dump();
  std::vector<TuningRecord> batch = {own};
  ASSERT_EQ(db.CommitRecords(batch), 1);

  ExportTvmJsonDatabase(db, dir.path() / "out", {});
  bool found_own = false, found_imported = false;
  for (const std::string& line : Lines(dir.path() / "out" / kTvmRecordFile)) {
    json trace = json::parse(line)[1][0];
    if (trace == imported_trace) found_imported = true;  // TVM's own: written as it came
    if (trace[0].size() == 4 && trace[0][0][2][0] == "C") {
      found_own = true;  // cut after the mark; the decisions before it kept
      EXPECT_EQ(trace[0][3][0], "EnterPostproc");
      EXPECT_EQ(trace[1], decisions);
    }
  }
  EXPECT_TRUE(found_own);
  EXPECT_TRUE(found_imported);
}

const TvmSkippedLine* SkipAt(const TvmImportReport& report, const std::string& file, int64_t line) {
  for (const TvmSkippedLine& s : report.skipped) {
    if (s.line == line && fs::path(s.file).filename() == file) return &s;
  }
  return nullptr;
}

TEST(TvmJsonDatabase, BadLinesAreReportedWithFileLineAndReason) {
  ScratchDir dir;
  std::vector<std::string> workloads = Lines(TvmDb() / kTvmWorkloadFile);
  std::vector<std::string> records = Lines(TvmDb() / kTvmRecordFile);
  json good = json::parse(records[0]);
  good[0] = 0;
  auto with = [&](const std::function<void(json&)>& change) {
    json j = good;
    change(j);
    return j.dump();
  };
  fs::path bad = dir.path() / "bad";
  fs::create_directories(bad);
  WriteLines(bad / kTvmWorkloadFile,
             {
                 json::parse(workloads[0]).dump(),  // workload 0: fine
                 "[\"123\", \"AAAA",                // 1: truncated
                 "[\"abc\", \"e30=\"]",             // 2: hash not decimal
                 "[\"1\", \"" + ir::tvm_json::Base64Encode({'{', '}'}) + "\"]",  // 3: no graph
                 workloads[1].substr(0, workloads[1].size() / 2) + "\"]",        // 4: cut base64
             });
  WriteLines(bad / kTvmRecordFile,
             {
                 good.dump(),                                                   // 1: fine
                 "[0, 5]",                                                      // 2
                 with([](json& j) { j[0] = 9; }),                               // 3
                 with([](json& j) { j[0] = 1; }),                               // 4
                 with([](json& j) { j[1][0][0][0][0] = "FrobnicateLoops"; }),   // 5
                 with([](json& j) { j[1][1] = "fast"; }),                       // 6
                 with([](json& j) { j[1][0][0][0][2][0] = "no_such_block"; }),  // 7
                 with([](json& j) { j[1][2] = json::object(); }),               // 8
                 "",                                                            // blank
                 "not json at all",                                             // 10
             });
  SqliteDatabase db(dir.Sub("tuning.db"));
  TvmImportReport report = ImportTvmJsonDatabase(bad, db, {.device = kDevice});
  EXPECT_EQ(report.workloads_read, 1);
  EXPECT_EQ(report.records_read, 9);
  EXPECT_EQ(report.records_added, 1);
  ExpectKnownReasons(report);

  auto reason = [&](std::string_view file, int64_t line) -> std::string {
    const TvmSkippedLine* s = SkipAt(report, std::string(file), line);
    return s ? s->reason : "(not reported)";
  };
  EXPECT_THAT(reason(kTvmWorkloadFile, 2), StartsWith("unreadable workload: "));
  EXPECT_THAT(reason(kTvmWorkloadFile, 2), HasSubstr("database_workload.json:2"));
  EXPECT_THAT(reason(kTvmWorkloadFile, 3), HasSubstr("field 0 (structural_hash)"));
  EXPECT_THAT(reason(kTvmWorkloadFile, 4), HasSubstr("database_workload.json:4, field 1"));
  EXPECT_THAT(reason(kTvmWorkloadFile, 5), HasSubstr("database_workload.json:5, field 1"));
  EXPECT_THAT(reason(kTvmRecordFile, 2), StartsWith("malformed record: expected [workload_line"));
  EXPECT_THAT(reason(kTvmRecordFile, 3), HasSubstr("field workload_line: 9"));
  EXPECT_THAT(reason(kTvmRecordFile, 4), StartsWith("unreadable workload: its workload (line 2"));
  EXPECT_THAT(reason(kTvmRecordFile, 5), StartsWith("unsupported instruction: "));
  EXPECT_THAT(reason(kTvmRecordFile, 5), HasSubstr("FrobnicateLoops"));
  EXPECT_THAT(reason(kTvmRecordFile, 6),
              HasSubstr("database_tuning_record.json:6, field run_secs"));
  EXPECT_THAT(reason(kTvmRecordFile, 7), StartsWith("replay failure: "));
  EXPECT_THAT(reason(kTvmRecordFile, 7), HasSubstr("no_such_block"));
  EXPECT_THAT(reason(kTvmRecordFile, 8), StartsWith("no target: "));
  EXPECT_THAT(reason(kTvmRecordFile, 10), StartsWith("malformed record: "));
  EXPECT_EQ(report.skipped.size(), 4u + 8u);
}

TEST(TvmJsonDatabase, AFailedImportChangesNothingStored) {
  ScratchDir dir;
  SqliteDatabase db(dir.Sub("tuning.db"));
  TvmImportReport first = ImportTvmJsonDatabase(TvmDb(), db, {.device = kDevice});
  std::multiset<std::string> before = Contents(db);

  fs::path half = dir.path() / "half";
  fs::create_directories(half);
  fs::copy_file(TvmDb() / kTvmWorkloadFile, half / kTvmWorkloadFile);
  try {
    ImportTvmJsonDatabase(half, db, {.device = "cpu-new"});
    FAIL() << "an import without its record file succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIO);
    EXPECT_THAT(e.what(), HasSubstr("database_tuning_record.json"));
  }
  try {
    ImportTvmJsonDatabase(TvmDb(), db, {.device = ""});
    FAIL() << "an import without a device key succeeded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kParse);
    EXPECT_THAT(e.what(), HasSubstr("device key"));
  }
  EXPECT_EQ(Contents(db), before);
  EXPECT_EQ(db.CountRecords(), first.records_added);
  EXPECT_EQ(db.IntegrityCheck(), "ok");
}

TEST(TvmJsonDatabase, WorkloadFieldsOfEveryTvmVersionDecode) {
  std::string graph = R"({"root_index": 0, "nodes": [{"type": "None"}]})";
  EXPECT_EQ(DecodeTvmWorkloadField(EncodeTvmWorkloadField(graph), "w"), graph);
  std::vector<uint8_t> plain(graph.begin(), graph.end());
  EXPECT_EQ(DecodeTvmWorkloadField(ir::tvm_json::Base64Encode(plain), "w"), graph);
  EXPECT_EQ(DecodeTvmWorkloadField(graph, "w"), graph);
  for (const char* garbage : {"", "!!!!", "QUJDRA=="}) {
    try {
      DecodeTvmWorkloadField(garbage, "line 3, field 1");
      FAIL() << garbage;
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kParse);
      EXPECT_THAT(e.what(), HasSubstr("line 3, field 1"));
    }
  }
}

TEST(TvmJsonDatabase, TargetsMapBothWays) {
  EXPECT_EQ(KilnTargetName(json{{"kind", "llvm"}, {"num-cores", 2}, {"keys", {"cpu"}}}), "llvm");
  EXPECT_EQ(KilnTargetName(json("llvm -keys=cpu -mcpu=znver4")), "llvm");
  EXPECT_EQ(KilnTargetName(json{{"kind", "cuda"}, {"arch", "sm_90"}}), "cuda");
  EXPECT_EQ(KilnTargetName(json::object()), "");
  EXPECT_EQ(KilnTargetName(json{{"kind", "ll vm; drop"}}), "");
  EXPECT_EQ(KilnTargetName(json(42)), "");
  for (const char* name : {"llvm", "c", "cuda", "vulkan"}) {
    EXPECT_EQ(KilnTargetName(TvmTargetJson(name)), name);
  }
  EXPECT_EQ(TvmTargetJson("cuda")["keys"], json({"cuda", "gpu"}));
}

}  // namespace
}  // namespace kiln::database
