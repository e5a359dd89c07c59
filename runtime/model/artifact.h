// The model artifact that `tune compile` writes and the executor loads: a directory (by
// convention named MODEL.kiln) holding
//
//   manifest.json   format version, Kiln version, target, device key, the bound dims, one entry
//                   per task (workload hash, the tuning record used or "untuned", its latency,
//                   kernel, library or view, how it is implemented and the times the compiler
//                   measured when it chose) and the size and FNV-1a checksum of each file below
//   graph.json      the compiled graph (runtime/model/graph.h): with shape buckets, the
//                   fallback, symbolic in the bucketed dims and correct at any value
//   graph.bucketN.json  the graph of bucket N, specialised to its dims (its tuned kernels)
//   constants.bin   the weights, each at a 64-byte aligned offset
//   kernels.so      every kernel of the model in one shared library
//
// Loading checks, before anything is run or mapped: the format version (a newer one is refused
// with the version it has and the one this build reads), the target and device key (a model
// compiled for another is refused, naming both), then each file's size and checksum (a
// truncated or corrupted file is a kiln::Error naming it), then the graph's validity, then
// that every library function the graph calls is one this build registers
// (runtime/model/library_function.h), with valid attributes.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "ir/host_tensor.h"
#include "runtime/model/graph.h"

namespace kiln::runtime::model {

// Bump when the layout of the directory or of a file in it changes; pinned by a test.
// 2: library calls in the graph (kernels[].library), tasks of kind "library", "impl" and the
// compile-time times per task. 3: shape buckets (a graph per bucket beside graph.json, the
// fallback), the dims that may be padded, and checked views (values[].check). Versions 1 and
// 2 still load.
inline constexpr int kArtifactFormatVersion = 3;
// At most this many bucket graphs (ir/model/shape_buckets.h's limit).
inline constexpr size_t kMaxArtifactBuckets = 64;
inline constexpr char kKilnVersion[] = "0.1.0";
// Exported by kernels.so beside the kernels: sets the OpenMP threads of the kernels (slot 0).
inline constexpr char kSetThreadsSymbol[] = "kiln_model_set_num_threads";

inline constexpr char kManifestFile[] = "manifest.json";
inline constexpr char kGraphFile[] = "graph.json";
inline constexpr char kConstantsFile[] = "constants.bin";
inline constexpr char kKernelsFile[] = "kernels.so";

struct ManifestTask {
  std::string name;
  std::string workload_hash;
  std::string kind = "kernel";       // "kernel", "library" or "view"
  std::optional<int64_t> record_id;  // none: untuned (or a view)
  std::optional<double> latency_s;   // the record's median latency
  std::string symbol;                // the kernel's symbol (the epilogue's for a library task)
  // How the task runs: "kernel", "view", "library:dnnl_sgemm" or
  // "library:dnnl_sgemm+epilogue" (a library call, then a generated kernel for the rest).
  std::string impl = "kernel";
  std::optional<double> kernel_s = {};   // the kernel as measured by the compiler when choosing
  std::optional<double> library_s = {};  // the library variant, likewise
};

// A shape bucket: the model specialised to values of some symbolic dims, with its own graph.
struct ManifestBucket {
  std::string name;                     // "seq_len=32"
  std::map<std::string, int64_t> dims;  // the values it was specialised to
  std::string graph;                    // its graph's file, "graph.bucket0.json"
  std::vector<ManifestTask> tasks;
};

struct ManifestFile {
  std::string name;
  uint64_t bytes = 0;
  std::string checksum;  // FNV-1a 64 of the contents, 16 hex digits
};

struct Manifest {
  int format_version = kArtifactFormatVersion;
  std::string kiln_version = kKilnVersion;
  std::string target;
  std::string device_key;
  std::string model;                          // what it was compiled from
  std::string entry;                          // the Relax function compiled
  std::map<std::string, int64_t> bound_dims;  // symbolic dims fixed at compile time
  std::vector<ManifestTask> tasks;            // graph.json's
  std::vector<ManifestBucket> buckets;        // in the order the executor prefers them
  // Dims along which a bucket may serve a smaller value, its inputs padded and its outputs cut
  // back (compiler/padding.h proved it exact); the reason for each of the others.
  std::vector<std::string> paddable_dims;
  std::map<std::string, std::string> unpaddable_dims;
  std::vector<ManifestFile> files;
};

// "graph.bucket3.json".
std::string BucketGraphFile(size_t index);

nlohmann::json ManifestToJson(const Manifest& manifest);
// kiln::Error(kParse) naming the field on any fault; a newer format version is refused here
// (kUnsupported), before any other field is read.
Manifest ManifestFromJson(const nlohmann::json& json);

// FNV-1a 64 of `bytes`, as 16 hex digits.
std::string Checksum(const std::string& bytes);

// Writes the artifact directory `dir` (created; files already in it are replaced): the
// manifest gets the files' sizes and checksums. `library_path` is the built kernels library,
// copied in. `bucket_graphs` are the graphs of manifest.buckets, in order, written to the
// files those name.
void WriteArtifact(const std::string& dir, Manifest manifest, const Graph& graph,
                   const std::string& constants, const std::string& library_path,
                   const std::vector<Graph>& bucket_graphs = {});

struct LoadOptions {
  std::string target = {};      // refused when the artifact's differs; empty: not checked
  std::string device_key = {};  // refused when the artifact's differs; empty: not checked
};

struct Artifact {
  std::string dir;
  Manifest manifest;
  Graph graph;                       // graph.json
  std::vector<Graph> bucket_graphs;  // one per manifest.buckets entry
  ir::HostTensor constants;          // constants.bin as uint8, 64-byte aligned
  std::string library_path;
};

// The checks of the header comment on bytes already read: what LoadArtifact does before it
// maps the library, and what the fuzzer drives. `library` is kernels.so's contents (checked
// against the manifest, not otherwise read).
Artifact ParseArtifact(const std::string& manifest_text, const std::string& graph_text,
                       const std::string& constants, const std::string& library,
                       const LoadOptions& options, const std::string& where);
// The same with the buckets' graphs: `bucket_graph_texts` by file name (each that
// manifest.buckets names must be there). Each bucket graph must take the inputs graph.json
// takes (count, dtypes, ranks), and name only dims graph.json has.
Artifact ParseArtifact(const std::string& manifest_text, const std::string& graph_text,
                       const std::map<std::string, std::string>& bucket_graph_texts,
                       const std::string& constants, const std::string& library,
                       const LoadOptions& options, const std::string& where);

// Reads and checks the directory. kiln::Error: kIO for a missing file, kUnsupported for
// another target, device or a newer format, kParse for a corrupted or truncated one.
Artifact LoadArtifact(const std::string& dir, const LoadOptions& options = {});

}  // namespace kiln::runtime::model
