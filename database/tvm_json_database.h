// Import and export of TVM's JSON tuning database: the two files `ms.database.JSONDatabase`
// keeps in a folder, one JSON value per line:
//   database_workload.json        [structural_hash, workload], the workload being the IRModule
//                                 as tvm.ir.save_json's graph: base64 of an 8-byte little-endian
//                                 length and the JSON (TVM 0.24+), base64 of the JSON alone
//                                 (older), or the JSON itself;
//   database_tuning_record.json   [workload_line, [trace, run_secs, target, args_info]].
//
// Import reads every workload into Kiln's TensorIR (ir/tvm_json/prim_func_graph.h), and every
// record whose trace Kiln reads and replays on its workload; every line it does not take is
// reported with its file, line and reason (an unreadable workload, an unsupported instruction, a
// replay failure, a malformed field), never dropped silently. Records keep TVM's run_secs as
// their run times. TVM's files name the target (its JSON, whose kind becomes Kiln's target name)
// but not the device, so the caller gives the device key. What is stored is decided before
// anything is written, and the records go in with one transaction: an import that fails adds
// no record and changes nothing stored; a second import of the same files adds nothing.
//
// Export writes the same two files from a Kiln database so that TVM's JSONDatabase loads them.
// TVM finds a workload by its own structural hash, which Kiln does not compute: a workload that
// came from TVM keeps the hash it came with (in its name, "... tvm:<hash>"), and any other is
// written with Kiln's hash as a decimal, which TVM reads but will not match against a module.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "database/database.h"

namespace kiln::database {

inline constexpr std::string_view kTvmWorkloadFile = "database_workload.json";
inline constexpr std::string_view kTvmRecordFile = "database_tuning_record.json";
// The worker name of imported records.
inline constexpr std::string_view kTvmImportWorker = "tvm-json-database";

// One line of TVM's files that import or export did not take, and why.
struct TvmSkippedLine {
  std::string file;    // the file's path
  int64_t line = 0;    // 1-based
  std::string reason;  // starts with the kind: "unreadable workload", "unsupported instruction",
                       // "replay failure", "malformed record", "no target", "no TVM form"
};

struct TvmImportOptions {
  std::string target = {};  // empty: each record's target (its JSON's kind)
  std::string device = {};  // the device key the records were measured on (required)
};

struct TvmImportReport {
  int64_t workloads_read = 0;   // lines of database_workload.json that read
  int64_t workloads_added = 0;  // of them, new to the database
  int64_t records_read = 0;     // lines of database_tuning_record.json
  int64_t records_added = 0;
  int64_t records_present = 0;  // the same record (trace, run times, target, device) was there
  std::vector<TvmSkippedLine> skipped;
};

// Throws kiln::Error (kIO) naming the folder or file when a file is missing or cannot be read,
// or (kParse) when no device key is given; nothing is stored then.
TvmImportReport ImportTvmJsonDatabase(const std::filesystem::path& dir, Database& db,
                                      const TvmImportOptions& options);

struct TvmExportOptions {
  std::string target = {};  // empty: every target
  std::string device = {};  // empty: every device
  // Only the records imported from TVM. TVM's JSONDatabase replays every record when it loads
  // and refuses the whole file when one does not replay; Kiln orders its postprocessing
  // differently (reductions are decomposed before parallel / vectorize), which TVM's primitives
  // refuse. So Kiln's own records are written as their design-space part, through their
  // EnterPostproc (TVM's search completes them with its own postprocessors); a record stored
  // before Kiln wrote the mark is written whole and may still keep the file from loading.
  bool only_imported = false;
};

struct TvmExportReport {
  int64_t workloads = 0;
  int64_t records = 0;
  int64_t kiln_records = 0;             // of them, measured by Kiln (not imported from TVM)
  std::vector<TvmSkippedLine> skipped;  // workloads with no TVM form (file is the database)
};

// Writes both files into `dir` (created when missing; existing files replaced whole). Throws
// kiln::Error(kIO) naming the file when it cannot be written.
TvmExportReport ExportTvmJsonDatabase(Database& db, const std::filesystem::path& dir,
                                      const TvmExportOptions& options);

// The pieces, for tests and tools.
// The JSON graph text of a workload line's second field; kiln::Error(kParse) naming `where`.
std::string DecodeTvmWorkloadField(std::string_view field, std::string_view where);
// The 0.24+ form: base64 of the length-prefixed JSON.
std::string EncodeTvmWorkloadField(std::string_view graph_json);
// Kiln's target name for TVM's target (a JSON object with "kind", or older TVM's string
// "llvm -mcpu=..."); "" when it names none.
std::string KilnTargetName(const nlohmann::json& tvm_target);
// The target JSON TVM builds a Target from, for Kiln's target name.
nlohmann::json TvmTargetJson(const std::string& kiln_target);

}  // namespace kiln::database
