// kiln.Database: the queries of `tune db` (list, best, history) and TVM's JSON database in and
// out (database/tvm_json_database.h), each result the object `tune db ... --json` prints.
#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>

#include <filesystem>

#include "cli/commands/embedded_service.h"
#include "database/tvm_json_database.h"
#include "python/src/bindings.h"
#include "python/src/database.h"
#include "python/src/json_value.h"
#include "support/error.h"

namespace nb = nanobind;

namespace kiln::python {

database::SqliteDatabase& PyDatabase::Get() {
  KILN_CHECK(db != nullptr, ErrorKind::kIO, path + ": the database was closed");
  return *db;
}

namespace {

nb::object OptionalSeconds(std::optional<double> seconds) {
  return seconds ? nb::cast(*seconds) : nb::none();
}

nb::dict RecordDict(const database::TuningRecord& r) {
  nb::dict out;
  out["id"] = r.id;
  out["hash"] = r.workload_hash;
  out["target"] = r.target;
  out["device"] = r.device;
  out["error_kind"] = std::string(runtime::MeasureErrorKindName(r.result.error_kind));
  out["message"] = r.result.message;
  out["latency_s"] = r.result.ok() ? nb::cast(r.result.median_seconds) : nb::none();
  nb::list runs;
  for (double s : r.result.repeat_seconds) runs.append(s);
  out["run_seconds"] = runs;
  out["contention"] = r.result.contention;
  out["build_seconds"] = r.result.build_seconds;
  out["worker"] = r.worker;
  out["job"] = r.job_id;
  out["created_unix"] = r.created_unix;
  try {
    out["trace"] = JsonToPython(r.trace_json);
  } catch (const nb::python_error&) {
    out["trace"] = r.trace_json;
  }
  return out;
}

nb::list SkippedList(const std::vector<database::TvmSkippedLine>& skipped) {
  nb::list out;
  for (const auto& s : skipped) {
    nb::dict line;
    line["file"] = s.file;
    line["line"] = s.line;
    line["reason"] = s.reason;
    out.append(line);
  }
  return out;
}

// A task's hash, or the hash itself.
std::string HashOf(nb::handle task) {
  if (nb::isinstance<nb::str>(task)) return nb::cast<std::string>(task);
  KILN_CHECK(nb::hasattr(task, "hash"), ErrorKind::kParse,
             "task: a kiln.Task or a workload hash expected");
  return nb::cast<std::string>(task.attr("hash"));
}

}  // namespace

void BindDatabase(nb::module_& m) {
  nb::class_<PyDatabase>(m, "Database",
                         "A tuning database (SQLite): every measurement tune stores, the best "
                         "records compile uses. Database() is the default one `tune run` uses "
                         "($KILN_DB, else ~/.cache/kiln/tuning.db).")
      .def(
          "__init__",
          [](PyDatabase* self, const std::optional<std::string>& path, bool create) {
            std::string resolved = cli::EmbeddedDatabasePath(path.value_or(""));
            auto db = std::make_unique<database::SqliteDatabase>(
                resolved, database::SqliteDatabaseOptions{.create = create});
            new (self) PyDatabase{resolved, std::move(db)};
          },
          nb::arg("path") = nb::none(), nb::arg("create") = true,
          "Opens (and with create=True makes) the database file at `path`; None is the "
          "default path. kiln.IOError when it cannot be opened, or is of a schema version this "
          "build does not read.")
      .def_ro("path", &PyDatabase::path, "The database file.")
      .def(
          "close", [](PyDatabase& self) { self.db.reset(); },
          "Closes the file; a later query raises kiln.IOError.")
      .def(
          "__enter__", [](nb::handle self) { return self; }, "Returns the database.")
      .def(
          "__exit__", [](PyDatabase& self, nb::args) { self.db.reset(); }, "Closes the database.")
      .def(
          "list",
          [](PyDatabase& self) {
            nb::list out;
            for (const auto& w : self.Get().ListWorkloads()) {
              nb::dict row;
              row["hash"] = w.hash;
              row["name"] = w.name;
              row["target"] = w.target;
              row["device"] = w.device;
              row["records"] = w.records;
              row["best_latency_s"] = OptionalSeconds(w.best_seconds);
              out.append(row);
            }
            return out;
          },
          "Every workload measured, per target and device: dicts with hash, name, target, "
          "device, records and best_latency_s (None when every record failed), as `tune db "
          "list --json`.")
      .def(
          "best",
          [](PyDatabase& self, nb::handle task, int64_t k, const std::string& target,
             const std::string& device) {
            KILN_CHECK(k > 0, ErrorKind::kParse, "k: must be positive, not " + std::to_string(k));
            std::string hash = HashOf(task);
            database::SqliteDatabase& db = self.Get();
            nb::list out;
            bool known = false;
            for (const auto& w : db.ListWorkloads()) {
              if (w.hash != hash) continue;
              known = true;
              if (!target.empty() && w.target != target) continue;
              if (!device.empty() && w.device != device) continue;
              for (const auto& r : db.TopK(w.hash, w.target, w.device, k))
                out.append(RecordDict(r));
            }
            KILN_CHECK(known || db.GetWorkload(hash).has_value(), ErrorKind::kParse,
                       "task: no workload with hash " + hash + " in " + db.path());
            return out;
          },
          nb::arg("task"), nb::arg("k") = 5, nb::arg("target") = "", nb::arg("device") = "",
          "The k fastest correct records of a workload (a kiln.Task or its hash) per target and "
          "device, fastest first: dicts with id, hash, target, device, latency_s, run_seconds, "
          "trace (MetaSchedule's JSON), ..., as `tune db best --json`. kiln.ParseError when the "
          "database has no such workload.")
      .def(
          "history",
          [](PyDatabase& self, nb::handle task, const std::string& target,
             const std::string& device, int64_t job, int64_t limit) {
            KILN_CHECK(limit > 0, ErrorKind::kParse,
                       "limit: must be positive, not " + std::to_string(limit));
            nb::list out;
            for (const auto& r :
                 self.Get().History({.workload_hash = task.is_none() ? "" : HashOf(task),
                 .target = target,
                 .device = device,
                 .job_id = job,
                 .limit = limit})) {
              out.append(RecordDict(r));
            }
            return out;
          },
          nb::arg("task") = nb::none(), nb::arg("target") = "", nb::arg("device") = "",
          nb::arg("job") = 0, nb::arg("limit") = 20,
          "The newest records, newest first (failed ones too), optionally of one workload, "
          "target, device or job.")
      .def(
          "jobs",
          [](PyDatabase& self) {
            nb::list out;
            for (const database::Job& j : self.Get().ListJobs()) {
              nb::dict job;
              job["id"] = j.id;
              job["model"] = j.model;
              job["target"] = j.target;
              job["state"] = std::string(database::JobStateName(j.state));
              job["error"] = j.error;
              job["trials_done"] = j.trials_done;
              job["trials_total"] = j.trials_total;
              out.append(job);
            }
            return out;
          },
          "Every tuning job, newest first: dicts with id, model, target, state ('queued', "
          "'running', 'done', 'failed', 'cancelled'), error, trials_done and trials_total.")
      .def(
          "count", [](PyDatabase& self) { return self.Get().CountRecords(); },
          "How many records the database holds.")
      .def(
          "import_tvm",
          [](PyDatabase& self, const std::string& dir, const std::string& device,
             const std::string& target) {
            for (std::string_view name : {database::kTvmWorkloadFile, database::kTvmRecordFile}) {
              std::filesystem::path file = std::filesystem::path(dir) / name;
              KILN_CHECK(
                  std::filesystem::is_regular_file(file), ErrorKind::kIO,
                  file.string() + ": cannot be read (import_tvm reads TVM's JSONDatabase folder)");
            }
            database::TvmImportReport report = database::ImportTvmJsonDatabase(
                dir, self.Get(), {.target = target, .device = device});
            nb::dict out;
            out["db"] = self.path;
            out["workloads_read"] = report.workloads_read;
            out["workloads_added"] = report.workloads_added;
            out["records_read"] = report.records_read;
            out["records_added"] = report.records_added;
            out["records_present"] = report.records_present;
            out["skipped"] = SkippedList(report.skipped);
            return out;
          },
          nb::arg("dir"), nb::arg("device"), nb::arg("target") = "",
          "Reads TVM's JSON tuning database (the folder MetaSchedule's JSONDatabase writes) "
          "into this one. `device` is the device key the records were measured on (TVM's "
          "files do not name it), e.g. 'cpu-zen4'. Returns the counts and each skipped line "
          "with its reason, as `tune db import --json`.")
      .def(
          "export_tvm",
          [](PyDatabase& self, const std::string& dir, const std::string& target,
             const std::string& device, bool only_imported) {
            database::TvmExportReport report = database::ExportTvmJsonDatabase(
                self.Get(), dir,
                {.target = target, .device = device, .only_imported = only_imported});
            nb::dict out;
            out["dir"] = dir;
            out["workloads"] = report.workloads;
            out["records"] = report.records;
            out["kiln_records"] = report.kiln_records;
            out["skipped"] = SkippedList(report.skipped);
            return out;
          },
          nb::arg("dir"), nb::arg("target") = "", nb::arg("device") = "",
          nb::arg("only_imported") = false,
          "Writes the database in TVM's JSON tuning database shape into `dir`, for "
          "MetaSchedule's JSONDatabase, as `tune db export --json`. only_imported=True keeps "
          "only the records imported from TVM (TVM replays every record when it loads).")
      .def("__repr__", [](const PyDatabase& self) { return "<kiln.Database " + self.path + ">"; });
}

}  // namespace kiln::python
