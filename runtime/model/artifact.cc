// Writing and checking the artifact directory.
#include "runtime/model/artifact.h"

#include <cstdio>
#include <cstring>
#include <filesystem>

#include "runtime/file_util.h"
#include "runtime/model/library_function.h"
#include "support/error.h"
#include "support/stable_hash.h"

namespace kiln::runtime::model {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

[[noreturn]] void Fail(const std::string& where, const std::string& what) {
  throw Error(ErrorKind::kParse, where + ": " + what);
}

const json& Field(const json& object, const char* key, const std::string& where) {
  if (!object.is_object()) Fail(where, "an object expected");
  auto it = object.find(key);
  if (it == object.end()) Fail(where, std::string("field '") + key + "' missing");
  return *it;
}

std::string String(const json& object, const char* key, const std::string& where) {
  const json& v = Field(object, key, where);
  if (!v.is_string()) Fail(where + "." + key, "a string expected");
  return v.get<std::string>();
}

std::string ReadPart(const fs::path& path) {
  std::error_code ec;
  KILN_CHECK(fs::is_regular_file(path, ec), ErrorKind::kIO,
             path.string() + ": missing (not a complete model artifact)");
  return ReadWholeFile(path.string());
}

}  // namespace

std::string Checksum(const std::string& bytes) {
  // FNV-1a over the raw bytes (StableHasher's byte step, without a length prefix).
  StableHasher h;
  for (char c : bytes) h.Byte(static_cast<uint8_t>(c));
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h.value()));
  return buf;
}

nlohmann::json ManifestToJson(const Manifest& m) {
  json tasks = json::array();
  for (const ManifestTask& t : m.tasks) {
    tasks.push_back({{"name", t.name},
                     {"workload_hash", t.workload_hash},
                     {"kind", t.kind},
                     {"record", t.record_id ? json(*t.record_id) : json("untuned")},
                     {"latency_s", t.latency_s ? json(*t.latency_s) : json()},
                     {"symbol", t.symbol},
                     {"impl", t.impl},
                     {"kernel_s", t.kernel_s ? json(*t.kernel_s) : json()},
                     {"library_s", t.library_s ? json(*t.library_s) : json()}});
  }
  json files = json::object();
  for (const ManifestFile& f : m.files) {
    files[f.name] = {{"bytes", f.bytes}, {"fnv1a64", f.checksum}};
  }
  return {{"format", "kiln-model"},
          {"format_version", m.format_version},
          {"kiln_version", m.kiln_version},
          {"target", m.target},
          {"device_key", m.device_key},
          {"model", m.model},
          {"entry", m.entry},
          {"bound_dims", m.bound_dims},
          {"tasks", tasks},
          {"files", files}};
}

Manifest ManifestFromJson(const nlohmann::json& j) {
  const std::string where = "manifest.json";
  Manifest m;
  if (String(j, "format", where) != "kiln-model") Fail(where, "not a Kiln model manifest");
  const json& version = Field(j, "format_version", where);
  if (!version.is_number_integer()) Fail(where + ".format_version", "an integer expected");
  int64_t v = version.get<int64_t>();
  KILN_CHECK(v <= kArtifactFormatVersion, ErrorKind::kUnsupported,
             "the model artifact has format version " + std::to_string(v) +
                 ", newer than the version " + std::to_string(kArtifactFormatVersion) +
                 " this build of Kiln reads: compile the model again with this build, or upgrade");
  KILN_CHECK(v >= 1, ErrorKind::kParse, where + ": format version " + std::to_string(v));
  m.format_version = static_cast<int>(v);
  m.kiln_version = String(j, "kiln_version", where);
  m.target = String(j, "target", where);
  m.device_key = String(j, "device_key", where);
  m.model = String(j, "model", where);
  m.entry = String(j, "entry", where);
  const json& dims = Field(j, "bound_dims", where);
  if (!dims.is_object()) Fail(where + ".bound_dims", "an object expected");
  for (const auto& [name, value] : dims.items()) {
    if (!value.is_number_integer()) Fail(where + ".bound_dims." + name, "an integer expected");
    m.bound_dims[name] = value.get<int64_t>();
  }
  const json& tasks = Field(j, "tasks", where);
  if (!tasks.is_array()) Fail(where + ".tasks", "an array expected");
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string at = where + ".tasks[" + std::to_string(i) + "]";
    ManifestTask t;
    t.name = String(tasks[i], "name", at);
    t.workload_hash = String(tasks[i], "workload_hash", at);
    t.kind = String(tasks[i], "kind", at);
    if (t.kind != "kernel" && t.kind != "view" && (t.kind != "library" || v < 2)) {
      Fail(at + ".kind", v < 2 ? "kernel or view expected" : "kernel, library or view expected");
    }
    const json& record = Field(tasks[i], "record", at);
    if (record.is_number_integer()) {
      t.record_id = record.get<int64_t>();
    } else if (record != "untuned") {
      Fail(at + ".record", "a record id or \"untuned\" expected");
    }
    const json& latency = Field(tasks[i], "latency_s", at);
    if (latency.is_number()) {
      t.latency_s = latency.get<double>();
    } else if (!latency.is_null()) {
      Fail(at + ".latency_s", "a number or null expected");
    }
    t.symbol = String(tasks[i], "symbol", at);
    t.impl = t.kind;
    if (v >= 2) {
      t.impl = String(tasks[i], "impl", at);
      if (t.impl.empty()) Fail(at + ".impl", "empty");
      for (const char* key : {"kernel_s", "library_s"}) {
        const json& seconds = Field(tasks[i], key, at);
        if (seconds.is_number()) {
          (std::string(key) == "kernel_s" ? t.kernel_s : t.library_s) = seconds.get<double>();
        } else if (!seconds.is_null()) {
          Fail(at + "." + key, "a number or null expected");
        }
      }
    }
    m.tasks.push_back(std::move(t));
  }
  const json& files = Field(j, "files", where);
  if (!files.is_object()) Fail(where + ".files", "an object expected");
  for (const char* name : {kGraphFile, kConstantsFile, kKernelsFile}) {
    std::string at = where + ".files." + name;
    const json& f = Field(files, name, where + ".files");
    const json& bytes = Field(f, "bytes", at);
    if (!bytes.is_number_unsigned()) Fail(at + ".bytes", "a non-negative integer expected");
    m.files.push_back({name, bytes.get<uint64_t>(), String(f, "fnv1a64", at)});
  }
  return m;
}

void WriteArtifact(const std::string& dir, Manifest manifest, const Graph& graph,
                   const std::string& constants, const std::string& library_path) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  KILN_CHECK(!ec, ErrorKind::kIO, dir + ": cannot create the artifact directory: " + ec.message());
  std::string graph_text = GraphToJson(graph).dump(1);
  std::string library = ReadWholeFile(library_path);
  manifest.files = {
      {kGraphFile, graph_text.size(), Checksum(graph_text)},
      {kConstantsFile, constants.size(), Checksum(constants)},
      {kKernelsFile, library.size(), Checksum(library)},
  };
  // The manifest last: a reader never sees a manifest whose files are not all in place.
  WriteFileAtomically((fs::path(dir) / kGraphFile).string(), graph_text);
  WriteFileAtomically((fs::path(dir) / kConstantsFile).string(), constants);
  WriteFileAtomically((fs::path(dir) / kKernelsFile).string(), library);
  WriteFileAtomically((fs::path(dir) / kManifestFile).string(),
                      ManifestToJson(manifest).dump(2) + "\n");
}

Artifact ParseArtifact(const std::string& manifest_text, const std::string& graph_text,
                       const std::string& constants, const std::string& library,
                       const LoadOptions& options, const std::string& where) {
  Artifact a;
  json manifest_json = json::parse(manifest_text, nullptr, false);
  KILN_CHECK(!manifest_json.is_discarded(), ErrorKind::kParse,
             where + "/manifest.json: not valid JSON (truncated or corrupted)");
  try {
    a.manifest = ManifestFromJson(manifest_json);
  } catch (const Error& e) {
    throw Error(e.kind(), where + ": " + e.what());
  }
  const Manifest& m = a.manifest;
  KILN_CHECK(options.target.empty() || m.target == options.target, ErrorKind::kUnsupported,
             where + " was compiled for target '" + m.target + "', not '" + options.target +
                 "': compile the model for this target");
  KILN_CHECK(options.device_key.empty() || m.device_key == options.device_key,
             ErrorKind::kUnsupported,
             where + " was compiled for device '" + m.device_key + "', this machine is '" +
                 options.device_key + "': compile the model on (or for) this device");
  const std::pair<const char*, const std::string*> parts[] = {
      {kGraphFile, &graph_text}, {kConstantsFile, &constants}, {kKernelsFile, &library}};
  for (const auto& [name, bytes] : parts) {
    for (const ManifestFile& f : m.files) {
      if (f.name != name) continue;
      KILN_CHECK(f.bytes == bytes->size(), ErrorKind::kParse,
                 where + "/" + name + ": " + std::to_string(bytes->size()) +
                     " bytes, the manifest says " + std::to_string(f.bytes) +
                     " (truncated or replaced)");
      KILN_CHECK(f.checksum == Checksum(*bytes), ErrorKind::kParse,
                 where + "/" + name + ": checksum mismatch (the file is corrupted)");
    }
  }
  json graph_json = json::parse(graph_text, nullptr, false);
  KILN_CHECK(!graph_json.is_discarded(), ErrorKind::kParse, where + "/graph.json: not valid JSON");
  try {
    a.graph = GraphFromJson(graph_json, constants.size());
  } catch (const Error& e) {
    throw Error(e.kind(), where + "/" + e.what());
  }
  for (size_t k = 0; k < a.graph.kernels.size(); ++k) {
    const GraphKernel& kernel = a.graph.kernels[k];
    if (kernel.library.empty()) continue;
    const LibraryFunction* f = FindLibraryFunction(kernel.library);
    if (f == nullptr) {
      std::string known;
      for (const std::string& name : LibraryFunctionNames())
        known += (known.empty() ? "" : ", ") + name;
      throw Error(ErrorKind::kUnsupported,
                  where + ": the graph calls the library function '" + kernel.library + "' (task " +
                      kernel.task + "), which this build of Kiln does not provide (" +
                      "it has: " + known + "): compile the model again with this build");
    }
    std::vector<ir::DataType> dtypes;
    for (const codegen::ArgSlot& slot : kernel.slots) dtypes.push_back(slot.dtype);
    f->check(kernel.attrs, dtypes,
             where + "/graph.json: kernels[" + std::to_string(k) + "] (" + kernel.library + ")");
  }
  a.constants = ir::HostTensor(ir::DataType::UInt(8), {static_cast<int64_t>(constants.size())});
  if (!constants.empty()) std::memcpy(a.constants.data(), constants.data(), constants.size());
  a.dir = where;
  return a;
}

Artifact LoadArtifact(const std::string& dir, const LoadOptions& options) {
  fs::path root(dir);
  std::error_code ec;
  KILN_CHECK(fs::is_directory(root, ec), ErrorKind::kIO,
             dir + ": not a model artifact (a directory written by tune compile expected)");
  std::string manifest = ReadPart(root / kManifestFile);
  // The manifest is checked before the larger files are read, so that a model for another
  // device is refused at once.
  {
    json j = json::parse(manifest, nullptr, false);
    KILN_CHECK(!j.is_discarded(), ErrorKind::kParse,
               dir + "/manifest.json: not valid JSON (truncated or corrupted)");
  }
  std::string graph = ReadPart(root / kGraphFile);
  std::string constants = ReadPart(root / kConstantsFile);
  std::string library = ReadPart(root / kKernelsFile);
  Artifact a = ParseArtifact(manifest, graph, constants, library, options, dir);
  a.library_path = (root / kKernelsFile).string();
  return a;
}

}  // namespace kiln::runtime::model
