// The wire messages as plain C++ values: what the coordinator, the worker and the CLI build
// and read. convert.h turns them into Cap'n Proto bytes (kiln.capnp) and back, so that no code
// above this layer touches Cap'n Proto builders or readers.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "ir/dtype.h"
#include "runtime/measure_result.h"
#include "runtime/timing.h"

namespace kiln::schemas {

struct RegisterMsg {
  std::string worker_id;
  std::string device_key;
  std::string target;
  bool can_build = true;
  bool can_run = true;
  uint32_t concurrency = 1;
  std::string hardware;
  std::string hostname;
  uint32_t vector_bytes = 0;  // widest SIMD register; 0: unknown
  uint32_t num_cores = 0;     // cores a parallel kernel may use; 0: unknown
  // A GPU's (0: unknown, or not a GPU): threads and shared memory per block, warp size, and
  // what it computes beyond float32 ("fp16", "fp64", "int64").
  uint32_t max_threads_per_block = 0;
  uint32_t max_shared_bytes = 0;
  uint32_t warp_size = 0;
  std::vector<std::string> features = {};
  bool operator==(const RegisterMsg&) const = default;
};

struct RegisteredMsg {
  bool accepted = false;
  std::string reason;
  uint32_t heartbeat_interval_ms = 1000;
  bool operator==(const RegisteredMsg&) const = default;
};

struct HeartbeatMsg {
  std::string worker_id;
  uint32_t in_flight = 0;
  bool operator==(const HeartbeatMsg&) const = default;
};

struct WorkloadText {
  std::string hash;
  std::string name;
  std::string tvmscript;
  bool operator==(const WorkloadText&) const = default;
};

// A parameter of a call whose values the client gives (kiln.capnp's GivenParam).
struct GivenParamMsg {
  std::string name;
  bool scalar = false;
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<int64_t> shape;
  std::string input;  // raw elements
  bool written = false;
  std::string expected;  // raw elements after a correct call; empty unless written
  int64_t int_value = 0;
  double float_value = 0;
  bool operator==(const GivenParamMsg&) const = default;
};

// A tensor parameter after a call (kiln.capnp's CallTensor).
struct CallTensorMsg {
  uint32_t param = 0;
  ir::DataType dtype = ir::DataType::Float(32);
  std::vector<int64_t> shape;
  std::string data;  // raw elements
  bool operator==(const CallTensorMsg&) const = default;
};

struct CandidateMsg {
  uint64_t id = 0;
  std::string workload_hash;
  std::string scheduled;  // TVMScript of the scheduled function
  std::string trace;      // JSON
  std::map<std::string, int64_t> dims;
  std::vector<GivenParamMsg> given = {};  // empty: seeded inputs, the worker's reference
  bool return_outputs = false;
  bool operator==(const CandidateMsg&) const = default;
};

struct MeasureSettings {
  std::string target = "llvm";
  runtime::TimingConfig timing;
  double build_time_limit_s = 60;
  double run_time_limit_s = 30;
  uint64_t input_seed = 1;
  uint32_t num_threads = 0;
  bool operator==(const MeasureSettings& o) const {
    return target == o.target && timing.number == o.timing.number &&
           timing.repeat == o.timing.repeat && timing.min_repeat_ms == o.timing.min_repeat_ms &&
           timing.flush_cache == o.timing.flush_cache && timing.warmup == o.timing.warmup &&
           build_time_limit_s == o.build_time_limit_s && run_time_limit_s == o.run_time_limit_s &&
           input_seed == o.input_seed && num_threads == o.num_threads;
  }
};

struct MeasureBatchMsg {
  uint64_t batch_id = 0;
  MeasureSettings settings;
  std::vector<WorkloadText> workloads;  // those the worker has not been sent yet
  std::vector<CandidateMsg> candidates;
  bool operator==(const MeasureBatchMsg&) const = default;
};

struct CandidateResultMsg {
  uint64_t id = 0;
  runtime::MeasureResult result;
  std::string machinery_error = {};         // the worker failed, not the candidate
  std::vector<CallTensorMsg> outputs = {};  // with CandidateMsg::return_outputs
};

struct ResultsMsg {
  uint64_t batch_id = 0;
  std::string worker_id;
  std::vector<CandidateResultMsg> results;
};

struct SubmitMsg {
  std::string model;
  std::string model_bytes;
  std::string target = "llvm";
  std::string device;
  uint64_t trials = 0;
  std::string options = "{}";
  bool operator==(const SubmitMsg&) const = default;
};

struct SubmittedMsg {
  uint64_t job_id = 0;
  bool operator==(const SubmittedMsg&) const = default;
};

struct TaskProgressMsg {
  uint32_t index = 0;
  std::string name;
  uint64_t trials_done = 0;
  uint64_t trials_total = 0;
  double best_seconds = 0;  // 0 when none
  double weight = 1;
  double flop = 0;             // per call; 0: unknown
  double untuned_seconds = 0;  // 0: not measured
  bool done = false;           // no more trials will be spent on it
  bool operator==(const TaskProgressMsg&) const = default;
};

struct JobEventMsg {
  uint64_t job_id = 0;
  std::string state;  // database::JobStateName
  uint64_t trials_done = 0;
  uint64_t trials_total = 0;
  std::vector<TaskProgressMsg> tasks;
  std::string message;
  std::string model;
  std::string target;
  double elapsed_s = 0;     // of the job's current run
  std::string client = {};  // who submitted it (short form); empty: no client's
  bool operator==(const JobEventMsg&) const = default;
};

struct CancelMsg {
  uint64_t job_id = 0;
  bool operator==(const CancelMsg&) const = default;
};

struct QueryMsg {
  enum class Kind { kJobStatus, kListJobs, kListWorkers, kWatch };
  Kind kind = Kind::kListJobs;
  uint64_t job_id = 0;  // for kJobStatus and kWatch
  bool operator==(const QueryMsg&) const = default;
};

struct WorkerInfoMsg {
  std::string worker_id;
  std::string device_key;
  std::string target;
  std::string state;  // idle, busy, lost
  uint32_t in_flight = 0;
  double last_seen_s = 0;
  std::string hardware;
  bool operator==(const WorkerInfoMsg&) const = default;
};

struct WorkerListMsg {
  std::vector<WorkerInfoMsg> workers;
  bool operator==(const WorkerListMsg&) const = default;
};

struct JobListMsg {
  std::vector<JobEventMsg> jobs;
  bool operator==(const JobListMsg&) const = default;
};

struct ErrorMsg {
  std::string kind;  // kiln::ErrorKindName
  std::string message;
  bool operator==(const ErrorMsg&) const = default;
};

using Message = std::variant<RegisterMsg, RegisteredMsg, HeartbeatMsg, MeasureBatchMsg, ResultsMsg,
                             SubmitMsg, SubmittedMsg, JobEventMsg, CancelMsg, QueryMsg,
                             WorkerListMsg, JobListMsg, ErrorMsg>;

// "register", "measure_batch", ...: for logs and metrics.
const char* MessageName(const Message& message);

}  // namespace kiln::schemas
