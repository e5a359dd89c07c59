// TVM's JSON tuning database in and out of Kiln's (see tvm_json_database.h).
#include "database/tvm_json_database.h"

#include <charconv>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>

#include "ir/structural.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/tvm_json/base64.h"
#include "ir/tvm_json/prim_func_graph.h"
#include "runtime/timing.h"
#include "search/schedule/trace.h"
#include "support/error.h"

namespace kiln::database {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// Run times at or above this are TVM's marker of a failed measurement, not a time.
constexpr double kTvmFailedRunSeconds = 1e9;
// The most records of one workload, target and device that an import compares against.
constexpr int64_t kHistoryLimit = int64_t{1} << 40;

// The lines of a file, with their 1-based numbers, blank lines left out (TVM skips them too).
std::vector<std::pair<int64_t, std::string>> ReadLines(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  KILN_CHECK(in.good(), ErrorKind::kIO, path.string() + ": cannot be read");
  std::vector<std::pair<int64_t, std::string>> out;
  std::string line;
  for (int64_t number = 1; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;
    out.emplace_back(number, std::move(line));
  }
  KILN_CHECK(in.eof(), ErrorKind::kIO, path.string() + ": read failed");
  return out;
}

// The name of the function's last block: what it computes ("C", "relu", "conv2d_nchw").
void LastBlockName(const ir::Stmt& s, std::string& name) {
  if (!s.defined()) return;
  if (const auto* seq = s.as<ir::SeqStmtNode>()) {
    for (const ir::Stmt& item : seq->seq) LastBlockName(item, name);
  } else if (const auto* loop = s.as<ir::ForNode>()) {
    LastBlockName(loop->body, name);
  } else if (const auto* realize = s.as<ir::BlockRealizeNode>()) {
    const ir::BlockNode* block = realize->block_node();
    if (block->name != "root") name = block->name;
    LastBlockName(block->body, name);
  } else if (const auto* branch = s.as<ir::IfThenElseNode>()) {
    LastBlockName(branch->then_case, name);
    LastBlockName(branch->else_case, name);
  } else if (const auto* let = s.as<ir::LetStmtNode>()) {
    LastBlockName(let->body, name);
  }
}

bool IsDecimal(const std::string& text) {
  return !text.empty() && text.size() <= 20 &&
         text.find_first_not_of("0123456789") == std::string::npos;
}

struct ReadWorkload {
  bool ok = false;
  std::string error;  // why it did not read
  ir::PrimFunc func;
  Workload workload;
};

ReadWorkload ReadWorkloadLine(const std::string& line, const std::string& where) {
  ReadWorkload out;
  try {
    json j = json::parse(line, nullptr, false);
    KILN_CHECK(!j.is_discarded(), ErrorKind::kParse, where + ": not JSON");
    KILN_CHECK(j.is_array() && j.size() == 2, ErrorKind::kParse,
               where + ": expected [structural_hash, workload]");
    KILN_CHECK(j[0].is_string() && IsDecimal(j[0].get<std::string>()), ErrorKind::kParse,
               where + ", field 0 (structural_hash): expected a decimal string");
    KILN_CHECK(j[1].is_string(), ErrorKind::kParse,
               where + ", field 1 (workload): expected a string");
    std::string graph = DecodeTvmWorkloadField(j[1].get<std::string>(), where + ", field 1");
    out.func = ir::tvm_json::ReadPrimFuncJson(graph, where + ", field 1");
    out.workload.hash = ir::StructuralHashHex(out.func);
    out.workload.tvmscript = ir::PrintPrimFunc(out.func);
    // Everything Kiln does with a stored workload starts from its text: it must read back.
    KILN_CHECK(ir::StructuralEqual(ir::ParsePrimFunc(out.workload.tvmscript, where), out.func),
               ErrorKind::kUnsupported,
               where + ": Kiln's TensorIR text of the workload does not read back equal");
    std::string block = out.func->name;
    LastBlockName(out.func->body, block);
    out.workload.name = block + " tvm:" + j[0].get<std::string>();
    out.ok = true;
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  return out;
}

runtime::MeasureResult ResultOf(const json& run_secs, const std::string& where) {
  runtime::MeasureResult result;
  if (run_secs.is_null()) {
    result.error_kind = runtime::MeasureErrorKind::kRuntimeError;
    result.message = "TVM recorded no run time (its measurement failed)";
    return result;
  }
  KILN_CHECK(run_secs.is_array() && !run_secs.empty(), ErrorKind::kParse,
             where + ", field run_secs: expected a list of seconds or null");
  bool failed = false;
  for (const json& v : run_secs) {
    KILN_CHECK(v.is_number(), ErrorKind::kParse,
               where + ", field run_secs: " + v.dump() + " is not a number");
    double seconds = v.get<double>();
    KILN_CHECK(std::isfinite(seconds) && seconds > 0, ErrorKind::kParse,
               where + ", field run_secs: " + v.dump() + " is not a positive time");
    failed |= seconds >= kTvmFailedRunSeconds;
    result.repeat_seconds.push_back(seconds);
  }
  if (failed) {
    result.error_kind = runtime::MeasureErrorKind::kRuntimeError;
    result.message = "TVM recorded a failed measurement (run time 1e10)";
    return result;
  }
  result.median_seconds = runtime::Median(result.repeat_seconds);
  return result;
}

// The reason's kind for an error that the trace reader or the replay threw.
std::string TraceFailure(const Error& e, bool replaying) {
  std::string message = e.what();
  if (message.find("unknown instruction kind") != std::string::npos) {
    return "unsupported instruction: " + message;
  }
  if (replaying) return "replay failure: " + message;
  return "malformed record: field trace: " + message;
}

// TVM's ArgInfo list for a function: ["TENSOR", dtype, shape] per tensor parameter, -1 for a
// dimension that is not a constant.
json ArgsInfo(const ir::PrimFunc& func) {
  json out = json::array();
  for (const auto& [param, buffer] : func->buffer_map) {
    json shape = json::array();
    for (const ir::Expr& d : buffer->shape) shape.push_back(ir::AsConstInt(d).value_or(-1));
    out.push_back(json::array({"TENSOR", buffer->dtype.ToString(), shape}));
  }
  return out;
}

void WriteFile(const fs::path& path, const std::string& text) {
  fs::path temporary = path;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    KILN_CHECK(out.good(), ErrorKind::kIO, temporary.string() + ": cannot be written");
    out << text;
    out.close();
    KILN_CHECK(out.good(), ErrorKind::kIO, temporary.string() + ": write failed");
  }
  std::error_code ec;
  fs::rename(temporary, path, ec);
  KILN_CHECK(!ec, ErrorKind::kIO, path.string() + ": cannot be replaced: " + ec.message());
}

// A trace as TVM replays it: a postprocessed trace of Kiln's up to and including its
// EnterPostproc, since TVM's primitives refuse some of Kiln's postprocessing (reductions are
// decomposed before vectorizing) and TVM's JSONDatabase refuses a whole file when one record
// does not replay. TVM's postprocessors complete it when TVM replays it in its search; a trace
// without the mark is written whole.
json TvmReplayableTrace(const json& trace) {
  if (!trace.is_array() || trace.size() != 2 || !trace[0].is_array()) return trace;
  const json& insts = trace[0];
  for (size_t i = 0; i < insts.size(); ++i) {
    if (!insts[i].is_array() || insts[i].empty() || insts[i][0] != search::kEnterPostproc) continue;
    json kept = json::array();
    for (size_t k = 0; k <= i; ++k) kept.push_back(insts[k]);
    json decisions = json::array();
    for (const json& d : trace[1]) {
      if (d.is_array() && !d.empty() && d[0].is_number_integer() &&
          d[0].get<int64_t>() < static_cast<int64_t>(i)) {
        decisions.push_back(d);
      }
    }
    return json::array({kept, decisions});
  }
  return trace;
}

}  // namespace

std::string DecodeTvmWorkloadField(std::string_view field, std::string_view where) {
  size_t start = field.find_first_not_of(" \t\r\n");
  if (start != std::string_view::npos && field[start] == '{') return std::string(field);
  std::vector<uint8_t> bytes = ir::tvm_json::Base64Decode(field, where);
  // TVM 0.24+: an 8-byte little-endian length, then that many bytes of JSON.
  if (bytes.size() >= 8) {
    uint64_t length = 0;
    for (int i = 7; i >= 0; --i) length = (length << 8) | bytes[i];
    if (length == bytes.size() - 8) return std::string(bytes.begin() + 8, bytes.end());
  }
  KILN_CHECK(!bytes.empty() && bytes[0] == '{', ErrorKind::kParse,
             std::string(where) +
                 ": the base64 holds neither a length-prefixed JSON graph nor a JSON graph");
  return std::string(bytes.begin(), bytes.end());
}

std::string EncodeTvmWorkloadField(std::string_view graph_json) {
  std::vector<uint8_t> bytes(8 + graph_json.size());
  uint64_t length = graph_json.size();
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<uint8_t>(length >> (8 * i));
  std::copy(graph_json.begin(), graph_json.end(), bytes.begin() + 8);
  return ir::tvm_json::Base64Encode(bytes);
}

std::string KilnTargetName(const json& tvm_target) {
  std::string kind;
  if (tvm_target.is_object() && tvm_target.contains("kind") && tvm_target["kind"].is_string()) {
    kind = tvm_target["kind"].get<std::string>();
  } else if (tvm_target.is_string()) {
    std::istringstream words(tvm_target.get<std::string>());
    words >> kind;
  }
  static const std::regex kName("[a-z][a-z0-9_]*");
  return std::regex_match(kind, kName) ? kind : "";
}

json TvmTargetJson(const std::string& kiln_target) {
  static const std::map<std::string, std::vector<std::string>> kKeys = {
      {"llvm", {"cpu"}},
      {"c", {"cpu"}},
      {"cuda", {"cuda", "gpu"}},
      {"vulkan", {"vulkan", "gpu"}},
      {"metal", {"metal", "gpu"}},
      {"opencl", {"opencl", "gpu"}},
      {"webgpu", {"webgpu", "gpu"}}};
  auto it = kKeys.find(kiln_target);
  std::vector<std::string> keys =
      it != kKeys.end() ? it->second : std::vector<std::string>{kiln_target};
  return json{{"kind", kiln_target}, {"tag", ""}, {"keys", keys}};
}

TvmImportReport ImportTvmJsonDatabase(const fs::path& dir, Database& db,
                                      const TvmImportOptions& options) {
  KILN_CHECK(!options.device.empty(), ErrorKind::kParse,
             "TVM database import: the device key the records were measured on is required "
             "(TVM's files do not name it)");
  KILN_CHECK(fs::is_directory(dir), ErrorKind::kIO, dir.string() + ": not a folder");
  fs::path workload_file = dir / kTvmWorkloadFile;
  fs::path record_file = dir / kTvmRecordFile;
  auto workload_lines = ReadLines(workload_file);
  auto record_lines = ReadLines(record_file);

  TvmImportReport report;
  auto skip = [&](const fs::path& file, int64_t line, std::string reason) {
    report.skipped.push_back({file.string(), line, std::move(reason)});
  };
  std::vector<ReadWorkload> workloads;
  for (const auto& [number, text] : workload_lines) {
    std::string where = workload_file.string() + ":" + std::to_string(number);
    workloads.push_back(ReadWorkloadLine(text, where));
    if (workloads.back().ok) {
      ++report.workloads_read;
    } else {
      skip(workload_file, number, "unreadable workload: " + workloads.back().error);
    }
  }

  // Decide everything before writing anything.
  std::vector<TuningRecord> records;
  std::set<std::string> seen;
  std::map<std::string, bool> history_loaded;
  for (const auto& [number, text] : record_lines) {
    ++report.records_read;
    std::string where = record_file.string() + ":" + std::to_string(number);
    json j = json::parse(text, nullptr, false);
    if (j.is_discarded() || !j.is_array() || j.size() != 2 || !j[0].is_number_integer() ||
        !j[1].is_array() || j[1].size() != 4) {
      skip(record_file, number,
           "malformed record: expected [workload_line, [trace, run_secs, target, args_info]]");
      continue;
    }
    int64_t index = j[0].get<int64_t>();
    if (index < 0 || index >= static_cast<int64_t>(workloads.size())) {
      skip(record_file, number,
           "malformed record: field workload_line: " + std::to_string(index) +
               " is not a line of " + workload_file.string() + " (it has " +
               std::to_string(workloads.size()) + " workloads)");
      continue;
    }
    const ReadWorkload& workload = workloads[index];
    if (!workload.ok) {
      skip(record_file, number,
           "unreadable workload: its workload (line " +
               std::to_string(workload_lines[index].first) + " of " + workload_file.string() +
               ") did not read");
      continue;
    }
    std::string target = options.target.empty() ? KilnTargetName(j[1][2]) : options.target;
    if (target.empty()) {
      skip(record_file, number,
           "no target: field target " + j[1][2].dump().substr(0, 60) +
               " names no target kind (give --target)");
      continue;
    }
    search::Trace trace;
    try {
      trace = search::Trace::FromJSON(j[1][0]);
    } catch (const Error& e) {
      skip(record_file, number, TraceFailure(e, false));
      continue;
    }
    try {
      search::ReplayTrace(workload.func, trace);
    } catch (const Error& e) {
      skip(record_file, number, TraceFailure(e, true));
      continue;
    }
    TuningRecord record;
    try {
      record.result = ResultOf(j[1][1], where);
    } catch (const Error& e) {
      skip(record_file, number, std::string("malformed record: ") + e.what());
      continue;
    }
    record.workload_hash = workload.workload.hash;
    record.target = target;
    record.device = options.device;
    record.trace_json = trace.ToJSON().dump();
    record.worker = std::string(kTvmImportWorker);

    // The same record already stored (or earlier in these files) is not added twice.
    std::string group = record.workload_hash + "\n" + target + "\n" + options.device;
    if (!history_loaded[group]) {
      history_loaded[group] = true;
      for (const TuningRecord& r : db.History({.workload_hash = record.workload_hash,
                                   .target = target,
                                   .device = options.device,
                                   .limit = kHistoryLimit})) {
        seen.insert(group + "\n" + r.trace_json + "\n" + json(r.result.repeat_seconds).dump());
      }
    }
    if (!seen.insert(group + "\n" + record.trace_json + "\n" +
                     json(record.result.repeat_seconds).dump())
             .second) {
      ++report.records_present;
      continue;
    }
    records.push_back(std::move(record));
  }

  for (const ReadWorkload& w : workloads) {
    if (w.ok && db.CommitWorkload(w.workload)) ++report.workloads_added;
  }
  report.records_added = db.CommitRecords(records);
  return report;
}

TvmExportReport ExportTvmJsonDatabase(Database& db, const fs::path& dir,
                                      const TvmExportOptions& options) {
  TvmExportReport report;
  std::vector<std::string> hashes;
  std::map<std::string, std::vector<WorkloadSummary>> groups;
  for (const WorkloadSummary& w : db.ListWorkloads()) {
    if (!options.target.empty() && w.target != options.target) continue;
    if (!options.device.empty() && w.device != options.device) continue;
    if (!groups.count(w.hash)) hashes.push_back(w.hash);
    groups[w.hash].push_back(w);
  }
  static const std::regex kTvmHash(".* tvm:([0-9]{1,20})$");
  std::string workload_text, record_text;
  for (const std::string& hash : hashes) {
    std::optional<Workload> workload = db.GetWorkload(hash);
    if (!workload) continue;
    ir::PrimFunc func;
    std::string graph;
    try {
      func = ir::ParsePrimFunc(workload->tvmscript, "workload " + hash);
      graph = ir::tvm_json::WritePrimFuncModuleJson(func);
    } catch (const Error& e) {
      report.skipped.push_back(
          {"tuning database", 0, "no TVM form: workload " + hash + ": " + e.what()});
      continue;
    }
    std::smatch match;
    std::string tvm_hash;
    if (std::regex_match(workload->name, match, kTvmHash)) {
      tvm_hash = match[1];
    } else {
      tvm_hash = std::to_string(std::stoull(hash, nullptr, 16));
    }
    int64_t line = report.workloads++;
    workload_text += json::array({tvm_hash, EncodeTvmWorkloadField(graph)}).dump() + "\n";
    json args = ArgsInfo(func);
    for (const WorkloadSummary& group : groups[hash]) {
      std::vector<TuningRecord> records = db.History({.workload_hash = hash,
                                                      .target = group.target,
                                                      .device = group.device,
                                                      .limit = kHistoryLimit});
      // History is newest first; the file is in the order the records were made.
      for (auto it = records.rbegin(); it != records.rend(); ++it) {
        bool imported = it->worker == kTvmImportWorker;
        if (options.only_imported && !imported) continue;
        json trace = json::parse(it->trace_json, nullptr, false);
        if (!imported && !trace.is_discarded()) trace = TvmReplayableTrace(trace);
        if (trace.is_discarded()) {
          report.skipped.push_back(
              {"tuning database", 0,
               "malformed record: record " + std::to_string(it->id) + "'s trace is not JSON"});
          continue;
        }
        const runtime::MeasureResult& m = it->result;
        // TVM keeps no error kind: a failed record is one without run times (or with TVM's
        // 1e10 marker, when it came from TVM so).
        json run_secs = nullptr;
        bool tvm_failure = !m.repeat_seconds.empty();
        for (double s : m.repeat_seconds) tvm_failure &= s >= kTvmFailedRunSeconds;
        if (m.ok()) {
          run_secs =
              m.repeat_seconds.empty() ? std::vector<double>{m.median_seconds} : m.repeat_seconds;
        } else if (tvm_failure) {
          run_secs = m.repeat_seconds;
        }
        record_text +=
            json::array({line, json::array({trace, run_secs, TvmTargetJson(it->target), args})})
                .dump() +
            "\n";
        ++report.records;
        if (!imported) ++report.kiln_records;
      }
    }
  }
  std::error_code ec;
  fs::create_directories(dir, ec);
  KILN_CHECK(!ec, ErrorKind::kIO, dir.string() + ": cannot be created: " + ec.message());
  WriteFile(dir / kTvmWorkloadFile, workload_text);
  WriteFile(dir / kTvmRecordFile, record_text);
  return report;
}

}  // namespace kiln::database
