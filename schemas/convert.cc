// Message <-> Cap'n Proto: one Write/Read pair per message kind. Reads check what the
// coordinator and worker rely on (known error kinds and query kinds, ids present) so that a
// malformed message stops here.
#include "schemas/convert.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <kj/exception.h>

#include <cmath>
#include <cstring>
#include <optional>

#include "schemas/kiln.capnp.h"
#include "support/error.h"

namespace kiln::schemas {
namespace {

namespace w = ::kiln::schemas::wire;

capnp::Text::Reader AsText(const std::string& s) { return capnp::Text::Reader(s.data(), s.size()); }
std::string Str(capnp::Text::Reader t) { return std::string(t.cStr(), t.size()); }

[[noreturn]] void Malformed(const std::string& what) {
  throw Error(ErrorKind::kParse, "wire message: " + what);
}

// The most elements Kiln reads from one list of a message. Cap'n Proto lets a few bytes claim
// 2^29 elements of an empty struct, which its traversal limit does not count: the length is
// checked before anything is allocated for the elements.
constexpr unsigned kMaxListElements = 1u << 16;

template <typename List>
List Bounded(List list, const char* what) {
  if (list.size() > kMaxListElements) {
    Malformed(std::string(what) + ": " + std::to_string(list.size()) + " elements, at most " +
              std::to_string(kMaxListElements));
  }
  return list;
}

capnp::Data::Reader AsData(const std::string& s) {
  return capnp::Data::Reader(reinterpret_cast<const kj::byte*>(s.data()), s.size());
}
std::string Bytes(capnp::Data::Reader d) {
  return std::string(reinterpret_cast<const char*>(d.begin()), d.size());
}

template <typename Builder>
void WriteShape(Builder list, const std::vector<int64_t>& shape) {
  for (size_t i = 0; i < shape.size(); ++i) list.set(i, shape[i]);
}

// A dtype and shape read from the wire, and the bytes they take: malformed unless the dtype is
// known, every dim non-negative and the element count does not overflow.
struct TensorShape {
  ir::DataType dtype;
  std::vector<int64_t> shape;
  uint64_t bytes = 0;
};
template <typename ShapeList>
TensorShape ReadTensorShape(capnp::Text::Reader dtype, ShapeList dims, const std::string& what) {
  TensorShape t;
  std::optional<ir::DataType> parsed = ir::DataType::Parse(Str(dtype));
  if (!parsed || parsed->is_handle() || parsed->is_void()) {
    Malformed(what + ": unknown dtype '" + Str(dtype).substr(0, 40) + "'");
  }
  t.dtype = *parsed;
  if (dims.size() > 8) Malformed(what + ": more than 8 dims");
  uint64_t count = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && count > (uint64_t{1} << 40) / static_cast<uint64_t>(d))) {
      Malformed(what + ": dim " + std::to_string(d) + " is negative or too large");
    }
    count *= static_cast<uint64_t>(d);
    t.shape.push_back(d);
  }
  t.bytes = count * t.dtype.bytes() * t.dtype.lanes();
  return t;
}

// ---- write ----

void Write(w::Register::Builder b, const RegisterMsg& m) {
  b.setWorkerId(AsText(m.worker_id));
  b.setDeviceKey(AsText(m.device_key));
  b.setTarget(AsText(m.target));
  b.setCanBuild(m.can_build);
  b.setCanRun(m.can_run);
  b.setConcurrency(m.concurrency);
  b.setHardware(AsText(m.hardware));
  b.setHostname(AsText(m.hostname));
  b.setVectorBytes(m.vector_bytes);
  b.setNumCores(m.num_cores);
  b.setMaxThreadsPerBlock(m.max_threads_per_block);
  b.setMaxSharedBytes(m.max_shared_bytes);
  b.setWarpSize(m.warp_size);
  auto features = b.initFeatures(static_cast<unsigned>(m.features.size()));
  for (size_t i = 0; i < m.features.size(); ++i) features.set(i, AsText(m.features[i]));
}

void Write(w::Registered::Builder b, const RegisteredMsg& m) {
  b.setAccepted(m.accepted);
  b.setReason(AsText(m.reason));
  b.setHeartbeatIntervalMs(m.heartbeat_interval_ms);
}

void Write(w::Heartbeat::Builder b, const HeartbeatMsg& m) {
  b.setWorkerId(AsText(m.worker_id));
  b.setInFlight(m.in_flight);
}

void Write(w::MeasureBatch::Builder b, const MeasureBatchMsg& m) {
  b.setBatchId(m.batch_id);
  auto s = b.initSettings();
  s.setTarget(AsText(m.settings.target));
  s.setNumber(static_cast<uint32_t>(m.settings.timing.number));
  s.setRepeat(static_cast<uint32_t>(m.settings.timing.repeat));
  s.setMinRepeatMs(m.settings.timing.min_repeat_ms);
  s.setFlushCache(m.settings.timing.flush_cache);
  s.setWarmup(static_cast<uint32_t>(m.settings.timing.warmup));
  s.setBuildTimeLimitS(m.settings.build_time_limit_s);
  s.setRunTimeLimitS(m.settings.run_time_limit_s);
  s.setInputSeed(m.settings.input_seed);
  s.setNumThreads(m.settings.num_threads);
  auto workloads = b.initWorkloads(static_cast<unsigned>(m.workloads.size()));
  for (size_t i = 0; i < m.workloads.size(); ++i) {
    workloads[i].setHash(AsText(m.workloads[i].hash));
    workloads[i].setName(AsText(m.workloads[i].name));
    workloads[i].setTvmscript(AsText(m.workloads[i].tvmscript));
  }
  auto candidates = b.initCandidates(static_cast<unsigned>(m.candidates.size()));
  for (size_t i = 0; i < m.candidates.size(); ++i) {
    const CandidateMsg& c = m.candidates[i];
    candidates[i].setId(c.id);
    candidates[i].setWorkloadHash(AsText(c.workload_hash));
    candidates[i].setScheduled(AsText(c.scheduled));
    candidates[i].setTrace(AsText(c.trace));
    auto dims = candidates[i].initDims(static_cast<unsigned>(c.dims.size()));
    unsigned j = 0;
    for (const auto& [name, value] : c.dims) {
      dims[j].setName(AsText(name));
      dims[j].setValue(value);
      ++j;
    }
    auto given = candidates[i].initGiven(static_cast<unsigned>(c.given.size()));
    for (size_t k = 0; k < c.given.size(); ++k) {
      const GivenParamMsg& g = c.given[k];
      given[k].setName(AsText(g.name));
      given[k].setScalar(g.scalar);
      given[k].setDtype(AsText(g.dtype.ToString()));
      WriteShape(given[k].initShape(static_cast<unsigned>(g.shape.size())), g.shape);
      given[k].setInput(AsData(g.input));
      given[k].setWritten(g.written);
      given[k].setExpected(AsData(g.expected));
      given[k].setIntValue(g.int_value);
      given[k].setFloatValue(g.float_value);
    }
    candidates[i].setReturnOutputs(c.return_outputs);
  }
}

void Write(w::Results::Builder b, const ResultsMsg& m) {
  b.setBatchId(m.batch_id);
  b.setWorkerId(AsText(m.worker_id));
  auto results = b.initResults(static_cast<unsigned>(m.results.size()));
  for (size_t i = 0; i < m.results.size(); ++i) {
    const runtime::MeasureResult& r = m.results[i].result;
    auto o = results[i];
    o.setId(m.results[i].id);
    std::string kind(runtime::MeasureErrorKindName(r.error_kind));
    o.setErrorKind(AsText(kind));
    o.setMessage(AsText(r.message));
    o.setBuildSeconds(r.build_seconds);
    o.setBuildCacheHit(r.build_cache_hit);
    auto runs = o.initRunSeconds(static_cast<unsigned>(r.repeat_seconds.size()));
    for (size_t j = 0; j < r.repeat_seconds.size(); ++j) runs.set(j, r.repeat_seconds[j]);
    o.setMedianSeconds(r.median_seconds);
    o.setNumber(static_cast<uint32_t>(r.number));
    o.setContention(r.contention);
    o.setCorrectnessChecked(r.correctness_checked);
    o.setMaxAbsError(r.max_abs_error);
    o.setMaxRelError(r.max_rel_error);
    o.setReference(AsText(r.reference));
    const std::vector<CallTensorMsg>& outs = m.results[i].outputs;
    auto outputs = o.initOutputs(static_cast<unsigned>(outs.size()));
    for (size_t k = 0; k < outs.size(); ++k) {
      outputs[k].setParam(outs[k].param);
      outputs[k].setDtype(AsText(outs[k].dtype.ToString()));
      WriteShape(outputs[k].initShape(static_cast<unsigned>(outs[k].shape.size())), outs[k].shape);
      outputs[k].setData(AsData(outs[k].data));
    }
    o.setMachineryError(AsText(m.results[i].machinery_error));
  }
}

void Write(w::Submit::Builder b, const SubmitMsg& m) {
  b.setModel(AsText(m.model));
  b.setModelBytes(capnp::Data::Reader(reinterpret_cast<const kj::byte*>(m.model_bytes.data()),
                                      m.model_bytes.size()));
  b.setTarget(AsText(m.target));
  b.setDevice(AsText(m.device));
  b.setTrials(m.trials);
  b.setOptions(AsText(m.options));
}

void Write(w::JobEvent::Builder b, const JobEventMsg& m) {
  b.setJobId(m.job_id);
  b.setState(AsText(m.state));
  b.setTrialsDone(m.trials_done);
  b.setTrialsTotal(m.trials_total);
  auto tasks = b.initTasks(static_cast<unsigned>(m.tasks.size()));
  for (size_t i = 0; i < m.tasks.size(); ++i) {
    tasks[i].setIndex(m.tasks[i].index);
    tasks[i].setName(AsText(m.tasks[i].name));
    tasks[i].setTrialsDone(m.tasks[i].trials_done);
    tasks[i].setTrialsTotal(m.tasks[i].trials_total);
    tasks[i].setBestSeconds(m.tasks[i].best_seconds);
    tasks[i].setWeight(m.tasks[i].weight);
    tasks[i].setFlop(m.tasks[i].flop);
    tasks[i].setUntunedSeconds(m.tasks[i].untuned_seconds);
    tasks[i].setDone(m.tasks[i].done);
  }
  b.setMessage(AsText(m.message));
  b.setModel(AsText(m.model));
  b.setTarget(AsText(m.target));
  b.setElapsedS(m.elapsed_s);
  b.setClient(AsText(m.client));
}

void Write(w::Query::Builder b, const QueryMsg& m) {
  switch (m.kind) {
    case QueryMsg::Kind::kJobStatus:
      b.setJobStatus(m.job_id);
      break;
    case QueryMsg::Kind::kListJobs:
      b.setListJobs();
      break;
    case QueryMsg::Kind::kListWorkers:
      b.setListWorkers();
      break;
    case QueryMsg::Kind::kWatch:
      b.setWatch(m.job_id);
      break;
  }
}

void Write(w::WorkerList::Builder b, const WorkerListMsg& m) {
  auto list = b.initWorkers(static_cast<unsigned>(m.workers.size()));
  for (size_t i = 0; i < m.workers.size(); ++i) {
    const WorkerInfoMsg& x = m.workers[i];
    list[i].setWorkerId(AsText(x.worker_id));
    list[i].setDeviceKey(AsText(x.device_key));
    list[i].setTarget(AsText(x.target));
    list[i].setState(AsText(x.state));
    list[i].setInFlight(x.in_flight);
    list[i].setLastSeenS(x.last_seen_s);
    list[i].setHardware(AsText(x.hardware));
  }
}

void Write(w::JobList::Builder b, const JobListMsg& m) {
  auto list = b.initJobs(static_cast<unsigned>(m.jobs.size()));
  for (size_t i = 0; i < m.jobs.size(); ++i) Write(list[i], m.jobs[i]);
}

// ---- read ----

RegisterMsg Read(w::Register::Reader r) {
  RegisterMsg m{Str(r.getWorkerId()), Str(r.getDeviceKey()), Str(r.getTarget()),
                r.getCanBuild(),      r.getCanRun(),         r.getConcurrency(),
                Str(r.getHardware()), Str(r.getHostname()),  r.getVectorBytes(),
                r.getNumCores()};
  if (m.worker_id.empty()) Malformed("register: workerId is empty");
  if (m.device_key.empty()) Malformed("register: deviceKey is empty");
  if (m.target.empty()) Malformed("register: target is empty");
  if (m.concurrency == 0 || m.concurrency > 4096) {
    Malformed("register: concurrency " + std::to_string(m.concurrency) + " is not in 1..4096");
  }
  // A power of two up to 256 bytes (AVX-512 is 64; SVE goes to 256), or 0 for unknown.
  if (m.vector_bytes > 256 || (m.vector_bytes & (m.vector_bytes - 1)) != 0) {
    Malformed("register: vectorBytes " + std::to_string(m.vector_bytes) +
              " is not 0 or a power of two up to 256");
  }
  if (m.num_cores > 65536) {
    Malformed("register: numCores " + std::to_string(m.num_cores) + " is not in 0..65536");
  }
  m.max_threads_per_block = r.getMaxThreadsPerBlock();
  m.max_shared_bytes = r.getMaxSharedBytes();
  m.warp_size = r.getWarpSize();
  if (m.max_threads_per_block > 65536) {
    Malformed("register: maxThreadsPerBlock " + std::to_string(m.max_threads_per_block) +
              " is not in 0..65536");
  }
  if (m.warp_size > 1024 || (m.warp_size & (m.warp_size - 1)) != 0) {
    Malformed("register: warpSize " + std::to_string(m.warp_size) +
              " is not 0 or a power of two up to 1024");
  }
  for (auto f : Bounded(r.getFeatures(), "register: features")) {
    std::string feature = Str(f);
    if (feature.empty() || feature.size() > 64) {
      Malformed("register: a feature name of " + std::to_string(feature.size()) +
                " characters (1..64 expected)");
    }
    m.features.push_back(std::move(feature));
  }
  return m;
}

RegisteredMsg Read(w::Registered::Reader r) {
  return {r.getAccepted(), Str(r.getReason()), r.getHeartbeatIntervalMs()};
}

HeartbeatMsg Read(w::Heartbeat::Reader r) {
  HeartbeatMsg m{Str(r.getWorkerId()), r.getInFlight()};
  if (m.worker_id.empty()) Malformed("heartbeat: workerId is empty");
  return m;
}

MeasureBatchMsg Read(w::MeasureBatch::Reader r) {
  MeasureBatchMsg m;
  m.batch_id = r.getBatchId();
  auto s = r.getSettings();
  m.settings.target = Str(s.getTarget());
  m.settings.timing.number = static_cast<int>(s.getNumber());
  m.settings.timing.repeat = static_cast<int>(s.getRepeat());
  m.settings.timing.min_repeat_ms = s.getMinRepeatMs();
  m.settings.timing.flush_cache = s.getFlushCache();
  m.settings.timing.warmup = static_cast<int>(s.getWarmup());
  m.settings.build_time_limit_s = s.getBuildTimeLimitS();
  m.settings.run_time_limit_s = s.getRunTimeLimitS();
  m.settings.input_seed = s.getInputSeed();
  m.settings.num_threads = s.getNumThreads();
  const auto& t = m.settings.timing;
  if (m.settings.target.empty()) Malformed("measureBatch: settings.target is empty");
  if (t.number < 1 || t.number > 1000000 || t.repeat < 1 || t.repeat > 10000 || t.warmup > 10000 ||
      !(t.min_repeat_ms >= 0 && t.min_repeat_ms <= 60000)) {
    Malformed("measureBatch: settings number, repeat, warmup or minRepeatMs out of range");
  }
  if (!(m.settings.build_time_limit_s > 0 && m.settings.build_time_limit_s <= 3600) ||
      !(m.settings.run_time_limit_s > 0 && m.settings.run_time_limit_s <= 3600)) {
    Malformed("measureBatch: settings time limits must be in (0, 3600] s");
  }
  for (auto wl : Bounded(r.getWorkloads(), "workloads")) {
    m.workloads.push_back({Str(wl.getHash()), Str(wl.getName()), Str(wl.getTvmscript())});
    if (m.workloads.back().hash.empty()) Malformed("measureBatch: a workload has no hash");
  }
  for (auto c : Bounded(r.getCandidates(), "candidates")) {
    CandidateMsg x;
    x.id = c.getId();
    x.workload_hash = Str(c.getWorkloadHash());
    x.scheduled = Str(c.getScheduled());
    x.trace = Str(c.getTrace());
    for (auto d : Bounded(c.getDims(), "dims")) x.dims[Str(d.getName())] = d.getValue();
    if (x.workload_hash.empty()) {
      Malformed("measureBatch: candidate " + std::to_string(x.id) + " has no workloadHash");
    }
    for (auto g : Bounded(c.getGiven(), "given")) {
      GivenParamMsg p;
      std::string what = "measureBatch: candidate " + std::to_string(x.id) + " given param " +
                         std::to_string(x.given.size());
      p.name = Str(g.getName());
      p.scalar = g.getScalar();
      TensorShape t = ReadTensorShape(g.getDtype(), g.getShape(), what);
      p.dtype = t.dtype;
      p.shape = t.shape;
      p.int_value = g.getIntValue();
      p.float_value = g.getFloatValue();
      p.written = g.getWritten();
      if (!p.scalar) {
        p.input = Bytes(g.getInput());
        p.expected = Bytes(g.getExpected());
        // An input left alone is not sent twice: its expected values are its input.
        size_t expected_bytes = p.written ? t.bytes : 0;
        if (p.input.size() != t.bytes || p.expected.size() != expected_bytes) {
          Malformed(what + ": " + std::to_string(t.bytes) + " bytes expected for its input and " +
                    std::to_string(expected_bytes) + " for its expected values, got " +
                    std::to_string(p.input.size()) + " and " + std::to_string(p.expected.size()));
        }
      }
      x.given.push_back(std::move(p));
    }
    x.return_outputs = c.getReturnOutputs();
    m.candidates.push_back(std::move(x));
  }
  return m;
}

ResultsMsg Read(w::Results::Reader r) {
  ResultsMsg m;
  m.batch_id = r.getBatchId();
  m.worker_id = Str(r.getWorkerId());
  if (m.worker_id.empty()) Malformed("results: workerId is empty");
  for (auto o : Bounded(r.getResults(), "results")) {
    CandidateResultMsg x;
    x.id = o.getId();
    std::string kind = Str(o.getErrorKind());
    auto parsed = runtime::ParseMeasureErrorKind(kind);
    if (!parsed) {
      Malformed("results: candidate " + std::to_string(x.id) + " has unknown errorKind '" +
                kind.substr(0, 40) + "'");
    }
    runtime::MeasureResult& res = x.result;
    res.error_kind = *parsed;
    res.message = Str(o.getMessage());
    res.build_seconds = o.getBuildSeconds();
    res.build_cache_hit = o.getBuildCacheHit();
    for (double v : Bounded(o.getRunSeconds(), "runSeconds")) res.repeat_seconds.push_back(v);
    res.median_seconds = o.getMedianSeconds();
    res.number = static_cast<int>(o.getNumber());
    res.contention = o.getContention();
    if (!std::isfinite(res.contention) || res.contention < 0) {
      Malformed("results: contention " + std::to_string(res.contention) +
                " is not a non-negative number");
    }
    res.correctness_checked = o.getCorrectnessChecked();
    res.max_abs_error = o.getMaxAbsError();
    res.max_rel_error = o.getMaxRelError();
    res.reference = Str(o.getReference());
    x.machinery_error = Str(o.getMachineryError());
    for (auto t : Bounded(o.getOutputs(), "outputs")) {
      std::string what = "results: candidate " + std::to_string(x.id) + " output " +
                         std::to_string(x.outputs.size());
      TensorShape shape = ReadTensorShape(t.getDtype(), t.getShape(), what);
      CallTensorMsg out{t.getParam(), shape.dtype, shape.shape, Bytes(t.getData())};
      if (out.data.size() != shape.bytes) {
        Malformed(what + ": " + std::to_string(shape.bytes) + " bytes expected, got " +
                  std::to_string(out.data.size()));
      }
      x.outputs.push_back(std::move(out));
    }
    if (x.machinery_error.empty() && res.ok() &&
        !(res.median_seconds > 0 && res.median_seconds < 1e6)) {
      Malformed("results: candidate " + std::to_string(x.id) +
                " is ok but its medianSeconds is not a positive time");
    }
    m.results.push_back(std::move(x));
  }
  return m;
}

SubmitMsg Read(w::Submit::Reader r) {
  auto bytes = r.getModelBytes();
  SubmitMsg m{
      Str(r.getModel()),  std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size()),
      Str(r.getTarget()), Str(r.getDevice()),
      r.getTrials(),      Str(r.getOptions())};
  if (m.model_bytes.empty()) Malformed("submit: modelBytes is empty");
  if (m.target.empty()) Malformed("submit: target is empty");
  return m;
}

JobEventMsg Read(w::JobEvent::Reader r) {
  JobEventMsg m;
  m.job_id = r.getJobId();
  m.state = Str(r.getState());
  m.trials_done = r.getTrialsDone();
  m.trials_total = r.getTrialsTotal();
  for (auto t : Bounded(r.getTasks(), "tasks")) {
    m.tasks.push_back({t.getIndex(), Str(t.getName()), t.getTrialsDone(), t.getTrialsTotal(),
                       t.getBestSeconds(), t.getWeight(), t.getFlop(), t.getUntunedSeconds(),
                       t.getDone()});
  }
  m.message = Str(r.getMessage());
  m.model = Str(r.getModel());
  m.target = Str(r.getTarget());
  m.elapsed_s = r.getElapsedS();
  m.client = Str(r.getClient());
  return m;
}

QueryMsg Read(w::Query::Reader r) {
  switch (r.which()) {
    case w::Query::JOB_STATUS:
      return {QueryMsg::Kind::kJobStatus, r.getJobStatus()};
    case w::Query::LIST_JOBS:
      return {QueryMsg::Kind::kListJobs, 0};
    case w::Query::LIST_WORKERS:
      return {QueryMsg::Kind::kListWorkers, 0};
    case w::Query::WATCH:
      return {QueryMsg::Kind::kWatch, r.getWatch()};
  }
  Malformed("query: unknown kind " + std::to_string(static_cast<int>(r.which())));
}

WorkerListMsg Read(w::WorkerList::Reader r) {
  WorkerListMsg m;
  for (auto x : Bounded(r.getWorkers(), "workers")) {
    m.workers.push_back({Str(x.getWorkerId()), Str(x.getDeviceKey()), Str(x.getTarget()),
                         Str(x.getState()), x.getInFlight(), x.getLastSeenS(),
                         Str(x.getHardware())});
  }
  return m;
}

JobListMsg Read(w::JobList::Reader r) {
  JobListMsg m;
  for (auto j : Bounded(r.getJobs(), "jobs")) m.jobs.push_back(Read(j));
  return m;
}

Message ReadEnvelope(w::Envelope::Reader e) {
  switch (e.which()) {
    case w::Envelope::REGISTER:
      return Read(e.getRegister());
    case w::Envelope::REGISTERED:
      return Read(e.getRegistered());
    case w::Envelope::HEARTBEAT:
      return Read(e.getHeartbeat());
    case w::Envelope::MEASURE_BATCH:
      return Read(e.getMeasureBatch());
    case w::Envelope::RESULTS:
      return Read(e.getResults());
    case w::Envelope::SUBMIT:
      return Read(e.getSubmit());
    case w::Envelope::SUBMITTED:
      return SubmittedMsg{e.getSubmitted().getJobId()};
    case w::Envelope::JOB_EVENT:
      return Read(e.getJobEvent());
    case w::Envelope::CANCEL:
      return CancelMsg{e.getCancel().getJobId()};
    case w::Envelope::QUERY:
      return Read(e.getQuery());
    case w::Envelope::WORKERS:
      return Read(e.getWorkers());
    case w::Envelope::JOBS:
      return Read(e.getJobs());
    case w::Envelope::ERROR:
      return ErrorMsg{Str(e.getError().getKind()), Str(e.getError().getMessage())};
  }
  Malformed("unknown message kind " + std::to_string(static_cast<int>(e.which())));
}

}  // namespace

uint32_t ProtocolVersion() { return w::PROTOCOL_VERSION; }

const char* MessageName(const Message& message) {
  static const char* const kNames[] = {
      "register",  "registered", "heartbeat", "measure_batch", "results", "submit", "submitted",
      "job_event", "cancel",     "query",     "workers",       "jobs",    "error"};
  static_assert(std::size(kNames) == std::variant_size_v<Message>);
  return kNames[message.index()];
}

std::string Encode(const Message& message, uint32_t version) {
  capnp::MallocMessageBuilder builder;
  auto e = builder.initRoot<w::Envelope>();
  e.setProtocolVersion(version);
  std::visit(
      [&](const auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, RegisterMsg>) Write(e.initRegister(), m);
        if constexpr (std::is_same_v<T, RegisteredMsg>) Write(e.initRegistered(), m);
        if constexpr (std::is_same_v<T, HeartbeatMsg>) Write(e.initHeartbeat(), m);
        if constexpr (std::is_same_v<T, MeasureBatchMsg>) Write(e.initMeasureBatch(), m);
        if constexpr (std::is_same_v<T, ResultsMsg>) Write(e.initResults(), m);
        if constexpr (std::is_same_v<T, SubmitMsg>) Write(e.initSubmit(), m);
        if constexpr (std::is_same_v<T, SubmittedMsg>) e.initSubmitted().setJobId(m.job_id);
        if constexpr (std::is_same_v<T, JobEventMsg>) Write(e.initJobEvent(), m);
        if constexpr (std::is_same_v<T, CancelMsg>) e.initCancel().setJobId(m.job_id);
        if constexpr (std::is_same_v<T, QueryMsg>) Write(e.initQuery(), m);
        if constexpr (std::is_same_v<T, WorkerListMsg>) Write(e.initWorkers(), m);
        if constexpr (std::is_same_v<T, JobListMsg>) Write(e.initJobs(), m);
        if constexpr (std::is_same_v<T, ErrorMsg>) {
          auto b = e.initError();
          b.setKind(AsText(m.kind));
          b.setMessage(AsText(m.message));
        }
      },
      message);
  kj::Array<capnp::word> words = capnp::messageToFlatArray(builder);
  kj::ArrayPtr<const kj::byte> bytes = words.asBytes();
  return std::string(reinterpret_cast<const char*>(bytes.begin()), bytes.size());
}

Message Decode(const void* data, size_t size, const DecodeLimits& limits) {
  if (size > limits.max_bytes) {
    Malformed(std::to_string(size) + " bytes exceed the limit of " +
              std::to_string(limits.max_bytes));
  }
  if (size == 0 || size % sizeof(capnp::word) != 0) {
    Malformed(std::to_string(size) + " bytes is not a whole number of 8-byte words");
  }
  // Cap'n Proto reads in place and requires 8-byte alignment, which a ZeroMQ frame does not
  // promise: read from an aligned copy.
  kj::Array<capnp::word> words = kj::heapArray<capnp::word>(size / sizeof(capnp::word));
  std::memcpy(words.begin(), data, size);
  capnp::ReaderOptions options;
  options.traversalLimitInWords = limits.traversal_limit_words;
  options.nestingLimit = limits.nesting_limit;
  try {
    capnp::FlatArrayMessageReader reader(words, options);
    auto e = reader.getRoot<w::Envelope>();
    uint32_t version = e.getProtocolVersion();
    if (version != ProtocolVersion()) {
      throw Error(ErrorKind::kUnsupported, "wire message: protocol version " +
                                               std::to_string(version) + ", this build speaks " +
                                               std::to_string(ProtocolVersion()));
    }
    return ReadEnvelope(e);
  } catch (const kj::Exception& e) {
    Malformed(std::string("not a valid Cap'n Proto frame: ") + e.getDescription().cStr());
  }
}

}  // namespace kiln::schemas
