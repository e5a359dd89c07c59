// Fuzzes the model artifact loader (runtime/model/artifact.h) and the .npy reader. The first
// byte chooses what the rest is: 'm' a manifest.json beside a fixed graph, constants and
// library; 'g' a graph.json, with a manifest whose sizes and checksums match it (so the bytes
// reach the graph's validation, not only the checksum); 'n' a .npy file. Every fault must be a
// kiln::Error; a graph that loads is then planned the way the executor plans it (every dim
// bound to a small value, every shape evaluated), which must also end in a value or a
// kiln::Error. A crash, a sanitizer report or another exception is a bug.
#include <cstddef>
#include <cstdint>
#include <string>

#include "runtime/model/artifact.h"
#include "runtime/model/memory_plan.h"
#include "runtime/model/npy.h"
#include "support/error.h"

namespace {

using namespace kiln::runtime::model;

const std::string& FixedLibrary() {
  static const std::string library =
      "\x7f"
      "ELF not a real library: the loader never maps it";
  return library;
}

// The graph planned as the executor would, without kernels: shapes, views, memory.
void Plan(const Graph& g) {
  DimEnv env;
  for (const std::string& d : g.dims) env[d] = 3;
  std::vector<BufferRequest> requests;
  for (size_t i = 0; i < g.values.size(); ++i) {
    uint64_t bytes = g.values[i].dtype.bytes();
    for (const DimExpr& d : g.values[i].shape) {
      int64_t extent = EvaluateDim(d, env);
      if (extent < 0 || __builtin_mul_overflow(bytes, static_cast<uint64_t>(extent), &bytes)) {
        return;
      }
    }
    if (g.values[i].kind == ValueKind::kKernelOutput) {
      requests.push_back({bytes, static_cast<int64_t>(i), static_cast<int64_t>(i) + 1});
    }
  }
  PlanMemory(requests);
}

void Check(const std::string& manifest, const std::string& graph, const std::string& constants) {
  try {
    Artifact a = ParseArtifact(manifest, graph, constants, FixedLibrary(), {}, "fuzz.kiln");
    Plan(a.graph);
  } catch (const kiln::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  std::string constants(64, '\x01');
  switch (data[0]) {
    case 'm':
      Check(rest, "{}", constants);
      break;
    case 'g': {
      Manifest m;
      m.target = "llvm";
      m.device_key = "cpu-fuzz";
      m.files = {{kGraphFile, rest.size(), Checksum(rest)},
                 {kConstantsFile, constants.size(), Checksum(constants)},
                 {kKernelsFile, FixedLibrary().size(), Checksum(FixedLibrary())}};
      Check(ManifestToJson(m).dump(), rest, constants);
      break;
    }
    case 'n':
      try {
        kiln::ir::HostTensor t = ParseNpy(rest, "fuzz.npy");
        SerializeNpy(t);
      } catch (const kiln::Error&) {
      }
      break;
    default:
      break;
  }
  return 0;
}
