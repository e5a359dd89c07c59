// Reference outputs of a workload: seeded random inputs for every parameter and the values
// every parameter must hold after one correct call, computed once per (workload structural
// hash, dims, input seed) and kept in memory and on disk (content-addressed, written
// atomically), so that every candidate of a workload, in this process or another, is
// compared against the same reference without running the interpreter again.
//
// How the reference is made depends on what the interpreter can afford (its cost estimated
// from the loop nest, runtime/interpreter_cost.h):
//  - within the budget: the interpreter runs the whole workload ("interpreter, full");
//  - beyond it: a trusted build, the unscheduled workload through the plain C path, is run
//    in the sandbox and its outputs become the reference, after the interpreter has checked
//    it on a window of the output (runtime/output_window.h) at the real size and on the same
//    inputs. A trusted build that disagrees with the interpreter is an error, never a
//    reference.
#pragma once

#include <cstdint>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ir/function.h"
#include "ir/host_tensor.h"
#include "runtime/cpu_builder.h"
#include "runtime/sandbox_protocol.h"

namespace kiln::runtime {

struct ReferenceOptions {
  // Where references are stored (under references/); empty: DefaultCacheDir().
  std::string cache_dir = {};
  // Interpreter stores (runtime/interpreter_cost.h) allowed per workload: about 2 s.
  int64_t interpreter_budget = 8'000'000;
  // Past the budget a window is used; a window (or, without one, the whole workload) that
  // still costs more than this is refused with kiln::Error(kUnsupported).
  int64_t interpreter_limit = 200'000'000;
  // The trusted build: compiler, flags and limits, and the sandbox that runs it.
  BuildOptions build = {};
  double run_time_limit_s = 120;
  std::string sandbox_path = {};
  std::vector<std::string> extra_env = {};
};

struct ReferenceParam {
  std::string name;         // the buffer or scalar parameter's name
  ArgSpec input;            // how a kernel receives it: a tensor file, or a scalar value
  bool written = false;     // the workload writes it (an output)
  ir::HostTensor expected;  // a tensor parameter's value after a correct call
};

struct Reference {
  uint64_t key = 0;
  std::string workload_hash;  // StructuralHashHex of the workload
  uint64_t seed = 0;
  std::vector<ReferenceParam> params;  // one per function parameter
  // How the expected values were made and what was checked, for the measurement record:
  // "interpreter, full" or "trusted build (unscheduled workload, C), verified against the
  // interpreter on relu[40:48, 0:24]".
  std::string source;
  std::string directory;   // where it is stored
  bool from_disk = false;  // loaded from an earlier run's cache
};

// The key of a reference: StableHasher over a format version, the workload's structural
// hash, the dims (sorted by name) and the seed.
uint64_t ReferenceKey(const ir::PrimFunc& workload, const std::map<std::string, int64_t>& dims,
                      uint64_t seed);

// Empty when `scheduled` takes the parameters the reference was made for (same count, kinds,
// dtypes and concrete shapes, with symbolic dims valued from `dims`); otherwise what differs.
std::string ParameterMismatch(const ir::PrimFunc& scheduled, const Reference& reference,
                              const std::map<std::string, int64_t>& dims);

class ReferenceStore {
 public:
  explicit ReferenceStore(ReferenceOptions options = {});

  // The reference of `workload` (unscheduled) with symbolic dims valued from `dims`, on
  // inputs drawn from `seed`. Computed at most once per key by this store (concurrent
  // callers wait for the first); later stores find it on disk. Throws kiln::Error when no
  // reference can be established (the interpreter fails on the workload, the trusted build
  // fails or disagrees with the interpreter, the check would cost past the limit).
  std::shared_ptr<const Reference> Get(const ir::PrimFunc& workload,
                                       const std::map<std::string, int64_t>& dims, uint64_t seed);

  const ReferenceOptions& options() const { return options_; }

 private:
  std::shared_ptr<const Reference> Compute(const ir::PrimFunc& workload,
                                           const std::map<std::string, int64_t>& dims,
                                           uint64_t seed, uint64_t key);

  ReferenceOptions options_;
  std::mutex mutex_;
  std::map<uint64_t, std::shared_future<std::shared_ptr<const Reference>>> references_;
};

// On-disk form (reference_disk.cc): DIR/meta.json plus one raw tensor file per tensor
// parameter for its input (inN.bin) and, when written, its expected value (outN.bin).
// Saving writes a private directory and renames it into place; a directory that already
// exists (another process was first) is kept.
void SaveReference(const Reference& reference, const std::string& directory);
// Loads and validates a saved reference; kiln::Error(kParse or kIO) naming the file when it
// is malformed or incomplete.
std::shared_ptr<Reference> LoadReference(const std::string& directory);

}  // namespace kiln::runtime
