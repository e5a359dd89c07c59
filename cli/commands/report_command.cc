// `tune report JOB -o report.html [--db FILE] [--json]`: writes one self-contained HTML page
// about a tuning job from the tuning database: its task table, the tuning curve of each task
// (best GFLOP/s over trials) and the estimated model latency over trials (cli/report/). JOB is
// a job id or `last`, the newest job. The page needs no network: open it in any browser.
//
// Exit codes: 0 written; 1 the database, the job or the output file was unusable; 2 usage.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/commands/commands.h"
#include "cli/report/html_report.h"
#include "cli/report/tuning_history.h"
#include "database/sqlite_database.h"
#include "support/error.h"

namespace kiln::cli {
namespace {

struct ReportOptions {
  std::string job;
  std::string output;
  std::string db;
  bool json = false;
};

// The database `tune run` and the coordinator write by default: $KILN_DB, else the cache's.
std::string DatabasePath(const ReportOptions& o) {
  if (!o.db.empty()) return o.db;
  const char* env = std::getenv("KILN_DB");
  return env && *env ? std::string(env) : database::DefaultDatabasePath();
}

int64_t JobId(const ReportOptions& o, database::Database& db) {
  if (o.job == "last") {
    std::vector<database::Job> jobs = db.ListJobs();
    KILN_CHECK(!jobs.empty(), ErrorKind::kIO, "JOB last: the tuning database has no job");
    return jobs.front().id;
  }
  int64_t id = 0;
  size_t used = 0;
  try {
    id = std::stoll(o.job, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  KILN_CHECK(used == o.job.size() && used > 0 && id > 0, ErrorKind::kParse,
             "JOB: expected a job id (a positive integer) or `last`, got '" + o.job + "'");
  return id;
}

void WriteFileAtomically(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    KILN_CHECK(out.good(), ErrorKind::kIO, "-o " + path + ": cannot open for writing");
    out << text;
    out.close();
    KILN_CHECK(!out.fail(), ErrorKind::kIO, "-o " + path + ": write failed");
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(ErrorKind::kIO, "-o " + path + ": cannot replace the file");
  }
}

int Run(const ReportOptions& o) {
  std::string path = DatabasePath(o);
  database::SqliteDatabase db(path, database::SqliteDatabaseOptions{.create = false});
  int64_t id = JobId(o, db);
  report::ReportData data = report::LoadTuningHistory(db, id);
  WriteFileAtomically(o.output, report::RenderHtmlReport(data));
  std::cerr << "tune report: job " << id << " (" << data.tasks.size() << " tasks, " << data.records
            << " measured candidates) written to " << o.output << "\n";
  if (o.json) {
    nlohmann::json out = {{"job", id},
                          {"output", o.output},
                          {"tasks", data.tasks.size()},
                          {"records", data.records},
                          {"errors", data.errors},
                          {"estimated_latency_s", data.total_weighted_seconds
                                                      ? nlohmann::json(*data.total_weighted_seconds)
                                                      : nlohmann::json(nullptr)}};
    std::cout << out.dump() << "\n";
  }
  return 0;
}

}  // namespace

Command RegisterReportCommand(CLI::App& parent) {
  auto options = std::make_shared<ReportOptions>();
  CLI::App* app = parent.add_subcommand(
      "report", "Write an HTML page about a tuning job: task table and tuning curves");
  app->add_option("job", options->job, "the job id, or `last` for the newest job")->required();
  app->add_option("-o,--output", options->output, "the HTML file to write")->required();
  app->add_option("--db", options->db,
                  "the tuning database (default: $KILN_DB, else ~/.cache/kiln/tuning.db)");
  app->add_flag("--json", options->json, "print one JSON object on the last line");
  return {app, [options]() { return Run(*options); }};
}

}  // namespace kiln::cli
