// `tune db list|best|history|import|export [--db FILE] [--json]`: the tuning database. `list`
// shows every workload measured per target and device with its record count and fastest
// time; `best HASH` the fastest records of one workload; `history` the newest records.
// Every query opens the file without creating it, so a mistyped --db is an error. `import DIR`
// reads TVM's JSON tuning database (database/tvm_json_database.h) into the file, creating it,
// and lists every line it did not take with its reason; `export DIR` writes that shape.
#include <algorithm>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cli/commands/commands.h"
#include "database/sqlite_database.h"
#include "database/tvm_json_database.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct DbOptions {
  std::string db;
  bool json = false;
  std::string hash;
  std::string target;
  std::string device;
  int64_t k = 5;
  int64_t job = 0;
  int64_t limit = 20;
  std::string dir;
  bool imported = false;
  std::string backup;  // the path `tune db backup` writes
};

std::unique_ptr<database::SqliteDatabase> OpenForQuery(const DbOptions& options) {
  std::string path = options.db.empty() ? database::DefaultDatabasePath() : options.db;
  return std::make_unique<database::SqliteDatabase>(
      path, database::SqliteDatabaseOptions{.create = false});
}

nlohmann::json OptionalSeconds(std::optional<double> seconds) {
  return seconds ? nlohmann::json(*seconds) : nlohmann::json(nullptr);
}

std::string Microseconds(std::optional<double> seconds) {
  if (!seconds) return "-";
  std::ostringstream out;
  out << std::fixed << std::setprecision(2) << *seconds * 1e6;
  return out.str();
}

nlohmann::json RecordJson(const database::TuningRecord& r) {
  nlohmann::json trace = nlohmann::json::parse(r.trace_json, nullptr, false);
  return {{"id", r.id},
          {"hash", r.workload_hash},
          {"target", r.target},
          {"device", r.device},
          {"error_kind", runtime::MeasureErrorKindName(r.result.error_kind)},
          {"message", r.result.message},
          {"latency_s", r.result.ok() ? nlohmann::json(r.result.median_seconds) : nullptr},
          {"run_seconds", r.result.repeat_seconds},
          {"contention", r.result.contention},
          {"build_seconds", r.result.build_seconds},
          {"worker", r.worker},
          {"job", r.job_id},
          {"created_unix", r.created_unix},
          {"trace", trace.is_discarded() ? nlohmann::json(r.trace_json) : trace}};
}

void PrintRecords(const std::vector<database::TuningRecord>& records, bool json,
                  const std::string& key) {
  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& r : records) out.push_back(RecordJson(r));
    std::cout << nlohmann::json{{key, out}}.dump() << "\n";
    return;
  }
  std::cout << std::left << std::setw(8) << "id" << std::setw(18) << "workload" << std::setw(8)
            << "target" << std::setw(18) << "device" << std::setw(14) << "result" << std::setw(12)
            << "latency_us"
            << "worker\n";
  for (const auto& r : records) {
    std::cout << std::left << std::setw(8) << r.id << std::setw(18) << r.workload_hash
              << std::setw(8) << r.target << std::setw(18) << r.device << std::setw(14)
              << runtime::MeasureErrorKindName(r.result.error_kind) << std::setw(12)
              << (r.result.ok() ? Microseconds(r.result.median_seconds) : "-") << r.worker << "\n";
  }
}

int RunList(const DbOptions& options) {
  auto db = OpenForQuery(options);
  std::vector<database::WorkloadSummary> list = db->ListWorkloads();
  if (options.json) {
    nlohmann::json workloads = nlohmann::json::array();
    for (const auto& w : list) {
      workloads.push_back({{"hash", w.hash},
                           {"name", w.name},
                           {"target", w.target},
                           {"device", w.device},
                           {"records", w.records},
                           {"best_latency_s", OptionalSeconds(w.best_seconds)}});
    }
    std::cout << nlohmann::json{{"workloads", workloads}}.dump() << "\n";
    return 0;
  }
  // Imported workloads carry TVM's hash in their names: the column fits the longest.
  int name_width = 32;
  for (const auto& w : list) name_width = std::max(name_width, static_cast<int>(w.name.size()) + 2);
  std::cout << std::left << std::setw(18) << "hash" << std::setw(name_width) << "name"
            << std::setw(8) << "target" << std::setw(18) << "device" << std::setw(9) << "records"
            << "best_us\n";
  for (const auto& w : list) {
    std::cout << std::left << std::setw(18) << w.hash << std::setw(name_width) << w.name
              << std::setw(8) << w.target << std::setw(18) << w.device << std::setw(9) << w.records
              << Microseconds(w.best_seconds) << "\n";
  }
  if (list.empty()) std::cout << "(no records in " << db->path() << ")\n";
  return 0;
}

int RunBest(const DbOptions& options) {
  auto db = OpenForQuery(options);
  KILN_CHECK(options.k > 0, ErrorKind::kParse, "tune db best: -k must be positive");
  // Without --target or --device: every (target, device) the workload was measured on.
  std::vector<database::TuningRecord> records;
  bool known = false;
  for (const auto& w : db->ListWorkloads()) {
    if (w.hash != options.hash) continue;
    known = true;
    if (!options.target.empty() && w.target != options.target) continue;
    if (!options.device.empty() && w.device != options.device) continue;
    for (auto& r : db->TopK(w.hash, w.target, w.device, options.k)) records.push_back(r);
  }
  KILN_CHECK(known || db->GetWorkload(options.hash).has_value(), ErrorKind::kParse,
             "tune db best: no workload with hash " + options.hash + " in " + db->path());
  PrintRecords(records, options.json, "records");
  return 0;
}

int RunHistory(const DbOptions& options) {
  auto db = OpenForQuery(options);
  KILN_CHECK(options.limit > 0, ErrorKind::kParse, "tune db history: --limit must be positive");
  PrintRecords(db->History({.workload_hash = options.hash,
                            .target = options.target,
                            .device = options.device,
                            .job_id = options.job,
                            .limit = options.limit}),
               options.json, "records");
  return 0;
}

nlohmann::json SkippedJson(const std::vector<database::TvmSkippedLine>& skipped) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& s : skipped) {
    out.push_back({{"file", s.file}, {"line", s.line}, {"reason", s.reason}});
  }
  return out;
}

void PrintSkipped(const std::vector<database::TvmSkippedLine>& skipped) {
  for (const auto& s : skipped) {
    std::cout << "  skipped " << s.file;
    if (s.line > 0) std::cout << ":" << s.line;
    std::cout << ": " << s.reason << "\n";
  }
}

int RunImport(const DbOptions& options) {
  // Checked before the database file is created, so that a wrong folder leaves nothing behind.
  for (std::string_view name : {database::kTvmWorkloadFile, database::kTvmRecordFile}) {
    std::filesystem::path file = std::filesystem::path(options.dir) / name;
    KILN_CHECK(std::filesystem::is_regular_file(file), ErrorKind::kIO,
               file.string() + ": cannot be read (tune db import reads TVM's JSONDatabase folder)");
  }
  std::string path = options.db.empty() ? database::DefaultDatabasePath() : options.db;
  database::SqliteDatabase db(path);
  database::TvmImportReport report = database::ImportTvmJsonDatabase(
      options.dir, db, {.target = options.target, .device = options.device});
  if (options.json) {
    std::cout << nlohmann::json{{"db", db.path()},
                                {"workloads_read", report.workloads_read},
                                {"workloads_added", report.workloads_added},
                                {"records_read", report.records_read},
                                {"records_added", report.records_added},
                                {"records_present", report.records_present},
                                {"skipped", SkippedJson(report.skipped)}}
                     .dump()
              << "\n";
    return 0;
  }
  std::cout << "imported " << report.records_added << " of " << report.records_read << " records ("
            << report.records_present << " already there, " << report.skipped.size()
            << " lines skipped) and " << report.workloads_read << " workloads ("
            << report.workloads_added << " new) from " << options.dir << " into " << db.path()
            << "\n";
  PrintSkipped(report.skipped);
  return 0;
}

int RunExport(const DbOptions& options) {
  auto db = OpenForQuery(options);
  database::TvmExportReport report = database::ExportTvmJsonDatabase(
      *db, options.dir,
      {.target = options.target, .device = options.device, .only_imported = options.imported});
  if (options.json) {
    std::cout << nlohmann::json{{"dir", options.dir},
                                {"workloads", report.workloads},
                                {"records", report.records},
                                {"kiln_records", report.kiln_records},
                                {"skipped", SkippedJson(report.skipped)}}
                     .dump()
              << "\n";
    return 0;
  }
  std::cout << "exported " << report.records << " records of " << report.workloads
            << " workloads from " << db->path() << " to " << options.dir << " ("
            << database::kTvmWorkloadFile << ", " << database::kTvmRecordFile << ")\n";
  if (report.kiln_records > 0) {
    std::cout << "  " << report.kiln_records
              << " of them were measured by Kiln: TVM's JSONDatabase replays every record when "
                 "it loads and refuses the file if one fails, and TVM refuses Kiln's order of "
                 "postprocessing; --only-imported leaves them out\n";
  }
  PrintSkipped(report.skipped);
  return 0;
}

// What `check` and `backup` say of a database file: its integrity, schema and size.
nlohmann::json Soundness(database::SqliteDatabase& db) {
  return {{"db", db.path()},
          {"integrity", db.IntegrityCheck()},
          {"schema_version", db.SchemaVersion()},
          {"records", db.CountRecords()},
          {"jobs", db.ListJobs().size()}};
}

int PrintSoundness(const nlohmann::json& s, bool json, const std::string& what) {
  bool ok = s["integrity"] == "ok";
  if (json) {
    std::cout << s.dump() << "\n";
    return ok ? 0 : 1;
  }
  std::cout << what << s["db"].get<std::string>() << ": " << (ok ? "ok" : "damaged") << " (schema "
            << s["schema_version"] << ", " << s["records"] << " records, " << s["jobs"]
            << " jobs)\n";
  if (!ok) {
    // SQLite lists every damaged page: the first few say enough (--json has them all).
    std::istringstream problems(s["integrity"].get<std::string>());
    std::string line;
    int shown = 0, more = 0;
    while (std::getline(problems, line)) {
      if (shown < 8) {
        std::cout << "  " << line << "\n";
        ++shown;
      } else {
        ++more;
      }
    }
    if (more > 0) std::cout << "  (" << more << " more lines)\n";
  }
  return ok ? 0 : 1;
}

int RunCheck(const DbOptions& options) {
  auto db = OpenForQuery(options);
  return PrintSoundness(Soundness(*db), options.json, "");
}

int RunBackup(const DbOptions& options) {
  {
    auto db = OpenForQuery(options);
    db->BackupTo(options.backup);
  }
  database::SqliteDatabase copy(options.backup, database::SqliteDatabaseOptions{.create = false});
  return PrintSoundness(Soundness(copy), options.json, "backup ");
}

void AddCommon(CLI::App* app, DbOptions& options) {
  app->add_option("--db", options.db, "the tuning database (default ~/.cache/kiln/tuning.db)");
  app->add_flag("--json", options.json, "print one JSON object on the last line");
}

}  // namespace

Command RegisterDbCommand(CLI::App& parent) {
  auto options = std::make_shared<DbOptions>();
  CLI::App* app = parent.add_subcommand("db", "Query the tuning database; import and export TVM's");
  app->require_subcommand(1);
  CLI::App* list = app->add_subcommand("list", "Workloads per target and device, fastest time");
  AddCommon(list, *options);
  CLI::App* best = app->add_subcommand("best", "The fastest records of one workload");
  AddCommon(best, *options);
  best->add_option("hash", options->hash, "the workload's structural hash")->required();
  best->add_option("--target", options->target, "only this target");
  best->add_option("--device", options->device, "only this device key");
  best->add_option("-k", options->k, "records per target and device (default 5)");
  CLI::App* history = app->add_subcommand("history", "The newest records, newest first");
  AddCommon(history, *options);
  history->add_option("hash", options->hash, "only this workload");
  history->add_option("--target", options->target, "only this target");
  history->add_option("--device", options->device, "only this device key");
  history->add_option("--job", options->job, "only this job");
  history->add_option("--limit", options->limit, "at most this many (default 20)");
  CLI::App* import = app->add_subcommand(
      "import",
      "Read TVM's JSON tuning database (database_workload.json and "
      "database_tuning_record.json, as MetaSchedule's JSONDatabase writes them) into the "
      "database; lines Kiln does not take are listed with their reasons");
  AddCommon(import, *options);
  import->add_option("dir", options->dir, "the folder of TVM's two files")->required();
  import->add_option("--target", options->target,
                     "the target the records were measured on (default: each record's target, "
                     "its kind: llvm, cuda, ...)");
  import
      ->add_option("--device", options->device,
                   "the device key the records were measured on (required: TVM's files do not "
                   "name it), e.g. cpu-zen4")
      ->required();
  CLI::App* export_app = app->add_subcommand(
      "export", "Write the database in TVM's JSON tuning database shape, for its JSONDatabase");
  AddCommon(export_app, *options);
  export_app->add_option("dir", options->dir, "the folder to write TVM's two files into")
      ->required();
  export_app->add_option("--target", options->target, "only this target");
  export_app->add_option("--device", options->device, "only this device key");
  export_app->add_flag("--only-imported", options->imported,
                       "only the records imported from TVM (TVM may refuse a file with Kiln's "
                       "own records: it replays each at load)");
  CLI::App* check = app->add_subcommand(
      "check",
      "SQLite's integrity check of the database, its schema version and size; exit 1 "
      "when it is damaged");
  AddCommon(check, *options);
  CLI::App* backup = app->add_subcommand(
      "backup",
      "Copy the database to a new file with SQLite's online backup (jobs may go on writing), "
      "then check the copy");
  AddCommon(backup, *options);
  backup->add_option("path", options->backup, "the new file (never overwritten)")->required();
  return {app, [options, list, best, history, import, export_app, check, backup]() {
            if (check->parsed()) return RunCheck(*options);
            if (backup->parsed()) return RunBackup(*options);
            if (list->parsed()) return RunList(*options);
            if (best->parsed()) return RunBest(*options);
            if (history->parsed()) return RunHistory(*options);
            if (import->parsed()) return RunImport(*options);
            if (export_app->parsed()) return RunExport(*options);
            return 2;
          }};
}

}  // namespace kiln::cli
