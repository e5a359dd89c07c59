// Writing and checking the artifact directory.
#include "runtime/model/artifact.h"

#include <algorithm>
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

std::string BucketGraphFile(size_t index) {
  return "graph.bucket" + std::to_string(index) + ".json";
}

namespace {

json TasksToJson(const std::vector<ManifestTask>& tasks) {
  json out = json::array();
  for (const ManifestTask& t : tasks) {
    out.push_back({{"name", t.name},
                   {"workload_hash", t.workload_hash},
                   {"kind", t.kind},
                   {"record", t.record_id ? json(*t.record_id) : json("untuned")},
                   {"latency_s", t.latency_s ? json(*t.latency_s) : json()},
                   {"symbol", t.symbol},
                   {"impl", t.impl},
                   {"kernel_s", t.kernel_s ? json(*t.kernel_s) : json()},
                   {"library_s", t.library_s ? json(*t.library_s) : json()}});
  }
  return out;
}

std::map<std::string, int64_t> DimsFromJson(const json& dims, const std::string& where) {
  if (!dims.is_object()) Fail(where, "an object expected");
  std::map<std::string, int64_t> out;
  for (const auto& [name, value] : dims.items()) {
    if (!value.is_number_integer()) Fail(where + "." + name, "an integer expected");
    out[name] = value.get<int64_t>();
  }
  return out;
}

std::vector<ManifestTask> TasksFromJson(const json& tasks, const std::string& where, int64_t v) {
  if (!tasks.is_array()) Fail(where, "an array expected");
  std::vector<ManifestTask> out;
  for (size_t i = 0; i < tasks.size(); ++i) {
    std::string at = where + "[" + std::to_string(i) + "]";
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
    out.push_back(std::move(t));
  }
  return out;
}

}  // namespace

nlohmann::json ManifestToJson(const Manifest& m) {
  json files = json::object();
  for (const ManifestFile& f : m.files) {
    files[f.name] = {{"bytes", f.bytes}, {"fnv1a64", f.checksum}};
  }
  json buckets = json::array();
  for (const ManifestBucket& b : m.buckets) {
    buckets.push_back(
        {{"name", b.name}, {"dims", b.dims}, {"graph", b.graph}, {"tasks", TasksToJson(b.tasks)}});
  }
  return {{"format", "kiln-model"},
          {"format_version", m.format_version},
          {"kiln_version", m.kiln_version},
          {"target", m.target},
          {"device_key", m.device_key},
          {"model", m.model},
          {"entry", m.entry},
          {"bound_dims", m.bound_dims},
          {"tasks", TasksToJson(m.tasks)},
          {"buckets", buckets},
          {"paddable_dims", m.paddable_dims},
          {"unpaddable_dims", m.unpaddable_dims},
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
  m.bound_dims = DimsFromJson(Field(j, "bound_dims", where), where + ".bound_dims");
  m.tasks = TasksFromJson(Field(j, "tasks", where), where + ".tasks", v);
  std::vector<std::string> required = {kGraphFile, kConstantsFile, kKernelsFile};
  if (v >= 3) {
    const json& buckets = Field(j, "buckets", where);
    if (!buckets.is_array()) Fail(where + ".buckets", "an array expected");
    if (buckets.size() > kMaxArtifactBuckets) {
      Fail(where + ".buckets", "more than " + std::to_string(kMaxArtifactBuckets) + " buckets");
    }
    for (size_t i = 0; i < buckets.size(); ++i) {
      std::string at = where + ".buckets[" + std::to_string(i) + "]";
      ManifestBucket b;
      b.name = String(buckets[i], "name", at);
      b.dims = DimsFromJson(Field(buckets[i], "dims", at), at + ".dims");
      if (b.dims.empty()) Fail(at + ".dims", "a bucket binds at least one dim");
      b.graph = String(buckets[i], "graph", at);
      // Only the names the compiler writes: never a path out of the directory.
      if (b.graph != BucketGraphFile(i))
        Fail(at + ".graph", "'" + BucketGraphFile(i) + "' expected");
      b.tasks = TasksFromJson(Field(buckets[i], "tasks", at), at + ".tasks", v);
      required.push_back(b.graph);
      m.buckets.push_back(std::move(b));
    }
    const json& paddable = Field(j, "paddable_dims", where);
    if (!paddable.is_array()) Fail(where + ".paddable_dims", "an array expected");
    for (const json& d : paddable) {
      if (!d.is_string()) Fail(where + ".paddable_dims", "strings expected");
      m.paddable_dims.push_back(d.get<std::string>());
    }
    const json& unpaddable = Field(j, "unpaddable_dims", where);
    if (!unpaddable.is_object()) Fail(where + ".unpaddable_dims", "an object expected");
    for (const auto& [dim, why] : unpaddable.items()) {
      if (!why.is_string()) Fail(where + ".unpaddable_dims." + dim, "a string expected");
      m.unpaddable_dims[dim] = why.get<std::string>();
    }
  }
  const json& files = Field(j, "files", where);
  if (!files.is_object()) Fail(where + ".files", "an object expected");
  for (const std::string& name : required) {
    std::string at = where + ".files." + name;
    const json& f = Field(files, name.c_str(), where + ".files");
    const json& bytes = Field(f, "bytes", at);
    if (!bytes.is_number_unsigned()) Fail(at + ".bytes", "a non-negative integer expected");
    m.files.push_back({name, bytes.get<uint64_t>(), String(f, "fnv1a64", at)});
  }
  return m;
}

void WriteArtifact(const std::string& dir, Manifest manifest, const Graph& graph,
                   const std::string& constants, const std::string& library_path,
                   const std::vector<Graph>& bucket_graphs) {
  KILN_CHECK(bucket_graphs.size() == manifest.buckets.size(), ErrorKind::kInternal,
             "WriteArtifact: a graph per bucket expected");
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
  for (size_t b = 0; b < bucket_graphs.size(); ++b) {
    manifest.buckets[b].graph = BucketGraphFile(b);
    std::string text = GraphToJson(bucket_graphs[b]).dump(1);
    manifest.files.push_back({manifest.buckets[b].graph, text.size(), Checksum(text)});
    WriteFileAtomically((fs::path(dir) / manifest.buckets[b].graph).string(), text);
  }
  // The manifest last: a reader never sees a manifest whose files are not all in place.
  WriteFileAtomically((fs::path(dir) / kGraphFile).string(), graph_text);
  WriteFileAtomically((fs::path(dir) / kConstantsFile).string(), constants);
  WriteFileAtomically((fs::path(dir) / kKernelsFile).string(), library);
  WriteFileAtomically((fs::path(dir) / kManifestFile).string(),
                      ManifestToJson(manifest).dump(2) + "\n");
  // Bucket graphs of an earlier compile into this directory that this one does not have.
  for (size_t b = bucket_graphs.size(); b < kMaxArtifactBuckets; ++b) {
    fs::remove(fs::path(dir) / BucketGraphFile(b), ec);
  }
}

namespace {

// The graph in `text`, valid, calling only library functions this build has, with valid
// attributes. `name` is its file's name.
Graph ParseGraph(const std::string& text, const std::string& name, uint64_t constants_bytes,
                 const std::string& where) {
  json graph_json = json::parse(text, nullptr, false);
  KILN_CHECK(!graph_json.is_discarded(), ErrorKind::kParse,
             where + "/" + name + ": not valid JSON");
  Graph g;
  try {
    g = GraphFromJson(graph_json, constants_bytes);
  } catch (const Error& e) {
    throw Error(e.kind(), where + "/" + name + ": " + e.what());
  }
  for (size_t k = 0; k < g.kernels.size(); ++k) {
    const GraphKernel& kernel = g.kernels[k];
    if (kernel.library.empty()) continue;
    const LibraryFunction* f = FindLibraryFunction(kernel.library);
    if (f == nullptr) {
      std::string known;
      for (const std::string& n : LibraryFunctionNames()) known += (known.empty() ? "" : ", ") + n;
      throw Error(ErrorKind::kUnsupported,
                  where + ": the graph calls the library function '" + kernel.library + "' (task " +
                      kernel.task + "), which this build of Kiln does not provide (" +
                      "it has: " + known + "): compile the model again with this build");
    }
    std::vector<ir::DataType> dtypes;
    for (const codegen::ArgSlot& slot : kernel.slots) dtypes.push_back(slot.dtype);
    f->check(kernel.attrs, dtypes,
             where + "/" + name + ": kernels[" + std::to_string(k) + "] (" + kernel.library + ")");
  }
  return g;
}

// A bucket's graph must be callable with the fallback's inputs and outputs.
void CheckBucketGraph(const Graph& fallback, const Graph& bucket, const ManifestBucket& b,
                      const std::string& where) {
  std::string at = where + "/" + b.graph;
  KILN_CHECK(bucket.inputs.size() == fallback.inputs.size() &&
                 bucket.outputs.size() == fallback.outputs.size() &&
                 bucket.tuple_output == fallback.tuple_output,
             ErrorKind::kParse, at + ": its inputs or outputs differ from graph.json's");
  auto same = [&](int64_t x, int64_t y) {
    const GraphValue& a = fallback.values[x];
    const GraphValue& c = bucket.values[y];
    return a.dtype == c.dtype && a.shape.size() == c.shape.size();
  };
  for (size_t i = 0; i < bucket.inputs.size(); ++i) {
    KILN_CHECK(same(fallback.inputs[i], bucket.inputs[i]), ErrorKind::kParse,
               at + ": input " + std::to_string(i) + " differs from graph.json's in dtype or rank");
  }
  for (size_t i = 0; i < bucket.outputs.size(); ++i) {
    KILN_CHECK(
        same(fallback.outputs[i], bucket.outputs[i]), ErrorKind::kParse,
        at + ": output " + std::to_string(i) + " differs from graph.json's in dtype or rank");
  }
  for (const auto& [dim, value] : b.dims) {
    KILN_CHECK(std::find(fallback.dims.begin(), fallback.dims.end(), dim) != fallback.dims.end(),
               ErrorKind::kParse,
               where + ": bucket " + b.name + " binds " + dim + ", which graph.json does not have");
    KILN_CHECK(value > 0, ErrorKind::kParse,
               where + ": bucket " + b.name + " binds " + dim + " to " + std::to_string(value));
  }
}

}  // namespace

Artifact ParseArtifact(const std::string& manifest_text, const std::string& graph_text,
                       const std::string& constants, const std::string& library,
                       const LoadOptions& options, const std::string& where) {
  return ParseArtifact(manifest_text, graph_text, {}, constants, library, options, where);
}

Artifact ParseArtifact(const std::string& manifest_text, const std::string& graph_text,
                       const std::map<std::string, std::string>& bucket_graph_texts,
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
  std::map<std::string, const std::string*> parts = {
      {kGraphFile, &graph_text}, {kConstantsFile, &constants}, {kKernelsFile, &library}};
  for (const ManifestBucket& b : m.buckets) {
    auto it = bucket_graph_texts.find(b.graph);
    KILN_CHECK(it != bucket_graph_texts.end(), ErrorKind::kIO,
               where + "/" + b.graph + ": missing (not a complete model artifact)");
    parts[b.graph] = &it->second;
  }
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
  a.graph = ParseGraph(graph_text, kGraphFile, constants.size(), where);
  for (const ManifestBucket& b : m.buckets) {
    a.bucket_graphs.push_back(ParseGraph(*parts[b.graph], b.graph, constants.size(), where));
    CheckBucketGraph(a.graph, a.bucket_graphs.back(), b, where);
  }
  for (const std::string& dim : m.paddable_dims) {
    KILN_CHECK(std::find(a.graph.dims.begin(), a.graph.dims.end(), dim) != a.graph.dims.end(),
               ErrorKind::kParse,
               where + "/manifest.json: paddable dim " + dim + " is not a dim of graph.json");
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
  std::map<std::string, std::string> bucket_graphs;
  {
    json j = json::parse(manifest, nullptr, false);
    if (j.is_object() && j.contains("buckets") && j["buckets"].is_array()) {
      for (size_t b = 0; b < j["buckets"].size() && b < kMaxArtifactBuckets; ++b) {
        bucket_graphs[BucketGraphFile(b)] = ReadPart(root / BucketGraphFile(b));
      }
    }
  }
  std::string constants = ReadPart(root / kConstantsFile);
  std::string library = ReadPart(root / kKernelsFile);
  Artifact a = ParseArtifact(manifest, graph, bucket_graphs, constants, library, options, dir);
  a.library_path = (root / kKernelsFile).string();
  return a;
}

}  // namespace kiln::runtime::model
