// Dispatcher: registry, batching, deadlines and exactly-once answers.
#include "coordinator/dispatcher.h"

#include <algorithm>
#include <chrono>
#include <random>

#include "ir/structural.h"
#include "ir/text/printer.h"
#include "schemas/given_params.h"
#include "support/log_format.h"
#include "support/logging.h"

namespace kiln::coordinator {

schemas::CandidateMsg ToCandidateMsg(const search::MeasureRequest& request,
                                     const std::string& workload_hash) {
  schemas::CandidateMsg c;
  c.id = request.id;
  c.workload_hash = workload_hash;
  c.scheduled = ir::PrintPrimFunc(request.scheduled);
  c.trace = request.trace.ToJSON().dump();
  c.dims = request.dims;
  if (request.reference) c.given = schemas::GivenFromReference(*request.reference);
  c.return_outputs = request.return_outputs;
  return c;
}

Dispatcher::Dispatcher(DispatcherOptions options, BatchSink sink)
    : options_(std::move(options)), sink_(std::move(sink)) {
  std::random_device random;
  next_batch_ = ((static_cast<uint64_t>(random()) << 20) ^ random()) + 1;
}

void Dispatcher::SetSink(BatchSink sink) {
  std::lock_guard lock(sink_mutex_);
  sink_ = std::move(sink);
}

void Dispatcher::Interrupt() {
  std::lock_guard lock(mutex_);
  interrupted_ = true;
  answered_.notify_all();
}

void Dispatcher::Submit(std::vector<search::MeasureRequest> requests) {
  // Printing happens outside the lock: it is the costly part of a submit.
  std::vector<Entry> entries;
  std::vector<schemas::WorkloadText> workloads;
  for (search::MeasureRequest& r : requests) {
    Entry e;
    std::string hash = ir::StructuralHashHex(r.workload);
    e.candidate = ToCandidateMsg(r, hash);
    workloads.push_back({hash, r.task_name, ir::PrintPrimFunc(r.workload)});
    e.request = std::move(r);
    entries.push_back(std::move(e));
  }
  std::lock_guard lock(mutex_);
  for (size_t i = 0; i < entries.size(); ++i) {
    uint64_t id = entries[i].request.id;
    KILN_CHECK(!entries_.count(id), ErrorKind::kInternal,
               "Dispatcher::Submit: request id " + std::to_string(id) + " is already pending");
    workload_text_.emplace(workloads[i].hash, std::move(workloads[i]));
    entries_.emplace(id, std::move(entries[i]));
    queue_.push_back(id);
  }
}

std::vector<search::MeasureResponse> Dispatcher::Collect(double timeout_s) {
  std::unique_lock lock(mutex_);
  answered_.wait_for(lock, std::chrono::duration<double>(std::max(0.0, timeout_s)),
                     [&] { return !done_.empty() || interrupted_; });
  if (interrupted_) throw Interrupted{};
  std::vector<search::MeasureResponse> out;
  out.swap(done_);
  return out;
}

size_t Dispatcher::Pending() const {
  std::lock_guard lock(mutex_);
  return entries_.size() + done_.size();
}

bool Dispatcher::Matches(const Worker& worker) const {
  return !worker.lost && worker.info.can_run && worker.info.target == options_.settings.target &&
         (options_.device.empty() || worker.info.device_key == options_.device);
}

schemas::RegisteredMsg Dispatcher::OnRegister(const std::string& identity,
                                              const schemas::RegisterMsg& msg, double now) {
  std::lock_guard lock(mutex_);
  // A worker that registers again (it restarted, or reconnected after being declared lost)
  // starts afresh: whatever it had in flight is given out again.
  if (auto it = workers_.find(identity); it != workers_.end()) {
    for (uint64_t id : it->second.in_flight) Requeue(id, "worker registered again");
  }
  // The same worker on an earlier connection is gone: its entry goes, so that the registry
  // holds one entry per worker however often it reconnects.
  for (auto it = workers_.begin(); it != workers_.end();) {
    if (it->first != identity && it->second.info.worker_id == msg.worker_id) {
      if (!it->second.lost) {
        for (uint64_t id : it->second.in_flight) Requeue(id, "worker reconnected");
      }
      it = workers_.erase(it);
    } else {
      ++it;
    }
  }
  Worker& w = workers_[identity];
  w = Worker{};
  w.info = msg;
  w.last_seen = now;
  LogEvent(spdlog::level::info, "worker " + msg.worker_id + " registered",
           {{"worker", msg.worker_id},
            {"device", msg.device_key},
            {"target", msg.target},
            {"hardware", msg.hardware},
            {"vector_bytes", msg.vector_bytes},
            {"num_cores", msg.num_cores}});
  return {true, "", options_.heartbeat_interval_ms};
}

bool Dispatcher::OnHeartbeat(const std::string& identity, const schemas::HeartbeatMsg& msg,
                             double now) {
  std::lock_guard lock(mutex_);
  auto it = workers_.find(identity);
  if (it == workers_.end() || it->second.lost) return false;
  Worker& worker = it->second;
  worker.last_seen = now;
  if (msg.in_flight == 0 && !worker.in_flight.empty()) {
    // Sent long enough ago to have arrived, and the worker holds nothing: the batch or its
    // results went missing on the way.
    std::vector<uint64_t> missing;
    for (uint64_t id : worker.in_flight) {
      auto e = entries_.find(id);
      if (e != entries_.end() && now - e->second.sent > options_.heartbeat_timeout_s) {
        missing.push_back(id);
      }
    }
    for (uint64_t id : missing) {
      worker.in_flight.erase(id);
      // A message lost on the way is no fault of the candidate: the dispatch does not count.
      entries_.at(id).attempts -= 1;
      Requeue(id, "worker " + worker.info.worker_id + " holds no batch");
    }
    // The missing batch may have carried workloads: they go with the next one again.
    if (!missing.empty()) worker.workloads_sent.clear();
  }
  return true;
}

void Dispatcher::Requeue(uint64_t id, const std::string& why) {
  auto it = entries_.find(id);
  if (it == entries_.end()) return;
  LogEvent(spdlog::level::info, "candidate " + std::to_string(id) + " back in the queue: " + why,
           {{"candidate", id}});
  it->second.worker.clear();
  queue_.push_front(id);
  ++reassigned_;
}

bool Dispatcher::OnResults(const std::string& identity, const schemas::ResultsMsg& msg,
                           double now) {
  std::vector<search::MeasureRequest> requests;
  std::vector<search::MeasureResponse> responses;
  schemas::RegisterMsg info;
  {
    std::lock_guard lock(mutex_);
    auto wit = workers_.find(identity);
    if (wit == workers_.end()) return false;
    Worker& worker = wit->second;
    info = worker.info;
    worker.last_seen = now;
    for (const schemas::CandidateResultMsg& r : msg.results) {
      auto it = entries_.find(r.id);
      // Not this worker's any more (it was declared lost, or the deadline passed and another
      // worker has it): the other answer counts, this one is dropped.
      if (it == entries_.end() || it->second.worker != identity ||
          it->second.batch != msg.batch_id || !worker.in_flight.count(r.id)) {
        ++duplicates_dropped_;
        continue;
      }
      worker.in_flight.erase(r.id);
      Entry& e = it->second;
      if (!r.machinery_error.empty()) {
        e.last_machinery_error = worker.info.worker_id + ": " + r.machinery_error;
        // Its workload may not have reached the worker (a lost batch carried it): send it again.
        worker.workloads_sent.erase(e.candidate.workload_hash);
        if (e.attempts < options_.max_attempts) {
          Requeue(r.id, e.last_machinery_error);
          continue;
        }
      }
      search::MeasureResponse response;
      response.id = r.id;
      response.result = r.result;
      response.worker = worker.info.worker_id;
      response.machinery_error = r.machinery_error;
      try {
        response.outputs = schemas::OutputsFromMsg(r.outputs);
      } catch (const Error& err) {
        response.machinery_error = worker.info.worker_id + ": its outputs: " + err.what();
      }
      requests.push_back(std::move(e.request));
      responses.push_back(std::move(response));
      entries_.erase(it);
    }
    // A lost worker that answers is alive after all.
    if (worker.lost && worker.in_flight.empty()) worker.lost = false;
  }
  if (!responses.empty()) {
    std::lock_guard sink_lock(sink_mutex_);
    if (sink_) {
      try {
        sink_(info, requests, responses);
      } catch (const std::exception& e) {
        KILN_LOG_ERROR("storing results of worker {}: {}", info.worker_id, e.what());
      }
    }
    std::lock_guard lock(mutex_);
    for (auto& r : responses) done_.push_back(std::move(r));
    answered_.notify_all();
  }
  return true;
}

namespace {

// What a candidate adds to a batch on the wire, a little over: its text, trace and given
// tensors (a sparse task's reference travels as inputs and expected outputs).
size_t WireBytes(const schemas::CandidateMsg& c) {
  size_t bytes = c.workload_hash.size() + c.scheduled.size() + c.trace.size() + 256;
  for (const schemas::GivenParamMsg& g : c.given) {
    bytes += g.name.size() + g.input.size() + g.expected.size() + 64;
  }
  return bytes;
}

// "131 KiB", "83 MiB" (rounded up).
std::string ByteSize(size_t bytes) {
  if (bytes < (size_t{1} << 20)) return std::to_string((bytes + 1023) >> 10) + " KiB";
  return std::to_string((bytes + (size_t{1} << 20) - 1) >> 20) + " MiB";
}

}  // namespace

std::vector<std::pair<std::string, schemas::MeasureBatchMsg>> Dispatcher::TakeBatches(double now) {
  std::vector<search::MeasureResponse> given_up;
  std::vector<std::pair<std::string, schemas::MeasureBatchMsg>> batches;
  {
    std::lock_guard lock(mutex_);
    // Workers lost while no other is heard from either were cut off together (a partition, an
    // outage): that is no sign against the candidates they held, whose dispatches do not count
    // towards max_attempts. One worker lost among live ones may have been felled by one.
    bool any_heard = false;
    for (auto& [identity, worker] : workers_) {
      any_heard =
          any_heard || (!worker.lost && now - worker.last_seen <= options_.heartbeat_timeout_s / 2);
    }
    for (auto& [identity, worker] : workers_) {
      if (!worker.lost && now - worker.last_seen > options_.heartbeat_timeout_s) {
        LogEvent(spdlog::level::warn, "worker " + worker.info.worker_id + " lost",
                 {{"worker", worker.info.worker_id},
                  {"silent_s", now - worker.last_seen},
                  {"reassigned", worker.in_flight.size()}});
        worker.lost = true;
        for (uint64_t id : worker.in_flight) {
          if (auto e = entries_.find(id); e != entries_.end() && !any_heard)
            e->second.attempts -= 1;
          Requeue(id, "worker " + worker.info.worker_id + " lost");
        }
        worker.in_flight.clear();
      }
    }
    for (auto& [id, e] : entries_) {
      if (!e.worker.empty() && now > e.deadline) {
        workers_[e.worker].in_flight.erase(id);
        Requeue(id, "deadline passed on " + workers_[e.worker].info.worker_id);
      }
    }
    // Candidates dispatched max_attempts times without an answer are given up, so that the
    // search is never left waiting for an id.
    // A batch's candidates and workloads stay within this, leaving room for the envelope.
    const size_t batch_budget = options_.max_message_bytes - options_.max_message_bytes / 8;
    std::deque<uint64_t> kept;
    std::set<uint64_t> seen;
    auto give_up = [&](std::map<uint64_t, Entry>::iterator it, const std::string& why) {
      search::MeasureResponse r;
      r.id = it->first;
      r.worker = "coordinator";
      r.machinery_error = why;
      r.result.error_kind = runtime::MeasureErrorKind::kRuntimeError;
      r.result.message = why;
      LogEvent(spdlog::level::warn, "candidate " + std::to_string(it->first) + " " + why,
               {{"candidate", it->first}});
      given_up.push_back(std::move(r));
      entries_.erase(it);
    };
    for (uint64_t id : queue_) {
      auto it = entries_.find(id);
      if (it == entries_.end() || !it->second.worker.empty()) continue;  // stale queue entry
      if (const size_t bytes = WireBytes(it->second.candidate); bytes > batch_budget) {
        give_up(it, "not sent: its inputs and expected outputs take " + ByteSize(bytes) +
                        ", past the " + ByteSize(options_.max_message_bytes) +
                        " a message to a worker carries");
        continue;
      }
      if (it->second.attempts >= options_.max_attempts) {
        give_up(it, "given up after " + std::to_string(it->second.attempts) + " dispatches" +
                        (it->second.last_machinery_error.empty()
                             ? std::string()
                             : ": " + it->second.last_machinery_error));
        continue;
      }
      if (seen.insert(id).second) kept.push_back(id);
    }
    queue_.swap(kept);

    // A worker not heard from for half the timeout has missed beats: it may be cut off (and
    // soon lost), so it gets nothing new until it is heard again.
    std::vector<std::string> idle;
    for (auto& [identity, worker] : workers_) {
      if (Matches(worker) && worker.in_flight.empty() &&
          now - worker.last_seen <= options_.heartbeat_timeout_s / 2) {
        idle.push_back(identity);
      }
    }
    size_t live = 0;
    for (auto& [identity, worker] : workers_) live += Matches(worker) ? 1 : 0;
    // Share the queue among all matching workers rather than letting the first take all.
    size_t share = std::max<size_t>(1, (queue_.size() + live - 1) / std::max<size_t>(live, 1));
    for (const std::string& identity : idle) {
      if (queue_.empty()) break;
      Worker& worker = workers_[identity];
      size_t n = std::min({options_.max_batch, queue_.size(), share});
      schemas::MeasureBatchMsg batch;
      batch.batch_id = next_batch_++;
      batch.settings = options_.settings;
      size_t batch_bytes = 0;
      for (size_t k = 0; k < n; ++k) {
        uint64_t id = queue_.front();
        Entry& e = entries_.at(id);
        const size_t bytes = WireBytes(e.candidate) +
                             (worker.workloads_sent.count(e.candidate.workload_hash)
                                  ? 0
                                  : workload_text_.at(e.candidate.workload_hash).tvmscript.size());
        if (k > 0 && batch_bytes + bytes > batch_budget) break;  // the next batch takes it
        batch_bytes += bytes;
        queue_.pop_front();
        e.worker = identity;
        e.batch = batch.batch_id;
        e.sent = now;
        e.attempts += 1;
        e.deadline = now + options_.candidate_deadline_s * static_cast<double>(n);
        worker.in_flight.insert(id);
        const std::string& hash = e.candidate.workload_hash;
        if (!worker.workloads_sent.count(hash)) {
          batch.workloads.push_back(workload_text_.at(hash));
          worker.workloads_sent.insert(hash);
        }
        batch.candidates.push_back(e.candidate);
      }
      batches.emplace_back(identity, std::move(batch));
    }
  }
  if (!given_up.empty()) Answer(std::move(given_up));
  return batches;
}

void Dispatcher::Answer(std::vector<search::MeasureResponse> responses) {
  std::lock_guard lock(mutex_);
  for (auto& r : responses) done_.push_back(std::move(r));
  answered_.notify_all();
}

void Dispatcher::Configure(const schemas::MeasureSettings& settings, const std::string& device) {
  std::lock_guard lock(mutex_);
  options_.settings = settings;
  options_.device = device;
}

void Dispatcher::DropAll() {
  std::lock_guard lock(mutex_);
  entries_.clear();
  queue_.clear();
  done_.clear();
  workload_text_.clear();  // the next job submits its own
  interrupted_ = false;
  for (auto& [identity, worker] : workers_) worker.in_flight.clear();
}

std::vector<schemas::WorkerInfoMsg> Dispatcher::Workers(double now) const {
  std::lock_guard lock(mutex_);
  std::vector<schemas::WorkerInfoMsg> out;
  for (const auto& [identity, w] : workers_) {
    std::string state = w.lost ? "lost" : w.in_flight.empty() ? "idle" : "busy";
    out.push_back({w.info.worker_id, w.info.device_key, w.info.target, state,
                   static_cast<uint32_t>(w.in_flight.size()), now - w.last_seen, w.info.hardware});
  }
  return out;
}

std::vector<schemas::RegisterMsg> Dispatcher::MatchingWorkers(const std::string& target,
                                                              const std::string& device) const {
  std::lock_guard lock(mutex_);
  std::vector<schemas::RegisterMsg> out;
  for (const auto& [identity, w] : workers_) {
    if (!w.lost && w.info.can_run && w.info.target == target &&
        (device.empty() || w.info.device_key == device)) {
      out.push_back(w.info);
    }
  }
  return out;
}

size_t Dispatcher::Queued() const {
  std::lock_guard lock(mutex_);
  return queue_.size();
}

size_t Dispatcher::InFlight() const {
  std::lock_guard lock(mutex_);
  size_t n = 0;
  for (const auto& [identity, w] : workers_) n += w.in_flight.size();
  return n;
}

int64_t Dispatcher::reassigned() const {
  std::lock_guard lock(mutex_);
  return reassigned_;
}

int64_t Dispatcher::duplicates_dropped() const {
  std::lock_guard lock(mutex_);
  return duplicates_dropped_;
}

}  // namespace kiln::coordinator
