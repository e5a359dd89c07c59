// The request and result files exchanged between a caller (sandbox_client.h) and the
// kiln-sandbox runner, and the raw tensor files beside them. Both are JSON objects carrying
// `"version": kSandboxProtocolVersion`; tensors are raw little-endian element bytes whose
// dtype and shape travel in the JSON. Everything read back is validated: a malformed or
// truncated file is a kiln::Error naming the file and the field, never a crash.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "codegen/kernel_abi.h"
#include "ir/host_tensor.h"
#include "ir/interpreter/interpreter.h"
#include "runtime/cpu_builder.h"
#include "runtime/file_util.h"
#include "runtime/measure_result.h"
#include "runtime/timing.h"

namespace kiln::runtime {

// 2: the timing's early cutoff, and the result's cutoff and kernel_seconds. 3: the cutoff
// "abandoned". 4: the result's contention. 5: the request's cpu_limit_s (the runner is locked
// down before the candidate runs, runtime/sandbox_lockdown.h).
inline constexpr int kSandboxProtocolVersion = 5;

// The runner's exit status when it could not carry out the request (unreadable or malformed
// request, arguments that do not match the signature, a tensor file it could not write): a
// fault of the machinery, which the client reports as such and never charges to the
// candidate. A candidate's own failures come back in the result file or as a signal.
inline constexpr int kSandboxFaultExitStatus = 2;

enum class SandboxPhase {
  kBuild,    // compile the source only
  kRunOnce,  // run once on fresh inputs and dump every tensor argument
  kTime,     // time (after one run whose outputs are dumped, when dump_outputs is set)
};

// The value of one kernel parameter.
struct ArgSpec {
  enum class Kind { kRandomTensor, kTensor, kTensorFile, kInt, kFloat };
  Kind kind = Kind::kRandomTensor;
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<int64_t> shape;
  uint64_t seed = 0;  // kRandomTensor: HostTensor::Random(dtype, shape, seed, low, high)
  double low = -1, high = 1;
  ir::HostTensor tensor;  // kTensor: given data (the client turns it into a kTensorFile)
  std::string path;       // kTensorFile: raw element bytes
  int64_t int_value = 0;
  double float_value = 0;

  static ArgSpec Random(ir::DataType dtype, std::vector<int64_t> shape, uint64_t seed,
                        double low = -1, double high = 1);
  static ArgSpec Tensor(ir::HostTensor tensor);
  static ArgSpec Int(int64_t value);
  static ArgSpec Float(double value);
};

// The argument values `specs` describe; the same specs give the same values in every
// process, so a caller can rebuild a sandbox's inputs for the reference.
std::vector<ir::ArgValue> MaterializeArgs(const std::vector<ArgSpec>& specs);

struct SandboxRequest {
  SandboxPhase phase = SandboxPhase::kTime;
  std::string source_path;   // C source to build first; or
  std::string library_path;  // an already built shared object
  BuildOptions build;
  codegen::KernelSignature signature;
  std::vector<ArgSpec> args;  // one per parameter
  TimingConfig timing;
  // kTime: first run once and write every tensor argument to output_dir, as kRunOnce does.
  bool dump_outputs = false;
  std::string output_dir;
  // CPU seconds (over all threads) past which the locked-down runner is killed, so that one
  // whose client is gone still ends; 0: no limit (SandboxClient sets at most its wall-clock
  // limit on every core).
  double cpu_limit_s = 0;
};

struct TensorFileRef {
  int param_index = 0;
  ir::DataType dtype;
  std::vector<int64_t> shape;
  std::string path;
};

struct SandboxResult {
  MeasureErrorKind error_kind = MeasureErrorKind::kOk;
  std::string message;
  std::string library_path;
  double build_seconds = 0;
  bool build_cache_hit = false;
  std::vector<double> repeat_seconds;
  double median_seconds = 0;
  int number = 0;
  Cutoff cutoff = Cutoff::kNone;  // how the early cutoff shortened the timing
  double contention = 0;          // the timing's (runtime/cpu_wait.h)
  double kernel_seconds = 0;  // the kernel's runs in this request: checked run, warm-up, batches
  std::vector<TensorFileRef> outputs;
};

std::string RequestToJson(const SandboxRequest& request);
// `where` names the source (a file path) in error messages. Throws kiln::Error(kParse).
SandboxRequest RequestFromJson(const std::string& text, const std::string& where);
std::string ResultToJson(const SandboxResult& result);
SandboxResult ResultFromJson(const std::string& text, const std::string& where);

// Raw tensor files. Reading checks that the file holds exactly the bytes dtype and shape
// need (kiln::Error(kIO) naming the file otherwise).
void WriteTensorFile(const ir::HostTensor& tensor, const std::string& path);
void WriteTensorFile(const ir::HostTensor& tensor, PreopenedFile& file);
ir::HostTensor ReadTensorFile(const std::string& path, ir::DataType dtype,
                              const std::vector<int64_t>& shape);

std::string_view SandboxPhaseName(SandboxPhase phase);

}  // namespace kiln::runtime
